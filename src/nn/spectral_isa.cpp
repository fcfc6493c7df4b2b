// src/nn/spectral_isa.cpp — the channel sum Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] of fft2d and
// polyhankel, one block of bins at a time, in register tiles of 2 images × 2 filters × one
// vector of bins. X and Y stay (re, im) interleaved, as FFTW writes and reads them, so the
// spectra need no copy between the transforms and the sum: each pair of vectors of X is split
// into its real and imaginary parts by two in-lane shuffles (split), which leave the bins in
// a permuted order, and Y is interleaved back by the inverse shuffles (join). U is packed once,
// in the plan, with the same split, so that a complex multiply-add is four fused multiply-adds
// on whole vectors: per channel, 4 loads and 4 shuffles of X and 4 loads of U feed 16 of them.
// X and Y have a row per plane, too many streams for the hardware prefetchers, so the tiles
// prefetch each row's line of the next block as they pass it.
//
// spectral_product is the channel sum's fused path (one channel or one filter, spectral.hpp):
// a product of interleaved spectra, taken while both are in cache.
//
// Compiled once per instruction set like direct_isa.cpp (see there, and nn/vec.hpp).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "nn/spectral_isa.hpp"
#include "nn/vec.hpp"

namespace fastconv::nn::FASTCONV_NN_ISA {

namespace {

constexpr std::size_t B = kBinBlock;

/// The real and imaginary parts of the kLanes bins interleaved in (a, b), in the same
/// permuted order in both (the order of shufps/unpcklpd within each 128-bit lane).
template <class T>
[[gnu::always_inline]] inline void split(const Vec<T>& a, const Vec<T>& b, Vec<T>& re, Vec<T>& im) {
  if constexpr (kLanes<T> == 16) {
    re = __builtin_shufflevector(a, b, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30);
    im = __builtin_shufflevector(a, b, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31);
  } else if constexpr (kLanes<T> == 8) {
    re = __builtin_shufflevector(a, b, 0, 2, 8, 10, 4, 6, 12, 14);
    im = __builtin_shufflevector(a, b, 1, 3, 9, 11, 5, 7, 13, 15);
  } else {
    re = __builtin_shufflevector(a, b, 0, 4, 2, 6);
    im = __builtin_shufflevector(a, b, 1, 5, 3, 7);
  }
}

/// The inverse of split: (a, b) interleaved from re and im (unpcklps/unpckhps, unpcklpd/unpckhpd).
template <class T>
[[gnu::always_inline]] inline void join(const Vec<T>& re, const Vec<T>& im, Vec<T>& a, Vec<T>& b) {
  if constexpr (kLanes<T> == 16) {
    a = __builtin_shufflevector(re, im, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    b = __builtin_shufflevector(re, im, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
  } else if constexpr (kLanes<T> == 8) {
    a = __builtin_shufflevector(re, im, 0, 8, 1, 9, 4, 12, 5, 13);
    b = __builtin_shufflevector(re, im, 2, 10, 3, 11, 6, 14, 7, 15);
  } else {
    a = __builtin_shufflevector(re, im, 0, 4, 2, 6);
    b = __builtin_shufflevector(re, im, 1, 5, 3, 7);
  }
}

/// The lines of the next block's 2·kLanes values at the position of p (one line for 32-byte
/// vectors, two for 64-byte ones).
template <class T>
[[gnu::always_inline]] inline void prefetch_next(const T* p) {
  constexpr std::size_t line = 64 / sizeof(T);
  for (std::size_t i = 0; i < 2 * kLanes<T>; i += line) __builtin_prefetch(p + 2 * B + i);
}

/// Images [n0, n0 + NB) × filters [k0, k0 + KB), every vector of the block's bins.
template <class T, int NB, int KB>
[[gnu::always_inline]] inline void tile(const ChannelSumBlock<T>& a, std::size_t n0, std::size_t k0) {
  constexpr std::size_t L = kLanes<T>;
  for (std::size_t j = 0; j < 2 * B; j += 2 * L) {  // L bins: 2L interleaved values
    Vec<T> re[NB][KB] = {}, im[NB][KB] = {};
    const T* x = a.x + n0 * a.x_image + j;
    const T* u = a.u + k0 * a.u_filter + j;
    for (std::size_t c = 0; c < a.channels; ++c, x += a.x_channel, u += a.u_channel) {
      Vec<T> xr[NB], xi[NB];
#pragma GCC unroll 2
      for (int n = 0; n < NB; ++n) {
        split<T>(load(x + n * a.x_image), load(x + n * a.x_image + L), xr[n], xi[n]);
        if (k0 == 0) prefetch_next<T>(x + n * a.x_image);
      }
#pragma GCC unroll 2
      for (int k = 0; k < KB; ++k) {
        const Vec<T> ur = load(u + k * a.u_filter), ui = load(u + k * a.u_filter + L);
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
        Vec<T> first, second;
        join<T>(re[n][k], im[n][k], first, second);
        store(y, first);
        store(y + L, second);
        prefetch_next<T>(y);
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

/// U as tile() reads it: every 2·kLanes interleaved values split into kLanes real parts, then
/// kLanes imaginary parts.
template <class T>
void pack(const T* interleaved, T* packed, std::size_t values) {
  constexpr std::size_t L = kLanes<T>;
  for (std::size_t i = 0; i < values; i += 2 * L) {
    Vec<T> re, im;
    split<T>(load(interleaved + i), load(interleaved + i + L), re, im);
    store(packed + i, re);
    store(packed + i + L, im);
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
    if constexpr (L == 16) {
      xr = __builtin_shufflevector(xv, xv, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14);
      xi = __builtin_shufflevector(xv, xv, 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15);
      swapped = __builtin_shufflevector(uv, uv, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    } else if constexpr (L == 8) {
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

/// On the bits: the magnitudes of IEEE values order as their bits without the sign do, and an
/// unsigned maximum vectorises (with AVX2's and AVX-512's vpmaxu) where a floating-point one,
/// which must keep NaN's rules, does not.
template <class T>
T largest(const T* values, std::size_t n) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr Bits magnitude = ~Bits(0) >> 1;
  Bits best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, values + i, sizeof bits);
    bits &= magnitude;
    best = bits > best ? bits : best;
  }
  T result;
  std::memcpy(&result, &best, sizeof result);
  return result;
}

}  // namespace

float largest_magnitude(const float* values, std::size_t n) { return largest(values, n); }
double largest_magnitude(const double* values, std::size_t n) { return largest(values, n); }
void channel_sum_block(const ChannelSumBlock<float>& b) { block_of(b); }
void channel_sum_block(const ChannelSumBlock<double>& b) { block_of(b); }
void channel_sum_pack(const float* interleaved, float* packed, std::size_t values) {
  pack(interleaved, packed, values);
}
void channel_sum_pack(const double* interleaved, double* packed, std::size_t values) {
  pack(interleaved, packed, values);
}
void spectral_product(const float* x, const float* u, float* y, std::size_t bins, bool accumulate) {
  product(x, u, y, bins, accumulate);
}
void spectral_product(const double* x, const double* u, double* y, std::size_t bins, bool accumulate) {
  product(x, u, y, bins, accumulate);
}

}  // namespace fastconv::nn::FASTCONV_NN_ISA
