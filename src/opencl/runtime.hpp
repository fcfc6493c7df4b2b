// src/opencl/runtime.hpp — OpenCL platforms, devices, contexts, programs and errors.
//
// One DeviceContext per device, shared by every backend handle and plan on it: the context,
// an in-order profiling queue, what the kernels need to know about the device, and the cache
// of built programs (one build per distinct source and -D options, for the process's life).
#pragma once

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fastconv/backend.hpp"
#include "fastconv/error.hpp"
#include "opencl/opencl_backend.hpp"

namespace fastconv::opencl {

/// "CL_OUT_OF_RESOURCES" for -5, ...; "unknown OpenCL error" otherwise.
std::string_view error_name(cl_int code) noexcept;

/// A device Error for a failed OpenCL call: "OpenCL: clEnqueueNDRangeKernel failed with
/// CL_OUT_OF_RESOURCES (-5) while <doing>".
[[noreturn]] void throw_device_error(const cl::Error& e, std::string_view doing);

/// Runs `body`, turning a cl::Error into fastconv's device Error.
template <class Body>
decltype(auto) guarded(std::string_view doing, Body&& body) {
  try {
    return body();
  } catch (const cl::Error& e) {
    throw_device_error(e, doing);
  }
}


class DeviceContext {
 public:
  DeviceContext(cl::Device device, std::string id);

  const cl::Context& context() const noexcept { return context_; }
  const cl::CommandQueue& queue() const noexcept { return queue_; }
  const cl::Device& device() const noexcept { return device_; }
  const Device& info() const noexcept { return info_; }
  bool is_cpu() const noexcept { return info_.type == "cpu"; }
  std::size_t max_allocation() const noexcept { return max_allocation_; }
  /// Bytes per vector load in the `fast` kernels: on a CPU, the width of its SIMD registers
  /// (the device's native float vector width: 32 bytes for AVX2, 64 for AVX-512); on a GPU, 16
  /// (one work-item's share of a coalesced transaction).
  std::size_t preferred_vector_bytes() const noexcept { return is_cpu() ? cpu_vector_bytes_ : 16; }
  /// Whether kernels may work on `host` memory in place (CL_MEM_USE_HOST_PTR): on a CPU
  /// device, whose memory is the host's, when the address has the device's base alignment.
  bool can_wrap(const void* host, std::size_t bytes) const noexcept;

  /// A device buffer of at least `bytes` bytes: a released one of at most twice that size if
  /// there is one, else a new one (an out_of_memory Error if the device cannot hold it).
  cl::Buffer acquire(std::size_t bytes) const;
  /// Gives a buffer back for reuse. The context keeps the most recent ones, up to 1 GiB (at
  /// most a quarter of the device's memory):
  /// allocating and first touching a large buffer costs more than a pass over it.
  void release(cl::Buffer buffer) const;

  /// The program built from `source` with `options`, built on first use and then cached.
  cl::Program program(std::string_view source, const std::string& options) const;

 private:
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  Device info_;
  std::size_t cpu_vector_bytes_ = 32;
  std::size_t max_allocation_ = 0;
  std::size_t base_alignment_ = 128;
  mutable std::mutex mutex_;           // the buffer pool
  mutable std::mutex programs_mutex_;  // the program cache (builds may take seconds)
  mutable std::map<std::pair<const void*, std::string>, cl::Program> programs_;
  mutable std::vector<std::pair<std::size_t, cl::Buffer>> free_buffers_;  // most recent last
};

/// A buffer from DeviceContext::acquire() that goes back to the pool when destroyed.
class PooledBuffer {
 public:
  PooledBuffer() = default;
  PooledBuffer(std::shared_ptr<const DeviceContext> ctx, std::size_t bytes)
      : ctx_(std::move(ctx)), buffer_(ctx_->acquire(bytes)), bytes_(bytes) {}
  PooledBuffer(PooledBuffer&&) noexcept = default;
  PooledBuffer& operator=(PooledBuffer&& other) noexcept {
    give_back();
    ctx_ = std::move(other.ctx_);
    buffer_ = std::move(other.buffer_);
    bytes_ = other.bytes_;
    return *this;
  }
  ~PooledBuffer() { give_back(); }

  const cl::Buffer& get() const noexcept { return buffer_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void give_back() noexcept {
    if (ctx_ && buffer_() != nullptr) ctx_->release(std::move(buffer_));
    ctx_.reset();
  }
  std::shared_ptr<const DeviceContext> ctx_;
  cl::Buffer buffer_;
  std::size_t bytes_ = 0;
};

/// The context of the device `id` ("P:D"), or of FASTCONV_OPENCL_DEVICE when `id` is empty,
/// or else of the first GPU (the first device if there is no GPU). A device Error that says
/// how to get one when there is no OpenCL platform or device; an invalid_argument Error for
/// an id that names no device.
std::shared_ptr<const DeviceContext> device_context(std::string_view id);

}  // namespace fastconv::opencl
