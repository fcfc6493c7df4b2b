// src/cuda/runtime.cuh — what the cuda backend's kernels objects share: a device's state,
// grown device buffers, and the events that split an operation's time into copies and kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"
#include "cuda/kernels.cuh"
#include "fastconv/backend.hpp"

namespace fastconv::cuda {

using Counters = detail::DeviceCounters;

/// What one context of a device keeps: its id, properties and stream.
struct DeviceState {
  int ordinal = 0;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  Device info;
};

/// A device buffer of at least `bytes` bytes, grown on demand.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  void* at_least(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_ != nullptr) FC_CUDA(cudaFree(ptr_));
      ptr_ = nullptr;
      bytes_ = 0;
      std::size_t free_bytes = 0, total_bytes = 0;
      FC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      fastconv::detail::require_device_memory(bytes, free_bytes, "the CUDA device", "a device buffer");
      FC_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 16)));
      bytes_ = bytes;
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Events around one operation: copies in, kernels, copies out.
class Timeline {
 public:
  explicit Timeline(cudaStream_t s) : s_(s) {
    for (auto& e : events_) FC_CUDA(cudaEventCreate(&e));
    FC_CUDA(cudaEventRecord(events_[0], s_));
  }
  ~Timeline() {
    for (auto& e : events_) cudaEventDestroy(e);
  }
  void copies_in_done() { FC_CUDA(cudaEventRecord(events_[1], s_)); }
  void kernels_done() { FC_CUDA(cudaEventRecord(events_[2], s_)); }
  /// Waits for the operation and adds its times to `c`.
  void finish(Counters& c, std::uint64_t launches, std::uint64_t transfers) {
    FC_CUDA(cudaEventRecord(events_[3], s_));
    FC_CUDA(cudaEventSynchronize(events_[3]));
    float in = 0, kernels = 0, out = 0;
    FC_CUDA(cudaEventElapsedTime(&in, events_[0], events_[1]));
    FC_CUDA(cudaEventElapsedTime(&kernels, events_[1], events_[2]));
    FC_CUDA(cudaEventElapsedTime(&out, events_[2], events_[3]));
    c.transfer_ns += static_cast<std::uint64_t>((in + out) * 1e6);
    c.compute_ns += static_cast<std::uint64_t>(kernels * 1e6);
    c.launches += launches;
    c.transfers += transfers;
  }

 private:
  cudaStream_t s_;
  cudaEvent_t events_[4]{};
};

}  // namespace fastconv::cuda
