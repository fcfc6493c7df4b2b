// src/cuda/conv2d_helpers.hpp — the per-thread bodies of the cuda backend's polyhankel conv2d
// (src/cuda/conv2d.cu) as small __host__ __device__ functions: where the image and kernel
// polynomials put each value, the channel sum of one frequency bin, and where an output is
// read. tests/cuda_helpers_test.cpp runs them on the CPU, with a plain DFT in place of cuFFT,
// against the direct convolution, so that the kernels' arithmetic is tested in CI without a GPU.
//
// The polynomials are those of src/nn/polyhankel.cpp: with the row stride S, image value
// x[r,c] sits at degree S·r + c, kernel tap w[u,v] at degree c0 − S·u − v (c0 = S·(Kh−1) + Kw−1),
// all taken modulo the cyclic length L, and output (i, j) is the coefficient of degree
// S·(i − top) + (j − left) + c0.
#pragma once

#include <cstdint>

#include "cuda/device_helpers.hpp"

namespace fastconv::cuda {

/// One polyhankel convolution's sizes, as the kernels read them.
struct PolyGeometry {
  std::uint64_t height = 0, width = 0;                ///< H, W of an input plane
  std::uint64_t kernel_height = 0, kernel_width = 0;  ///< Kh, Kw
  std::uint64_t out_height = 0, out_width = 0;        ///< Oh, Ow
  std::uint64_t top = 0, left = 0;                    ///< padding before the rows and columns
  std::uint64_t stride = 0;                           ///< S
  std::uint64_t length = 0;                           ///< L, the cyclic length (FFT size)
  FC_HD std::uint64_t c0() const { return stride * (kernel_height - 1) + kernel_width - 1; }
  FC_HD std::uint64_t bins() const { return length / 2 + 1; }
};

/// Coefficient q (< L) of the polynomial of one input plane: x[r,c] at q = S·r + c, else 0.
template <class T>
FC_HD T poly_input_at(const PolyGeometry& g, const T* plane, std::uint64_t q) {
  const std::uint64_t r = q / g.stride, c = q - r * g.stride;
  return r < g.height && c < g.width ? plane[r * g.width + c] : T(0);
}

/// Coefficient q (< L) of the polynomial of one K·C kernel plane `w` (Kh·Kw taps), times
/// `scale`: the sum of the taps w[u,v] whose degree c0 − S·u − v is q modulo L (several when
/// the kernel is longer than L, as on the CPU, where they are added in place).
template <class T>
FC_HD T poly_kernel_at(const PolyGeometry& g, const T* w, T scale, std::uint64_t q) {
  const std::uint64_t L = g.length, c0 = g.c0();
  T sum = T(0);
  for (std::uint64_t u = 0; u < g.kernel_height; ++u) {
    // v ≡ c0 − S·u − q (mod L), from the smallest non-negative residue up.
    const std::uint64_t shift = (g.stride * u + q) % L;
    for (std::uint64_t v = (c0 % L + L - shift) % L; v < g.kernel_width; v += L) sum += w[u * g.kernel_width + v];
  }
  return sum * scale;
}

/// The degree (< L) that holds output (i, j): S·(i − top) + (j − left) + c0 modulo L.
FC_HD std::uint64_t poly_output_degree(const PolyGeometry& g, std::uint64_t i, std::uint64_t j) {
  const std::uint64_t L = g.length;
  const std::uint64_t ahead = (g.stride * i + j + g.c0()) % L, behind = (g.stride * g.top + g.left) % L;
  return (ahead + L - behind) % L;
}

/// Images and filters one thread of the channel sum accumulates: its bin's NT × KT outputs.
constexpr int kSumImages = 2, kSumFilters = 8;

/// One thread of the channel sum: Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] for bin f, images
/// n0 … n0+NT−1 and filters k0 … k0+KT−1 (those below N and K). Complex numbers are
/// interleaved (re, im); X row n·C + c, U row k·C + c and Y row n·K + k are `bins` apart.
template <class T, int NT = kSumImages, int KT = kSumFilters>
FC_HD void channel_sum_bin(const T* x, const T* u, T* y, std::uint64_t f, std::uint64_t n0, std::uint64_t k0,
                           std::uint64_t images, std::uint64_t channels, std::uint64_t filters, std::uint64_t bins) {
  T re[NT][KT], im[NT][KT];
  FC_UNROLL for (int a = 0; a < NT; ++a) {
    FC_UNROLL for (int b = 0; b < KT; ++b) re[a][b] = im[a][b] = T(0);
  }
  for (std::uint64_t c = 0; c < channels; ++c) {
    T xr[NT], xi[NT], ur[KT], ui[KT];
    FC_UNROLL for (int a = 0; a < NT; ++a) {
      const std::uint64_t n = n0 + a;
      const T* p = x + 2 * ((n < images ? n * channels + c : 0) * bins + f);
      xr[a] = n < images ? p[0] : T(0);
      xi[a] = n < images ? p[1] : T(0);
    }
    FC_UNROLL for (int b = 0; b < KT; ++b) {
      const std::uint64_t k = k0 + b;
      const T* p = u + 2 * ((k < filters ? k * channels + c : 0) * bins + f);
      ur[b] = k < filters ? p[0] : T(0);
      ui[b] = k < filters ? p[1] : T(0);
    }
    FC_UNROLL for (int a = 0; a < NT; ++a) {
      FC_UNROLL for (int b = 0; b < KT; ++b) {
        re[a][b] += xr[a] * ur[b] - xi[a] * ui[b];
        im[a][b] += xr[a] * ui[b] + xi[a] * ur[b];
      }
    }
  }
  FC_UNROLL for (int a = 0; a < NT; ++a) {
    FC_UNROLL for (int b = 0; b < KT; ++b) {
      const std::uint64_t n = n0 + a, k = k0 + b;
      if (n < images && k < filters) {
        T* p = y + 2 * ((n * filters + k) * bins + f);
        p[0] = re[a][b];
        p[1] = im[a][b];
      }
    }
  }
}

}  // namespace fastconv::cuda
