// Helpers shared by the CUDA benchmark programs (cuda_bench.cpp, conv2d_cudnn.cpp): CUDA runtime
// errors as exceptions, owned handles (events, streams), arrays in device memory, and the median time
// of calls between two events.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace bench {

/// Throws `what` and CUDA's message when `e` is an error.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// How Owned checks the status its Create returns: `check(status, what)` for a status type (a
/// program that owns handles of another library specialises it for that library's status).
template <class Status>
struct StatusCheck;
template <>
struct StatusCheck<cudaError_t> {
  static void check(cudaError_t e, const char* what) { bench::check(e, what); }
};

/// A handle that `Create` makes (throwing `what` on failure) and `Destroy` frees.
template <class Handle, auto Create, auto Destroy>
class Owned {
 public:
  explicit Owned(const char* what) { StatusCheck<decltype(Create(&handle_))>::check(Create(&handle_), what); }
  ~Owned() { Destroy(handle_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  [[nodiscard]] Handle get() const noexcept { return handle_; }

 private:
  Handle handle_ = nullptr;
};

inline cudaError_t create_event(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
inline cudaError_t create_stream(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
}
using Event = Owned<cudaEvent_t, create_event, cudaEventDestroy>;
using Stream = Owned<cudaStream_t, create_stream, cudaStreamDestroy>;

/// `count` elements of T in device memory, freed with the array.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count) {
    if (count_ > 0) check(cudaMalloc(&data_, bytes()), "cudaMalloc");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  void upload(std::span<const T> host) {
    check(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> host(count_);
    check(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  std::size_t count_;
  T* data_ = nullptr;
};

/// The median time in ms of `reps` calls `call(i)` (i = 0, 1, ...: a caller may rotate its
/// buffers by it), which queue their work on `stream`, each call between two events, after
/// `warmups` untimed calls (lazy initialisation, caches).
template <class Call>
double median_ms(cudaStream_t stream, int reps, const Call& call, int warmups = 1) {
  const Event start("cudaEventCreateWithFlags"), stop("cudaEventCreateWithFlags");
  int i = 0;
  for (; i < warmups; ++i) call(i);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<float> times(static_cast<std::size_t>(reps));
  for (float& t : times) {
    check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
    call(i++);
    check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&t, start.get(), stop.get()), "cudaEventElapsedTime");
  }
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  return times.size() % 2 == 1 ? times[mid] : (static_cast<double>(times[mid - 1]) + times[mid]) / 2;
}

}  // namespace bench
