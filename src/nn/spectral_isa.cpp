// src/nn/spectral_isa.cpp — the channel sum Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] of fft2d and
// polyhankel, one block of bins at a time, in register tiles of 2 images × 2 filters × one
// vector of bins. With the real and imaginary parts of a block stored apart, a complex
// multiply-add is four fused multiply-adds on whole vectors and needs no shuffles: per channel,
// 4 loads of X and 4 of U feed 16 of them.
//
// spectral_product is the channel sum's fused path (one channel or one filter, spectral.hpp):
// a product of interleaved spectra, taken while both are in cache.
//
// Compiled once per instruction set like direct_isa.cpp (see there, and nn/vec.hpp).
#include "nn/spectral_isa.hpp"
#include "nn/vec.hpp"

namespace fastconv::nn::FASTCONV_NN_ISA {

namespace {

constexpr std::size_t B = kBinBlock;

/// Images [n0, n0 + NB) × filters [k0, k0 + KB), every vector of the block's bins.
template <class T, int NB, int KB>
[[gnu::always_inline]] inline void tile(const ChannelSumBlock<T>& a, std::size_t n0, std::size_t k0) {
  constexpr std::size_t L = kLanes<T>;
  for (std::size_t j = 0; j < B; j += L) {
    Vec<T> re[NB][KB] = {}, im[NB][KB] = {};
    const T* x = a.x + n0 * a.x_image + j;
    const T* u = a.u + k0 * a.u_filter + j;
    for (std::size_t c = 0; c < a.channels; ++c, x += a.x_channel, u += 2 * B) {
      Vec<T> xr[NB], xi[NB];
#pragma GCC unroll 2
      for (int n = 0; n < NB; ++n) {
        xr[n] = load(x + n * a.x_image);
        xi[n] = load(x + n * a.x_image + B);
      }
#pragma GCC unroll 2
      for (int k = 0; k < KB; ++k) {
        const Vec<T> ur = load(u + k * a.u_filter), ui = load(u + k * a.u_filter + B);
#pragma GCC unroll 2
        for (int n = 0; n < NB; ++n) {
          re[n][k] += xr[n] * ur;
          re[n][k] -= xi[n] * ui;
          im[n][k] += xr[n] * ui;
          im[n][k] += xi[n] * ur;
        }
      }
    }
#pragma GCC unroll 2
    for (int n = 0; n < NB; ++n)
#pragma GCC unroll 2
      for (int k = 0; k < KB; ++k) {
        T* y = a.y + (n0 + n) * a.y_image + (k0 + k) * a.y_filter + j;
        store(y, re[n][k]);
        store(y + B, im[n][k]);
      }
  }
}

template <class T>
void block_of(const ChannelSumBlock<T>& a) {
  for (std::size_t n0 = 0; n0 < a.images; n0 += 2)
    for (std::size_t k0 = 0; k0 < a.filters; k0 += 2) {
      const bool two_images = n0 + 1 < a.images, two_filters = k0 + 1 < a.filters;
      if (two_images && two_filters) tile<T, 2, 2>(a, n0, k0);
      else if (two_images) tile<T, 2, 1>(a, n0, k0);
      else if (two_filters) tile<T, 1, 2>(a, n0, k0);
      else tile<T, 1, 1>(a, n0, k0);
    }
}

/// Interleaved complex products, one vector of kLanes/2 bins at a time: with xr and xi the
/// real and imaginary parts of x in both lanes of each bin and u' = (−ui, ur), x·u = xr·u + xi·u'.
template <class T>
void product(const T* x, const T* u, T* y, std::size_t bins, bool accumulate) {
  constexpr std::size_t L = kLanes<T>;
  Vec<T> sign;
  for (std::size_t i = 0; i < L; ++i) sign[i] = i % 2 ? T(1) : T(-1);
  const std::size_t values = 2 * bins, whole = values / L * L;
  std::size_t i = 0;
  for (; i < whole; i += L) {
    const Vec<T> xv = load(x + i), uv = load(u + i);
    Vec<T> xr, xi, swapped;
    if constexpr (L == 8) {
      xr = __builtin_shufflevector(xv, xv, 0, 0, 2, 2, 4, 4, 6, 6);
      xi = __builtin_shufflevector(xv, xv, 1, 1, 3, 3, 5, 5, 7, 7);
      swapped = __builtin_shufflevector(uv, uv, 1, 0, 3, 2, 5, 4, 7, 6);
    } else {
      xr = __builtin_shufflevector(xv, xv, 0, 0, 2, 2);
      xi = __builtin_shufflevector(xv, xv, 1, 1, 3, 3);
      swapped = __builtin_shufflevector(uv, uv, 1, 0, 3, 2);
    }
    Vec<T> p = xr * uv + xi * (swapped * sign);
    if (accumulate) p += load(y + i);
    store(y + i, p);
  }
  for (; i < values; i += 2) {
    const T re = x[i] * u[i] - x[i + 1] * u[i + 1], im = x[i] * u[i + 1] + x[i + 1] * u[i];
    y[i] = accumulate ? y[i] + re : re;
    y[i + 1] = accumulate ? y[i + 1] + im : im;
  }
}

}  // namespace

void channel_sum_block(const ChannelSumBlock<float>& b) { block_of(b); }
void channel_sum_block(const ChannelSumBlock<double>& b) { block_of(b); }
void spectral_product(const float* x, const float* u, float* y, std::size_t bins, bool accumulate) {
  product(x, u, y, bins, accumulate);
}
void spectral_product(const double* x, const double* u, double* y, std::size_t bins, bool accumulate) {
  product(x, u, y, bins, accumulate);
}

}  // namespace fastconv::nn::FASTCONV_NN_ISA
