// src/nn/fftw.hpp — the little of FFTW that conv2d uses, for float and double: real-to-complex
// and complex-to-real plans of one transform, executed on many arrays (the new-array
// interface, which is thread-safe), and FFTW's aligned memory.
#pragma once

#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "fastconv/error.hpp"

namespace fastconv::nn {

/// FFTW's planner is not thread-safe: every plan is made and destroyed under this lock.
inline std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

template <class T>
struct Fftw;

#define FASTCONV_FFTW_TRAITS(T, P)                                                                          \
  template <>                                                                                               \
  struct Fftw<T> {                                                                                          \
    using plan = P##_plan;                                                                                  \
    using complex = P##_complex;                                                                            \
    static void* malloc(std::size_t bytes) { return P##_malloc(bytes); }                                    \
    static void free(void* p) { P##_free(p); }                                                              \
    static plan r2c(int rank, const int* n, T* in, complex* out, unsigned flags) {                         \
      return P##_plan_dft_r2c(rank, n, in, out, flags);                                                     \
    }                                                                                                       \
    static plan c2r(int rank, const int* n, complex* in, T* out, unsigned flags) {                         \
      return P##_plan_dft_c2r(rank, n, in, out, flags);                                                     \
    }                                                                                                       \
    static void execute_r2c(plan p, T* in, complex* out) { P##_execute_dft_r2c(p, in, out); }              \
    static void execute_c2r(plan p, complex* in, T* out) { P##_execute_dft_c2r(p, in, out); }              \
    static void destroy(plan p) { P##_destroy_plan(p); }                                                    \
  };
FASTCONV_FFTW_TRAITS(float, fftwf)
FASTCONV_FFTW_TRAITS(double, fftw)
#undef FASTCONV_FFTW_TRAITS

/// An array from fftw_malloc (SIMD-aligned), zero-filled.
template <class E>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t count) : count_(count) {
    if (count == 0) return;
    data_.reset(static_cast<E*>(Fftw<double>::malloc(count * sizeof(E))));
    if (!data_) throw Error(ErrorCode::device, "conv2d: out of memory for " + std::to_string(count * sizeof(E)) + " bytes");
    std::fill(data_.get(), data_.get() + count, E{});
  }
  E* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return count_; }
  E& operator[](std::size_t i) const noexcept { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(E* p) const noexcept { Fftw<double>::free(p); }
  };
  std::unique_ptr<E, Free> data_;
  std::size_t count_ = 0;
};

/// Elements per aligned row: rows of a batch start on 64-byte boundaries, so that every row
/// has the alignment of the arrays the plan was made with.
inline std::size_t aligned_count(std::size_t count, std::size_t element_bytes) noexcept {
  const std::size_t per_line = 64 / element_bytes;
  return (count + per_line - 1) / per_line * per_line;
}

/// A forward r2c and an inverse c2r plan of one real transform of `dims` (row-major), made on
/// scratch arrays aligned like every row the plan will be executed on.
template <class T>
class RealFftPair {
 public:
  using complex = std::complex<T>;

  RealFftPair(std::vector<int> dims, unsigned flags) : dims_(std::move(dims)) {
    real_ = 1;
    for (int d : dims_) real_ *= static_cast<std::size_t>(d);
    bins_ = real_ / static_cast<std::size_t>(dims_.back()) * (static_cast<std::size_t>(dims_.back()) / 2 + 1);
    AlignedArray<T> r(real_);
    AlignedArray<complex> c(bins_);
    auto* cc = reinterpret_cast<typename Fftw<T>::complex*>(c.data());
    std::lock_guard lock(fftw_planner_mutex());
    forward_ = Fftw<T>::r2c(static_cast<int>(dims_.size()), dims_.data(), r.data(), cc, flags);
    inverse_ = Fftw<T>::c2r(static_cast<int>(dims_.size()), dims_.data(), cc, r.data(), flags);
    if (!forward_ || !inverse_) throw Error(ErrorCode::device, "conv2d: FFTW could not plan a transform");
  }
  ~RealFftPair() {
    std::lock_guard lock(fftw_planner_mutex());
    if (forward_) Fftw<T>::destroy(forward_);
    if (inverse_) Fftw<T>::destroy(inverse_);
  }
  RealFftPair(const RealFftPair&) = delete;
  RealFftPair& operator=(const RealFftPair&) = delete;

  std::size_t real_size() const noexcept { return real_; }
  std::size_t bins() const noexcept { return bins_; }
  /// `out` receives bins() values; `in` is left as it was (out-of-place r2c preserves it).
  void forward(T* in, complex* out) const {
    Fftw<T>::execute_r2c(forward_, in, reinterpret_cast<typename Fftw<T>::complex*>(out));
  }
  /// Unnormalised (× real_size()); destroys `in`.
  void inverse(complex* in, T* out) const {
    Fftw<T>::execute_c2r(inverse_, reinterpret_cast<typename Fftw<T>::complex*>(in), out);
  }

 private:
  std::vector<int> dims_;
  std::size_t real_ = 0, bins_ = 0;
  typename Fftw<T>::plan forward_ = nullptr, inverse_ = nullptr;
};

}  // namespace fastconv::nn
