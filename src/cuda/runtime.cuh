// src/cuda/runtime.cuh — what the cuda backend's kernels objects share: a device's state,
// grown device buffers, and the events that split an operation's time into copies and kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <utility>

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

/// Makes a device the calling thread's current one until the scope ends, then gives the caller
/// back its own (PyTorch and CuPy keep theirs there; a multi-GPU caller must not find it moved).
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal) {
    FC_CUDA(cudaGetDevice(&previous_));
    if (previous_ != ordinal) FC_CUDA(cudaSetDevice(ordinal));
    changed_ = previous_ != ordinal;
  }
  /// The same for destructors: failures are ignored (what follows then runs on the current device).
  DeviceScope(int ordinal, std::nothrow_t) noexcept {
    changed_ = cudaGetDevice(&previous_) == cudaSuccess && previous_ != ordinal && cudaSetDevice(ordinal) == cudaSuccess;
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() {
    if (changed_) cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
  bool changed_ = false;
};

/// A device buffer of at least `bytes` bytes, grown on demand.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ == nullptr) return;
    // Freed on the device it came from: callers get their own current device back after each
    // call, so another one may be current here.
    const DeviceScope device(device_, std::nothrow);
    cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  void* at_least(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_ != nullptr) {
        // Forgotten before the call: cudaFree may free it and still report an earlier
        // asynchronous error, and the destructor must not free it again.
        void* old = std::exchange(ptr_, nullptr);
        bytes_ = 0;
        FC_CUDA(cudaFree(old));
      }
      std::size_t free_bytes = 0, total_bytes = 0;
      FC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      fastconv::detail::require_device_memory(bytes, free_bytes, "the CUDA device", "a device buffer");
      FC_CUDA(cudaGetDevice(&device_));
      FC_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 16)));
      bytes_ = bytes;
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = 0;
};

/// A CUDA event owned like a value: destroyed with its owner, also when a later step of the
/// owner's construction throws.
class Event {
 public:
  Event() { FC_CUDA(cudaEventCreate(&e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// When an operation throws part-way, its copies and kernels may still be queued on the
/// caller's arrays and the plan's buffers: this waits for them before the caller gets control
/// back (any error of their own is the one already being thrown). Nothing on a normal return.
class FinishOnThrow {
 public:
  explicit FinishOnThrow(cudaStream_t s) : s_(s), unwinding_(std::uncaught_exceptions()) {}
  FinishOnThrow(const FinishOnThrow&) = delete;
  FinishOnThrow& operator=(const FinishOnThrow&) = delete;
  ~FinishOnThrow() {
    if (std::uncaught_exceptions() > unwinding_) cudaStreamSynchronize(s_);
  }

 private:
  cudaStream_t s_;
  int unwinding_;  ///< exceptions in flight when the operation began
};

/// The four events of a Timeline, kept by the object whose operations it times (under that
/// object's lock): creating them on every call cost microseconds of each small transform.
struct TimelineEvents {
  Event at[4];
};

/// Events around one operation: copies in, kernels, copies out.
class Timeline {
 public:
  Timeline(cudaStream_t s, TimelineEvents& events) : s_(s), events_(events.at), finish_on_throw_(s) {
    FC_CUDA(cudaEventRecord(events_[0].get(), s_));
  }
  void copies_in_done() { FC_CUDA(cudaEventRecord(events_[1].get(), s_)); }
  void kernels_done() { FC_CUDA(cudaEventRecord(events_[2].get(), s_)); }
  /// Waits for the operation and adds its times to `c`.
  void finish(Counters& c, std::uint64_t launches, std::uint64_t transfers) {
    FC_CUDA(cudaEventRecord(events_[3].get(), s_));
    FC_CUDA(cudaEventSynchronize(events_[3].get()));
    float in = 0, kernels = 0, out = 0;
    FC_CUDA(cudaEventElapsedTime(&in, events_[0].get(), events_[1].get()));
    FC_CUDA(cudaEventElapsedTime(&kernels, events_[1].get(), events_[2].get()));
    FC_CUDA(cudaEventElapsedTime(&out, events_[2].get(), events_[3].get()));
    c.transfer_ns += static_cast<std::uint64_t>((in + out) * 1e6);
    c.compute_ns += static_cast<std::uint64_t>(kernels * 1e6);
    c.launches += launches;
    c.transfers += transfers;
  }

 private:
  cudaStream_t s_;
  Event* events_;
  FinishOnThrow finish_on_throw_;  ///< last: it waits before the events are reused
};

}  // namespace fastconv::cuda
