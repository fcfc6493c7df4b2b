// src/cuda/conv2d.hpp — the cuda backend's conv2d (polyhankel with cuFFT), made by
// CudaBackend::make_conv2d (cuda_backend.cu); the kernels are in conv2d.cu.
#pragma once

#include <cstddef>
#include <memory>

#include "core/backend_impl.hpp"
#include "nn/kernels.hpp"

namespace fastconv::cuda {

struct DeviceState;

/// Seed 002's polyhankel on the device of `dev`: kernel spectra made on the device at
/// construction, then per call the image polynomials, N·C batched real FFTs, the channel sum per
/// bin, N·K inverse FFTs and the output extraction with the bias. `fft_length` = 0: the cyclic
/// length is chosen by timing cuFFT on the candidate lengths (once per shape and device in the
/// process); otherwise that length, at least nn::polyhankel_min_length(shape).
template <class T>
nn::KernelPtr<T> make_polyhankel(std::shared_ptr<const DeviceState> dev, detail::DeviceCounters& counters,
                                 const nn::KernelArgs<T>& args, std::size_t fft_length = 0);

}  // namespace fastconv::cuda
