// src/cuda/cuda_backend.hpp — the CUDA backend's constructor and device list (plain C++: no
// CUDA headers, so that the rest of the library compiles without them).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend_impl.hpp"
#include "fastconv/backend.hpp"

namespace fastconv::cuda {

/// The cuda backend with `variant` on device `device` ("N"; "" = FASTCONV_CUDA_DEVICE, else 0).
/// A device Error saying why when there is no CUDA device or driver.
std::shared_ptr<const detail::BackendImpl> make_cuda_backend(std::string_view variant, std::string_view device);

/// Every CUDA device, ids "0", "1", ...; empty without a driver or device (never throws).
std::vector<Device> list_devices();

}  // namespace fastconv::cuda
