// src/nn/spectral_isa.hpp — the channel sum of the FFT algorithms (spectral_isa.cpp), compiled
// once per instruction set (src/CMakeLists.txt); spectral.hpp picks one at run time.
#pragma once

#include <cstddef>

namespace fastconv::nn {

/// Bins per block of the channel sum: each thread works on the bins of one block at a time.
inline constexpr std::size_t kBinBlock = 32;

/// One block of bins of Y[n,k] = Σ_c X[n,c]·U[k,c] for every image n and filter k. Offsets
/// are in real values: X[n,c]'s block at x + n·x_image + c·x_channel and Y[n,k]'s at
/// y + n·y_image + k·y_filter, both (re, im) interleaved as FFTW reads and writes them, and
/// U[k,c]'s at u + k·u_filter + c·u_channel, packed by channel_sum_pack.
template <class T>
struct ChannelSumBlock {
  const T* x;
  std::size_t x_image, x_channel;
  const T* u;
  std::size_t u_filter, u_channel;
  T* y;
  std::size_t y_image, y_filter;
  std::size_t images, filters, channels;
};

// Per instruction set: channel_sum_block computes one ChannelSumBlock; channel_sum_pack packs
// `values` (a multiple of 2·kBinBlock) interleaved values of a kernel spectrum the way the
// channel sum reads U (real and imaginary parts apart, in the order its loads of X produce
// them); spectral_product sets y[f] = x[f]·u[f], or adds it to y[f] when `accumulate`, for
// f < bins, on spectra stored as FFTW writes them, (re, im) interleaved (the channel sum's
// fused path for one channel or one filter, spectral.hpp); largest_magnitude is the largest
// |v| of n values, infinite or NaN if one is (scaling.hpp).
#define FASTCONV_NN_SPECTRAL_DECLARE(isa)                                                               \
  namespace isa_##isa {                                                                                 \
  float largest_magnitude(const float* values, std::size_t n);                                         \
  double largest_magnitude(const double* values, std::size_t n);                                       \
  void channel_sum_block(const ChannelSumBlock<float>& b);                                             \
  void channel_sum_block(const ChannelSumBlock<double>& b);                                            \
  void channel_sum_pack(const float* interleaved, float* packed, std::size_t values);                  \
  void channel_sum_pack(const double* interleaved, double* packed, std::size_t values);                \
  void spectral_product(const float* x, const float* u, float* y, std::size_t bins, bool accumulate);  \
  void spectral_product(const double* x, const double* u, double* y, std::size_t bins, bool accumulate); \
  }
FASTCONV_NN_SPECTRAL_DECLARE(base)
#if defined(__x86_64__)
FASTCONV_NN_SPECTRAL_DECLARE(avx2)
FASTCONV_NN_SPECTRAL_DECLARE(avx512)
#endif
#undef FASTCONV_NN_SPECTRAL_DECLARE

}  // namespace fastconv::nn
