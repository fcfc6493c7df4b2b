// src/nn/winograd.cpp — Winograd's minimal filtering F(4×4, 3×3) (Lavin & Gray 2016): each
// 4×4 output tile is Aᵀ·[Σ_c (G·w·Gᵀ) ⊙ (Bᵀ·d·B)]·A over a 6×6 input tile d, 36 multiplies
// instead of 144. The channel sum at each of the 36 tile elements ξ is a GEMM
// M[ξ](K × tiles) = U[ξ](K × C) · V[ξ](C × tiles), which is what carries many channels.
// Tiles are taken in chunks so that V and M of a chunk stay in cache.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "nn/blas.hpp"
#include "nn/kernels.hpp"

namespace fastconv::nn {

namespace {

constexpr std::size_t kOut = 4, kTile = 6, kElements = kTile * kTile;

/// o = Bᵀ·d for one column of 6 values (stride apart).
template <class T>
inline void input_transform_1d(const T* d, std::size_t ds, T* o, std::size_t os) {
  const T d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
  o[0] = 4 * d0 - 5 * d2 + d4;
  o[os] = -4 * d1 - 4 * d2 + d3 + d4;
  o[2 * os] = 4 * d1 - 4 * d2 - d3 + d4;
  o[3 * os] = -2 * d1 - d2 + 2 * d3 + d4;
  o[4 * os] = 2 * d1 - d2 - 2 * d3 + d4;
  o[5 * os] = 4 * d1 - 5 * d3 + d5;
}

/// o = Aᵀ·m for one column of 6 values: 4 outputs.
template <class T>
inline void output_transform_1d(const T* m, std::size_t ms, T* o, std::size_t os) {
  const T m0 = m[0], m1 = m[ms], m2 = m[2 * ms], m3 = m[3 * ms], m4 = m[4 * ms], m5 = m[5 * ms];
  o[0] = m0 + m1 + m2 + m3 + m4;
  o[os] = m1 - m2 + 2 * (m3 - m4);
  o[2 * os] = m1 + m2 + 4 * (m3 + m4);
  o[3 * os] = m1 - m2 + 8 * (m3 - m4) + m5;
}

/// o = G·g for one column of 3 values: 6 outputs (in double: the filters are transformed once).
inline void filter_transform_1d(const double* g, std::size_t gs, double* o, std::size_t os) {
  const double g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  o[0] = g0 / 4;
  o[os] = -(g0 + g1 + g2) / 6;
  o[2 * os] = -(g0 - g1 + g2) / 6;
  o[3 * os] = g0 / 24 + g1 / 12 + g2 / 6;
  o[4 * os] = g0 / 24 - g1 / 12 + g2 / 6;
  o[5 * os] = g2;
}

template <class T>
class Winograd final : public Conv2dKernel<T> {
 public:
  explicit Winograd(const KernelArgs<T>& a) : shape_(a.shape), bias_(a.bias.begin(), a.bias.end()), threads_(a.threads) {
    const Conv2dShape& s = shape_;
    tiles_h_ = (s.out_height() + kOut - 1) / kOut;
    tiles_w_ = (s.out_width() + kOut - 1) / kOut;
    const std::size_t tiles = s.batch * tiles_h_ * tiles_w_;
    const std::size_t per_tile = kElements * std::max(s.channels, s.filters) * sizeof(T);
    chunk_ = std::clamp<std::size_t>((std::size_t{2} << 20) / per_tile, 16, tiles);
    v_.resize(kElements * s.channels * chunk_);
    m_.resize(kElements * s.filters * chunk_);
    transform_filters(a.weights);
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t tiles = s.batch * tiles_h_ * tiles_w_, C = s.channels, K = s.filters;
    for (std::size_t first = 0; first < tiles; first += chunk_) {
      const std::size_t count = std::min(chunk_, tiles - first);
      transform_inputs(input, first, count);
      for (std::size_t e = 0; e < kElements; ++e)
        gemm(K, count, C, T(1), u_.data() + e * K * C, C, v_.data() + e * C * chunk_, chunk_, T(0),
             m_.data() + e * K * chunk_, chunk_);
      transform_outputs(output, first, count);
    }
  }

 private:
  /// U[ξ][k][c] = (G·w[k,c]·Gᵀ)[ξ].
  void transform_filters(std::span<const T> weights) {
    const std::size_t K = shape_.filters, C = shape_.channels;
    u_.resize(kElements * K * C);
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t c = 0; c < C; ++c) {
        double g[9], half[6 * 3], full[kElements];
        for (int i = 0; i < 9; ++i) g[i] = static_cast<double>(weights[(k * C + c) * 9 + static_cast<std::size_t>(i)]);
        for (std::size_t col = 0; col < 3; ++col) filter_transform_1d(g + col, 3, half + col, 3);          // G·g: 6×3
        for (std::size_t row = 0; row < kTile; ++row) filter_transform_1d(half + 3 * row, 1, full + kTile * row, 1);  // ·Gᵀ
        for (std::size_t e = 0; e < kElements; ++e) u_[(e * K + k) * C + c] = static_cast<T>(full[e]);
      }
  }

