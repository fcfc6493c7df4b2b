// src/nn/fft_fftw.cpp — RealFftPair on FFTW 3 (FASTCONV_FFT=fftw): one r2c and one c2r plan,
// executed through the new-array interface, which is thread-safe.
#include <fftw3.h>

#include <mutex>

#include "fastconv/error.hpp"
#include "nn/fft.hpp"

namespace fastconv::nn {

namespace {

/// FFTW's planner is not thread-safe: every plan is made and destroyed under this lock.
std::mutex& planner_mutex() {
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

}  // namespace

std::string fft_library() { return fftw_version; }  // "fftw-3.3.10-sse2-avx": version and codelets

template <class T>
struct RealFftPair<T>::Plans {
  typename Fftw<T>::plan forward = nullptr, inverse = nullptr;
};

/// The plans are made on scratch arrays aligned like every row they will be executed on.
template <class T>
RealFftPair<T>::RealFftPair(const std::vector<std::size_t>& dims, FftPlanning planning)
    : plans_(std::make_unique<Plans>()) {
  dimensions(dims);
  AlignedArray<T> r(real_);
  AlignedArray<complex> c(bins_);
  auto* cc = reinterpret_cast<typename Fftw<T>::complex*>(c.data());
  const unsigned flags = planning == FftPlanning::measured ? FFTW_MEASURE : FFTW_ESTIMATE;
  std::lock_guard lock(planner_mutex());
  plans_->forward = Fftw<T>::r2c(static_cast<int>(dims_.size()), dims_.data(), r.data(), cc, flags);
  plans_->inverse = Fftw<T>::c2r(static_cast<int>(dims_.size()), dims_.data(), cc, r.data(), flags);
  if (!plans_->forward || !plans_->inverse) {
    if (plans_->forward) Fftw<T>::destroy(plans_->forward);
    if (plans_->inverse) Fftw<T>::destroy(plans_->inverse);
    throw Error(ErrorCode::device, "conv2d: FFTW could not plan a transform");
  }
}

template <class T>
RealFftPair<T>::~RealFftPair() {
  std::lock_guard lock(planner_mutex());
  Fftw<T>::destroy(plans_->forward);
  Fftw<T>::destroy(plans_->inverse);
}

template <class T>
void RealFftPair<T>::forward(T* in, complex* out) const {
  Fftw<T>::execute_r2c(plans_->forward, in, reinterpret_cast<typename Fftw<T>::complex*>(out));
}

template <class T>
void RealFftPair<T>::inverse(complex* in, T* out) const {
  Fftw<T>::execute_c2r(plans_->inverse, reinterpret_cast<typename Fftw<T>::complex*>(in), out);
}

template class RealFftPair<float>;
template class RealFftPair<double>;

}  // namespace fastconv::nn
