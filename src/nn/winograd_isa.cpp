// src/nn/winograd_isa.cpp — conv2d's `winograd` F(4×4, 3×3) on a group of tiles, vectorised
// across tiles: lane j of every vector belongs to tile j of a run of L tiles in one tile row.
//
// Per group (3 vectors of tiles) and channel, the six input rows of each tile row are copied
// with their padding, split into the four column phases (x mod 4) in registers, and Bᵀ·d·B is
// computed for L tiles at once into V[ξ][c][tile]. The channel sum M[ξ][k] = Σ_c U[ξ][k][c]·V[ξ][c]
// is a register tile of 4 filters × 3 vectors: per channel, 3 loads of V and 4 broadcasts of U
// feed 12 fused multiply-adds. Aᵀ·M·A + bias then goes back through the phases into output rows.
// V of a group stays in L2 (36·C·(G + L) values), M of a block of filters in L1. A thread runs
// one group from input to output, so nothing of it goes through memory beyond L2.
//
// Compiled once per instruction set like direct_isa.cpp (see there, and nn/vec.hpp).
#include <algorithm>
#include <cstring>

#include "nn/vec.hpp"
#include "nn/winograd_isa.hpp"

namespace fastconv::nn::FASTCONV_NN_ISA {

namespace {

constexpr std::size_t kTile = 6, kOut = 4, kElements = kTile * kTile, kBlock = kWinogradFilterBlock;

/// o = Bᵀ·d for the six values of one tile column (or row).
template <class T, class V>
[[gnu::always_inline]] inline void input_1d(const V (&d)[kTile], V (&o)[kTile]) {
  const V d12 = d[1] + d[2], d34 = d[3] + d[4], d4m2 = d[4] - d[2], d3m1 = d[3] - d[1];
  o[0] = T(4) * d[0] - T(5) * d[2] + d[4];
  o[1] = d34 - T(4) * d12;
  o[2] = (d[4] - d[3]) + T(4) * (d[1] - d[2]);
  o[3] = d4m2 + T(2) * d3m1;
  o[4] = d4m2 - T(2) * d3m1;
  o[5] = T(4) * d[1] - T(5) * d[3] + d[5];
}

/// o = Aᵀ·m for the six values of one column (or row) of M.
template <class T, class V>
[[gnu::always_inline]] inline void output_1d(const V (&m)[kTile], V (&o)[kOut]) {
  const V s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  o[0] = m[0] + s12 + s34;
  o[1] = d12 + T(2) * d34;
  o[2] = s12 + T(4) * s34;
  o[3] = d12 + T(8) * d34 + m[5];
}

/// The six columns of L tiles from one input row: p[b] lane j = row[4j + b].
template <class T>
[[gnu::always_inline]] inline void columns(const T* row, Vec<T> (&p)[kTile]) {
  const Vec<T> x0 = load(row), x1 = load(row + kLanes<T>), x2 = load(row + 2 * kLanes<T>),
               x3 = load(row + 3 * kLanes<T>);
  if constexpr (kLanes<T> == 8) {
    const Vec<T> t0 = __builtin_shufflevector(x0, x1, 0, 4, 8, 12, 1, 5, 9, 13);  // phases 0, 1 of lanes 0-3
    const Vec<T> t1 = __builtin_shufflevector(x0, x1, 2, 6, 10, 14, 3, 7, 11, 15);
    const Vec<T> t2 = __builtin_shufflevector(x2, x3, 0, 4, 8, 12, 1, 5, 9, 13);  // … of lanes 4-7
    const Vec<T> t3 = __builtin_shufflevector(x2, x3, 2, 6, 10, 14, 3, 7, 11, 15);
    p[0] = __builtin_shufflevector(t0, t2, 0, 1, 2, 3, 8, 9, 10, 11);
    p[1] = __builtin_shufflevector(t0, t2, 4, 5, 6, 7, 12, 13, 14, 15);
    p[2] = __builtin_shufflevector(t1, t3, 0, 1, 2, 3, 8, 9, 10, 11);
    p[3] = __builtin_shufflevector(t1, t3, 4, 5, 6, 7, 12, 13, 14, 15);
    // Columns 4 and 5 are columns 0 and 1 of the next tile.
    p[4] = __builtin_shufflevector(p[0], splat(row[32]), 1, 2, 3, 4, 5, 6, 7, 8);
    p[5] = __builtin_shufflevector(p[1], splat(row[33]), 1, 2, 3, 4, 5, 6, 7, 8);
  } else {  // 4 lanes: a 4×4 transpose
    const Vec<T> t0 = __builtin_shufflevector(x0, x1, 0, 4, 2, 6), t1 = __builtin_shufflevector(x0, x1, 1, 5, 3, 7);
    const Vec<T> t2 = __builtin_shufflevector(x2, x3, 0, 4, 2, 6), t3 = __builtin_shufflevector(x2, x3, 1, 5, 3, 7);
    p[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    p[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    p[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    p[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    p[4] = __builtin_shufflevector(p[0], splat(row[16]), 1, 2, 3, 4);
    p[5] = __builtin_shufflevector(p[1], splat(row[17]), 1, 2, 3, 4);
  }
}

/// The inverse of columns() for one output row of L tiles: line[4j + s] = o[s] lane j.
template <class T>
[[gnu::always_inline]] inline void interleave(const Vec<T> (&o)[kOut], T* line) {
  constexpr std::size_t L = kLanes<T>;
  if constexpr (L == 8) {
    const Vec<T> u0 = __builtin_shufflevector(o[0], o[1], 0, 8, 1, 9, 2, 10, 3, 11);
    const Vec<T> u1 = __builtin_shufflevector(o[0], o[1], 4, 12, 5, 13, 6, 14, 7, 15);
    const Vec<T> w0 = __builtin_shufflevector(o[2], o[3], 0, 8, 1, 9, 2, 10, 3, 11);
    const Vec<T> w1 = __builtin_shufflevector(o[2], o[3], 4, 12, 5, 13, 6, 14, 7, 15);
    store(line, __builtin_shufflevector(u0, w0, 0, 1, 8, 9, 2, 3, 10, 11));
    store(line + L, __builtin_shufflevector(u0, w0, 4, 5, 12, 13, 6, 7, 14, 15));
    store(line + 2 * L, __builtin_shufflevector(u1, w1, 0, 1, 8, 9, 2, 3, 10, 11));
    store(line + 3 * L, __builtin_shufflevector(u1, w1, 4, 5, 12, 13, 6, 7, 14, 15));
  } else {  // 4 lanes: a 4×4 transpose
    const Vec<T> t0 = __builtin_shufflevector(o[0], o[1], 0, 4, 2, 6);
    const Vec<T> t1 = __builtin_shufflevector(o[0], o[1], 1, 5, 3, 7);
    const Vec<T> t2 = __builtin_shufflevector(o[2], o[3], 0, 4, 2, 6);
    const Vec<T> t3 = __builtin_shufflevector(o[2], o[3], 1, 5, 3, 7);
    store(line, __builtin_shufflevector(t0, t2, 0, 1, 4, 5));
    store(line + L, __builtin_shufflevector(t1, t3, 0, 1, 4, 5));
    store(line + 2 * L, __builtin_shufflevector(t0, t2, 2, 3, 6, 7));
    store(line + 3 * L, __builtin_shufflevector(t1, t3, 2, 3, 6, 7));
  }
}

/// A run of a group's tiles within one tile row: `count` tiles from (image n, ti, tj), which
/// are tiles [offset, offset + count) of the group.
struct Segment {
  std::size_t n, ti, tj, count, offset;
};

/// The runs of tiles [first, first + count) in tile rows, in order; returns how many.
template <class T>
[[gnu::always_inline]] inline std::size_t segments(const WinogradTiles<T>& a, std::size_t first, std::size_t count,
                                                   Segment* out) {
  const std::size_t per_image = a.tiles_high * a.tiles_wide;
  std::size_t runs = 0;
  for (std::size_t offset = 0, t = first; offset < count; ++runs) {
    const std::size_t n = t / per_image, ti = t % per_image / a.tiles_wide, tj = t % a.tiles_wide;
    const std::size_t run = std::min(count - offset, a.tiles_wide - tj);
    out[runs] = Segment{n, ti, tj, run, offset};
    offset += run;
    t += run;
  }
  return runs;
}

/// dst[i] = row[x0 + i] for i in [lo, hi), zeros for the rest of [0, need) (row may be null
/// when lo = hi). In vectors: a call to memcpy costs more than these few dozen values.
template <class T>
[[gnu::always_inline]] inline void copy_row(T* dst, const T* row, std::ptrdiff_t x0, std::size_t lo, std::size_t hi,
                                            std::size_t need) {
  constexpr std::size_t L = kLanes<T>;
  std::size_t i = 0;
  for (; i < lo; ++i) dst[i] = T(0);
  for (; i + L <= hi; i += L) store(dst + i, load(row + (x0 + static_cast<std::ptrdiff_t>(i))));
  for (; i < hi; ++i) dst[i] = row[x0 + static_cast<std::ptrdiff_t>(i)];
  for (; i < need; ++i) dst[i] = T(0);
}

template <class T>
using Scratch = WinogradScratch<T>;

/// V[ξ][c][tiles of s] (rows Scratch::stride apart, the C rows of each ξ a Scratch::panel(C)
/// apart): Bᵀ·d·B of every tile of s. Vectors run past the segment's last tile; the next
/// segment, or the slack past the group, takes what they write there.
template <class T>
[[gnu::always_inline]] inline void transform_input(const WinogradTiles<T>& a, const Segment& s, std::size_t c, T* v,
                                                   T* rows) {
  constexpr std::size_t L = kLanes<T>;
  const std::size_t vectors = (s.count + L - 1) / L, need = 4 * L * vectors + 2;
  // Rows 4·ti + r − top and columns from 4·tj − left of the image, zeros outside it.
  const std::size_t panel = Scratch<T>::panel(a.channels);
  const T* plane = a.input + (s.n * a.channels + c) * a.height * a.width;
  const std::ptrdiff_t x0 = static_cast<std::ptrdiff_t>(4 * s.tj) - static_cast<std::ptrdiff_t>(a.pad_left);
  const std::ptrdiff_t W = static_cast<std::ptrdiff_t>(a.width), n_need = static_cast<std::ptrdiff_t>(need);
  const std::size_t lo = static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(-x0, 0, n_need));
  const std::size_t hi =
      static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(W - x0, static_cast<std::ptrdiff_t>(lo), n_need));
  for (std::size_t r = 0; r < kTile; ++r) {
    const std::size_t y = 4 * s.ti + r;
    const bool inside = y >= a.pad_top && y - a.pad_top < a.height;
    const T* row = inside ? plane + (y - a.pad_top) * a.width : nullptr;
    copy_row(rows + r * Scratch<T>::row, row, x0, inside ? lo : 0, inside ? hi : 0, need);
  }
  for (std::size_t j = 0; j < vectors; ++j) {
    Vec<T> across[kTile][kTile];  // [input row][Bᵀ·(row)ᵀ element]
#pragma GCC unroll 6
    for (std::size_t r = 0; r < kTile; ++r) {
      Vec<T> p[kTile];
      columns(rows + r * Scratch<T>::row + 4 * L * j, p);
      input_1d<T>(p, across[r]);
    }
    // ξ = 6·e + b: the rows of column b lie 6 panels apart. One pointer walks down them: 36
    // addresses computed up front would not fit in registers.
    T* out = v + c * Scratch<T>::stride + s.offset + L * j;
#pragma GCC unroll 1
    for (std::size_t b = 0; b < kTile; ++b, out += panel) {
      const Vec<T> d[kTile] = {across[0][b], across[1][b], across[2][b], across[3][b], across[4][b], across[5][b]};
      Vec<T> o[kTile];
      input_1d<T>(d, o);
      T* q = out;
#pragma GCC unroll 6
      for (std::size_t e = 0; e < kTile; ++e, q += kTile * panel) store(q, o[e]);
    }
  }
}

/// M[ξ][k][0, group) = Σ_c U[ξ][c][k]·V[ξ][c][0, group) for the kBlock filters of one block
/// (U: the block's [36][C][kBlock]). Blocks are the outer loop (group_of): V stays in L2 and M
/// of one block in L1, where M of every filter would push V out of L2 at C = K = 32.
template <class T>
[[gnu::always_inline]] inline void channel_sums(const T* u, const T* v, std::size_t channels, T* m) {
  constexpr std::size_t L = kLanes<T>, XB = Scratch<T>::group / L, S = Scratch<T>::stride;
  for (std::size_t e = 0; e < kElements; ++e) {
    Vec<T> acc[kBlock][XB] = {};
    const T* ve = v + e * Scratch<T>::panel(channels);
    const T* ue = u + e * channels * kBlock;
    for (std::size_t c = 0; c < channels; ++c, ve += S, ue += kBlock) {
      Vec<T> in[XB];
#pragma GCC unroll 4
      for (std::size_t b = 0; b < XB; ++b) in[b] = load(ve + b * L);
#pragma GCC unroll 4
      for (std::size_t k = 0; k < kBlock; ++k) {
        const Vec<T> w = splat(ue[k]);
#pragma GCC unroll 4
        for (std::size_t b = 0; b < XB; ++b) acc[k][b] += w * in[b];
      }
    }
#pragma GCC unroll 4
    for (std::size_t k = 0; k < kBlock; ++k)
#pragma GCC unroll 4
      for (std::size_t b = 0; b < XB; ++b) store(m + (e * kBlock + k) * S + b * L, acc[k][b]);
  }
}

/// Filter k's output tiles of segment s: Aᵀ·M·A + bias from M[ξ][kk] (kk = k's place in its
/// block), clipped to the output's edges.
template <class T>
[[gnu::always_inline]] inline void transform_output(const WinogradTiles<T>& a, const Segment& s, std::size_t k,
                                                    const T* m, T bias) {
  constexpr std::size_t L = kLanes<T>, S = Scratch<T>::stride;
  T* plane = a.output + (s.n * a.filter_count + k) * a.out_height * a.out_width;
  const std::size_t rows = std::min(kOut, a.out_height - 4 * s.ti);
  for (std::size_t j = 0; j * L < s.count; ++j) {
    Vec<T> across[kTile][kOut];  // [row of M][Aᵀ·(row)ᵀ element]
#pragma GCC unroll 6
    for (std::size_t r = 0; r < kTile; ++r) {
      Vec<T> row[kTile];
#pragma GCC unroll 6
      for (std::size_t e = 0; e < kTile; ++e) row[e] = load(m + ((r * kTile + e) * kBlock) * S + s.offset + L * j);
      output_1d<T>(row, across[r]);
    }
    Vec<T> out[kOut][kOut];  // [output row][column phase]
#pragma GCC unroll 4
    for (std::size_t x = 0; x < kOut; ++x) {
      const Vec<T> col[kTile] = {across[0][x], across[1][x], across[2][x], across[3][x], across[4][x], across[5][x]};
      Vec<T> o[kOut];
      output_1d<T>(col, o);
#pragma GCC unroll 4
      for (std::size_t y = 0; y < kOut; ++y) out[y][x] = o[y] + splat(bias);
    }
    const std::size_t x0 = 4 * (s.tj + L * j);
    const std::size_t width = std::min(4 * std::min(L, s.count - L * j), a.out_width - x0);
    for (std::size_t y = 0; y < rows; ++y) {
      T* dst = plane + (4 * s.ti + y) * a.out_width + x0;
      if (width == 4 * L) {
        interleave(out[y], dst);
      } else {
        T line[4 * L];
        interleave(out[y], line);
        std::memcpy(dst, line, width * sizeof(T));
      }
    }
  }
}

template <class T>
void group_of(const WinogradTiles<T>& a, std::size_t first, std::size_t count, T* scratch) {
  const std::size_t C = a.channels, K = a.filter_count;
  T* v = scratch;
  T* m = v + kElements * Scratch<T>::panel(C);
  T* rows = m + kElements * kBlock * Scratch<T>::stride;
  Segment runs[Scratch<T>::group];
  const std::size_t n_runs = segments(a, first, count, runs);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t r = 0; r < n_runs; ++r) transform_input(a, runs[r], c, v, rows);
  for (std::size_t k0 = 0; k0 < K; k0 += kBlock) {
    channel_sums(a.filters + k0 * kElements * C, v, C, m);
    for (std::size_t kk = 0; kk < std::min(kBlock, K - k0); ++kk)
      for (std::size_t r = 0; r < n_runs; ++r)
        transform_output(a, runs[r], k0 + kk, m + kk * Scratch<T>::stride, a.bias[k0 + kk]);
  }
}

}  // namespace

void winograd_group(const WinogradTiles<float>& tiles, std::size_t first, std::size_t count, float* scratch) {
  group_of(tiles, first, count, scratch);
}

void winograd_group(const WinogradTiles<double>& tiles, std::size_t first, std::size_t count, double* scratch) {
  group_of(tiles, first, count, scratch);
}

}  // namespace fastconv::nn::FASTCONV_NN_ISA
