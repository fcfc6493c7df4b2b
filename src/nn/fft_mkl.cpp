// src/nn/fft_mkl.cpp — RealFftPair on Intel MKL's DFTI (FASTCONV_FFT=mkl): one descriptor per
// transform, committed once, out of place, with interleaved complex bins (CCE storage, the
// layout FFTW writes) and the forward and backward strides of a row-major real array and its
// halved last dimension. DftiComputeForward/Backward on a committed descriptor may run on
// several threads at once; each runs on its caller's thread (MKL's sequential layer, and
// DFTI_THREAD_LIMIT 1): our OpenMP team shares the planes out.
#include <mkl.h>

#include <algorithm>
#include <string>

#include "fastconv/error.hpp"
#include "nn/fft.hpp"

namespace fastconv::nn {

namespace {

void check(MKL_LONG status, const char* what) {
  if (status != 0 && !DftiErrorClass(status, DFTI_NO_ERROR))
    throw Error(ErrorCode::device, std::string("conv2d: MKL could not ") + what + ": " + DftiErrorMessage(status));
}

}  // namespace

/// "Intel MKL 2026.2 (<the code path it runs>)": the product version from MKL's version string
/// ("Intel(R) oneAPI Math Kernel Library Version 2026.2-Product Build …").
std::string fft_library() {
  char text[256] = {};
  mkl_get_version_string(text, sizeof text - 1);
  std::string version(text);
  if (const auto at = version.find("Version "); at != std::string::npos) {
    version.erase(0, at + 8);
    version.erase(std::min(version.find_first_of("- "), version.size()));
  }
  MKLVersion v;
  mkl_get_version(&v);
  return "Intel MKL " + version + " (" + v.Processor + ")";
}

template <class T>
struct RealFftPair<T>::Plans {
  DFTI_DESCRIPTOR_HANDLE descriptor = nullptr;
};

template <class T>
RealFftPair<T>::RealFftPair(const std::vector<std::size_t>& dims, FftPlanning /*planning*/)
    : plans_(std::make_unique<Plans>()) {
  dimensions(dims);
  const auto last = static_cast<std::size_t>(dims_.back());
  // Strides (offset first, then one per dimension, innermost 1) of the real array and of the
  // complex one, whose last dimension holds last/2 + 1 bins.
  const std::size_t rank = dims_.size();
  std::vector<MKL_LONG> lengths(dims_.begin(), dims_.end()), real_strides(rank + 1), complex_strides(rank + 1);
  real_strides[0] = complex_strides[0] = 0;
  MKL_LONG real_step = 1, complex_step = 1;
  for (std::size_t d = rank; d-- > 0;) {
    real_strides[d + 1] = real_step;
    complex_strides[d + 1] = complex_step;
    real_step *= lengths[d];
    complex_step *= d + 1 == rank ? static_cast<MKL_LONG>(last / 2 + 1) : lengths[d];
  }
  const auto precision = sizeof(T) == sizeof(float) ? DFTI_SINGLE : DFTI_DOUBLE;
  DFTI_DESCRIPTOR_HANDLE& h = plans_->descriptor;
  MKL_LONG status = rank == 1 ? DftiCreateDescriptor(&h, precision, DFTI_REAL, 1, lengths[0])
                              : DftiCreateDescriptor(&h, precision, DFTI_REAL, static_cast<MKL_LONG>(rank), lengths.data());
  check(status, "create a transform descriptor");
  try {
    check(DftiSetValue(h, DFTI_PLACEMENT, DFTI_NOT_INPLACE), "set out-of-place placement");
    check(DftiSetValue(h, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX), "set interleaved complex storage");
    check(DftiSetValue(h, DFTI_FWD_STRIDES, real_strides.data()), "set the real array's strides");
    check(DftiSetValue(h, DFTI_BWD_STRIDES, complex_strides.data()), "set the spectrum's strides");
    check(DftiSetValue(h, DFTI_THREAD_LIMIT, 1), "limit a transform to its caller's thread");
    check(DftiCommitDescriptor(h), "commit a transform descriptor");
  } catch (...) {
    DftiFreeDescriptor(&h);
    throw;
  }
}

template <class T>
RealFftPair<T>::~RealFftPair() {
  DftiFreeDescriptor(&plans_->descriptor);
}

template <class T>
void RealFftPair<T>::forward(T* in, complex* out) const {
  check(DftiComputeForward(plans_->descriptor, in, out), "compute a forward transform");
}

template <class T>
void RealFftPair<T>::inverse(complex* in, T* out) const {
  check(DftiComputeBackward(plans_->descriptor, in, out), "compute an inverse transform");
}

template class RealFftPair<float>;
template class RealFftPair<double>;

}  // namespace fastconv::nn