  /// Where tile t (numbered over images, then tile rows, then tile columns) starts.
  void tile_origin(std::size_t t, std::size_t& n, std::size_t& ti, std::size_t& tj) const {
    tj = t % tiles_w_;
    ti = t / tiles_w_ % tiles_h_;
    n = t / (tiles_w_ * tiles_h_);
  }

  /// V[ξ][c][t − first] = (Bᵀ·d·B)[ξ], d the 6×6 input tile with the padding as zeros.
  void transform_inputs(const T* input, std::size_t first, std::size_t count) const {
    const Conv2dShape& s = shape_;
    const std::size_t C = s.channels, H = s.height, W = s.width;
    const long long jobs = static_cast<long long>(C * count);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && jobs > 16)
    for (long long job = 0; job < jobs; ++job) {
      const std::size_t c = static_cast<std::size_t>(job) / count, local = static_cast<std::size_t>(job) % count;
      std::size_t n, ti, tj;
      tile_origin(first + local, n, ti, tj);
      const T* plane = input + (n * C + c) * H * W;
      T d[kElements], half[kElements], v[kElements];
      for (std::size_t a = 0; a < kTile; ++a) {
        // Padded coordinates: image row y − top, column z − left; outside the image is zero.
        const std::size_t y = ti * kOut + a;
        const bool row_inside = y >= s.padding.top && y - s.padding.top < H;
        for (std::size_t b = 0; b < kTile; ++b) {
          const std::size_t z = tj * kOut + b;
          const bool inside = row_inside && z >= s.padding.left && z - s.padding.left < W;
          d[a * kTile + b] = inside ? plane[(y - s.padding.top) * W + z - s.padding.left] : T(0);
        }
      }
      for (std::size_t col = 0; col < kTile; ++col) input_transform_1d(d + col, kTile, half + col, kTile);
      for (std::size_t row = 0; row < kTile; ++row) input_transform_1d(half + kTile * row, 1, v + kTile * row, 1);
      for (std::size_t e = 0; e < kElements; ++e) v_[(e * C + c) * chunk_ + local] = v[e];
    }
  }

  /// out tile = Aᵀ·M·A + bias, clipped to the output's edge.
  void transform_outputs(T* output, std::size_t first, std::size_t count) const {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, Oh = s.out_height(), Ow = s.out_width();
    const std::span<const T> bias(bias_);
    const long long jobs = static_cast<long long>(K * count);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && jobs > 16)
    for (long long job = 0; job < jobs; ++job) {
      const std::size_t k = static_cast<std::size_t>(job) / count, local = static_cast<std::size_t>(job) % count;
      std::size_t n, ti, tj;
      tile_origin(first + local, n, ti, tj);
      T m[kElements], half[kOut * kTile], y[kOut * kOut];
      for (std::size_t e = 0; e < kElements; ++e) m[e] = m_[(e * K + k) * chunk_ + local];
      for (std::size_t col = 0; col < kTile; ++col) output_transform_1d(m + col, kTile, half + col, kTile);  // 4×6
      for (std::size_t row = 0; row < kOut; ++row) output_transform_1d(half + kTile * row, 1, y + kOut * row, 1);
      const T b = bias_of(bias, k);
      T* plane = output + (n * K + k) * Oh * Ow;
      const std::size_t rows = std::min(kOut, Oh - ti * kOut), cols = std::min(kOut, Ow - tj * kOut);
      for (std::size_t a = 0; a < rows; ++a)
        for (std::size_t c = 0; c < cols; ++c) plane[(ti * kOut + a) * Ow + tj * kOut + c] = y[a * kOut + c] + b;
    }
  }

  Conv2dShape shape_;
  std::vector<T> bias_, u_;
  int threads_;
  std::size_t tiles_h_ = 0, tiles_w_ = 0, chunk_ = 0;
  mutable std::vector<T> v_, m_;
};

}  // namespace

template <class T>
KernelPtr<T> make_winograd(const KernelArgs<T>& args) {
  if (args.shape.kernel_height != 3 || args.shape.kernel_width != 3)
    throw Error(ErrorCode::unsupported, "conv2d: winograd F(4x4, 3x3) computes 3x3 kernels only");
  return std::make_unique<Winograd<T>>(args);
}

template KernelPtr<float> make_winograd(const KernelArgs<float>&);
template KernelPtr<double> make_winograd(const KernelArgs<double>&);

}  // namespace fastconv::nn
