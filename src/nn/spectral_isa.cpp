// src/nn/spectral_isa.cpp — the channel sum Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] of fft2d and
// polyhankel, one block of bins at a time, in register tiles of 2 images × 2 filters × one
// vector of bins. With the real and imaginary parts of a block stored apart, a complex
// multiply-add is four fused multiply-adds on whole vectors and needs no shuffles: per channel,
// 4 loads of X and 4 of U feed 16 of them.
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

}  // namespace

void channel_sum_block(const ChannelSumBlock<float>& b) { block_of(b); }
void channel_sum_block(const ChannelSumBlock<double>& b) { block_of(b); }

}  // namespace fastconv::nn::FASTCONV_NN_ISA
