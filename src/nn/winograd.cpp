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

/// o = Bᵀ·d for six values d0..d5 (a tile's column), writing 6 outputs `os` apart.
template <class T>
inline void input_transform_1d_split(T d0, T d1, T d2, T d3, T d4, T d5, T* o, std::size_t os) {
  o[0] = 4 * d0 - 5 * d2 + d4;
  o[os] = -4 * d1 - 4 * d2 + d3 + d4;
  o[2 * os] = 4 * d1 - 4 * d2 - d3 + d4;
  o[3 * os] = -2 * d1 - d2 + 2 * d3 + d4;
  o[4 * os] = 2 * d1 - d2 - 2 * d3 + d4;
  o[5 * os] = 4 * d1 - 5 * d3 + d5;
}

/// The same for one column of 6 values `ds` apart.
template <class T>
inline void input_transform_1d(const T* d, std::size_t ds, T* o, std::size_t os) {
  input_transform_1d_split(d[0], d[ds], d[2 * ds], d[3 * ds], d[4 * ds], d[5 * ds], o, os);
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
    // Chunks of whole tile rows, so that V and M of a chunk stay near 2 MB.
    const std::size_t per_row = kElements * std::max(s.channels, s.filters) * tiles_w_ * sizeof(T);
    chunk_rows_ = std::clamp<std::size_t>((std::size_t{2} << 20) / per_row, 1, s.batch * tiles_h_);
    chunk_ = chunk_rows_ * tiles_w_;
    v_.resize(kElements * s.channels * chunk_);
    m_.resize(kElements * s.filters * chunk_);
    transform_filters(a.weights);
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t tile_rows = s.batch * tiles_h_, C = s.channels, K = s.filters;
    for (std::size_t first = 0; first < tile_rows; first += chunk_rows_) {
      const std::size_t rows = std::min(chunk_rows_, tile_rows - first), count = rows * tiles_w_;
      transform_inputs(input, first, rows);
      // The 36 products are independent: one per thread at a time (OpenBLAS's OpenMP build runs
      // single-threaded inside the region).
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (threads_ > 1)
      for (std::size_t e = 0; e < kElements; ++e)
        gemm(K, count, C, T(1), u_.data() + e * K * C, C, v_.data() + e * C * chunk_, chunk_, T(0),
             m_.data() + e * K * chunk_, chunk_);
      transform_outputs(output, first, rows);
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

  /// V[ξ][c][tiles of one tile row] = (Bᵀ·d·B)[ξ] for every tile of tile row `row` (numbered
  /// over images, then tile rows) of channel c, d the 6×6 input tiles with the padding as
  /// zeros. Vectorised along the row: Bᵀ down the six input rows at once, then B across, with
  /// the columns split by phase (x mod 4) so that tile tj's six columns are contiguous in tj.
  void transform_tile_row(const T* input, std::size_t row, std::size_t c, T* v_row, std::size_t v_stride,
                          T* scratch) const {
    const Conv2dShape& s = shape_;
    const std::size_t H = s.height, W = s.width, n = row / tiles_h_, ti = row % tiles_h_;
    const std::size_t phase_len = tiles_w_ + 1, width = kOut * phase_len;  // 4·tw + 2 columns used
    const T* plane = input + (n * s.channels + c) * H * W;
    T* d = scratch;                     // 6 padded input rows of `width`
    T* down = scratch + kTile * width;  // Bᵀ·d: 6 rows, each split into 4 phases of phase_len
    for (std::size_t a = 0; a < kTile; ++a) {
      T* dst = d + a * width;
      std::fill(dst, dst + width, T(0));
      const std::size_t y = ti * kOut + a;
      if (y < s.padding.top || y - s.padding.top >= H) continue;
      const std::size_t first = std::min(width, s.padding.left), last = std::min(width, s.padding.left + W);
      std::copy(plane + (y - s.padding.top) * W, plane + (y - s.padding.top) * W + (last - first), dst + first);
    }
    T col[kTile];
    for (std::size_t x = 0; x < width; ++x) {
      input_transform_1d(d + x, width, col, 1);
      for (std::size_t a = 0; a < kTile; ++a) down[(a * 4 + x % 4) * phase_len + x / 4] = col[a];
    }
    for (std::size_t a = 0; a < kTile; ++a) {
      // Tile tj's columns 4tj+b are phase b%4 at index tj + b/4.
      const T* p0 = down + (a * 4 + 0) * phase_len;
      const T* p1 = down + (a * 4 + 1) * phase_len;
      const T* p2 = down + (a * 4 + 2) * phase_len;
      const T* p3 = down + (a * 4 + 3) * phase_len;
      T* o = v_row + (a * kTile) * v_stride;
      for (std::size_t tj = 0; tj < tiles_w_; ++tj)
        input_transform_1d_split(p0[tj], p1[tj], p2[tj], p3[tj], p0[tj + 1], p1[tj + 1], o + tj, v_stride);
    }
  }

  /// V for the tile rows [first_row, first_row + rows) of every channel.
  void transform_inputs(const T* input, std::size_t first_row, std::size_t rows) const {
    const std::size_t C = shape_.channels;
    const long long jobs = static_cast<long long>(C * rows);
#pragma omp parallel num_threads(threads_) if (threads_ > 1 && jobs > 1)
    {
      std::vector<T> scratch(2 * kTile * kOut * (tiles_w_ + 1));
#pragma omp for schedule(static)
      for (long long job = 0; job < jobs; ++job) {
        const std::size_t c = static_cast<std::size_t>(job) / rows, r = static_cast<std::size_t>(job) % rows;
        transform_tile_row(input, first_row + r, c, v_.data() + c * chunk_ + r * tiles_w_, C * chunk_, scratch.data());
      }
    }
  }

  /// out tiles = Aᵀ·M·A + bias for one tile row and filter, clipped to the output's edge;
  /// vectorised along the row as the input transform.
  void output_tile_row(T* output, std::size_t row, std::size_t k, const T* m_row, std::size_t m_stride,
                       T* scratch) const {
    const Conv2dShape& s = shape_;
    const std::size_t Oh = s.out_height(), Ow = s.out_width(), tw = tiles_w_;
    const std::size_t n = row / tiles_h_, ti = row % tiles_h_;
    T* across = scratch;                     // [α][sx][tj]: M·A along each tile row of M
    T* lines = scratch + kTile * kOut * tw;  // the tile row's 4 output rows of 4·tw values
    for (std::size_t a = 0; a < kTile; ++a) {
      const T* m = m_row + a * kTile * m_stride;
      T* o = across + a * kOut * tw;
      for (std::size_t tj = 0; tj < tw; ++tj) output_transform_1d(m + tj, m_stride, o + tj, tw);
    }
    T col[kOut];
    for (std::size_t sx = 0; sx < kOut; ++sx)
      for (std::size_t tj = 0; tj < tw; ++tj) {
        output_transform_1d(across + sx * tw + tj, kOut * tw, col, 1);
        for (std::size_t r = 0; r < kOut; ++r) lines[r * kOut * tw + tj * kOut + sx] = col[r];
      }
    const T b = bias_of(std::span<const T>(bias_), k);
    T* plane = output + (n * s.filters + k) * Oh * Ow;
    for (std::size_t r = 0; r < std::min(kOut, Oh - ti * kOut); ++r) {
      T* dst = plane + (ti * kOut + r) * Ow;
      for (std::size_t j = 0; j < Ow; ++j) dst[j] = lines[r * kOut * tw + j] + b;
    }
  }

  void transform_outputs(T* output, std::size_t first_row, std::size_t rows) const {
    const std::size_t K = shape_.filters;
    const long long jobs = static_cast<long long>(K * rows);
#pragma omp parallel num_threads(threads_) if (threads_ > 1 && jobs > 1)
    {
      std::vector<T> scratch((kTile + kOut) * kOut * tiles_w_);
#pragma omp for schedule(static)
      for (long long job = 0; job < jobs; ++job) {
        const std::size_t k = static_cast<std::size_t>(job) / rows, r = static_cast<std::size_t>(job) % rows;
        output_tile_row(output, first_row + r, k, m_.data() + k * chunk_ + r * tiles_w_, K * chunk_, scratch.data());
      }
    }
  }

  Conv2dShape shape_;
  std::vector<T> bias_, u_;
  int threads_;
  std::size_t tiles_h_ = 0, tiles_w_ = 0, chunk_rows_ = 0, chunk_ = 0;  // chunk_: tiles
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
