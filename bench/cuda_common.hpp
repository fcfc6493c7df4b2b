// Helpers shared by the CUDA benchmark programs (cuda_bench.cpp, conv2d_cudnn.cpp): CUDA runtime
// errors as exceptions, an owned event and stream, arrays in device memory, and the median time
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

class Event {
 public:
  Event() { check(cudaEventCreateWithFlags(&event_, cudaEventDefault), "cudaEventCreateWithFlags"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

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
  const Event start, stop;
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
