// src/opencl/kernel_sources.hpp — the OpenCL C sources of src/opencl/kernels/, embedded at
// build time (cmake/embed_opencl.cmake).
#pragma once

#include <string_view>

namespace fastconv::opencl::sources {
extern const std::string_view words;      ///< the word type and its arithmetic (-D FC_WORD ...)
extern const std::string_view indexing;   ///< index helpers shared with the CPU unit tests
extern const std::string_view fast;       ///< the `fast` variant's pass kernel
extern const std::string_view gajic2011;  ///< seed 001's Algorithm 1 kernels
extern const std::string_view reorder;    ///< sequency and Paley orders
}  // namespace fastconv::opencl::sources
