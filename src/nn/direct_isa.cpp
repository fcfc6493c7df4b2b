// src/nn/direct_isa.cpp — conv2d's `direct`: register tiles of output rows.
//
// A tile of KB filters × XB vectors of one output row lives in registers through the whole
// sum over (channel, tap): each step loads XB input vectors and broadcasts KB weights, so
// every input load feeds KB fused multiply-adds and no partial sum goes through memory.
//
// Compiled once per instruction set (src/CMakeLists.txt) with FASTCONV_NN_ISA naming it:
// `isa_base` (the architecture's baseline) and, on x86-64, `isa_avx2` (-mavx2 -mfma) and
// `isa_avx512` (-mavx512f, 64-byte vectors: a tile covers twice the columns). The vectors are
// GCC/Clang vector extensions (nn/vec.hpp). The whole file is compiled for one target, helpers
// included: with a target attribute on the caller only, GCC lowers a shared helper for the
// baseline first, and every broadcast in the AVX2 copy becomes two 16-byte halves.
#include <algorithm>
#include <cstring>

#include "nn/direct_isa.hpp"
#include "nn/vec.hpp"

namespace fastconv::nn::FASTCONV_NN_ISA {

namespace {

/// XB, the vectors of a tile for KB filters: KB·XB accumulators, ≥ 8 of them (two FMA pipes of
/// latency 4), plus XB inputs and a broadcast weight within 16 registers.
constexpr int max_vectors(int filters) { return filters >= 3 ? 3 : filters == 2 ? 5 : 8; }

/// Which part of the sum a tile adds: channels [c0, c1), onto the bias (c0 = 0) or onto what
/// the output holds.
struct Channels {
  std::size_t c0, c1;
};

/// Output row i, filters [k0, k0 + KB), columns [x, x + XB·L) of which the last vector holds
/// `last` valid lanes. `w`: the block's weights as [C][Kh][Kw][KB]; `out`: filter k0's plane.
template <class T, int KB, int XB>
[[gnu::always_inline]] inline void tile(const DirectRows<T>& r, Channels ch, std::size_t i, std::size_t x, const T* w,
                                        const T* bias, T* out, std::size_t last) {
  constexpr std::size_t L = kLanes<T>;
  Vec<T> acc[KB][XB];
#pragma GCC unroll 8
  for (int k = 0; k < KB; ++k) {
    const T* o = out + k * r.out_plane + i * r.out_width + x;
#pragma GCC unroll 8
    for (int b = 0; b < XB; ++b) {
      if (ch.c0 == 0) {
        acc[k][b] = splat(bias[k]);
      } else {  // the last vector's lanes past `last` are not the tile's: never read
        acc[k][b] = Vec<T>{};
        std::memcpy(&acc[k][b], o + b * L, (b + 1 < XB ? L : last) * sizeof(T));
      }
    }
  }
  w += ch.c0 * r.kernel_height * r.kernel_width * KB;
  const T* channel = r.image + ch.c0 * r.plane + i * r.stride + x;
  for (std::size_t c = ch.c0; c < ch.c1; ++c, channel += r.plane) {
    const T* row = channel;
    for (std::size_t u = 0; u < r.kernel_height; ++u, row += r.stride) {
      for (std::size_t v = 0; v < r.kernel_width; ++v, w += KB) {
        Vec<T> in[XB];
#pragma GCC unroll 8
        for (int b = 0; b < XB; ++b) in[b] = load(row + v + b * L);
#pragma GCC unroll 8
        for (int k = 0; k < KB; ++k) {
          const Vec<T> weight = splat(w[k]);
#pragma GCC unroll 8
          for (int b = 0; b < XB; ++b) acc[k][b] += weight * in[b];
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int k = 0; k < KB; ++k) {
    T* o = out + k * r.out_plane + i * r.out_width + x;
#pragma GCC unroll 8
    for (int b = 0; b + 1 < XB; ++b) std::memcpy(o + b * L, &acc[k][b], sizeof(Vec<T>));
    std::memcpy(o + (XB - 1) * L, &acc[k][XB - 1], last * sizeof(T));
  }
}

/// The tile of `vectors` ≤ NV vectors.
template <class T, int KB, int NV>
[[gnu::always_inline]] inline void tail(int vectors, const DirectRows<T>& r, Channels ch, std::size_t i, std::size_t x,
                                        const T* w, const T* bias, T* out, std::size_t last) {
  if constexpr (NV > 0) {
    if (vectors == NV) return tile<T, KB, NV>(r, ch, i, x, w, bias, out, last);
    tail<T, KB, NV - 1>(vectors, r, ch, i, x, w, bias, out, last);
  }
}

/// Output row i of filters [k0, k0 + KB): whole tiles, then one narrower tile for the rest.
template <class T, int KB>
[[gnu::always_inline]] inline void row_of(const DirectRows<T>& r, Channels ch, std::size_t i, const T* w,
                                          const T* bias, T* out) {
  constexpr int XB = max_vectors(KB);
  constexpr std::size_t L = kLanes<T>, width = XB * L;
  std::size_t x = 0;
  for (; x + width <= r.out_width; x += width) tile<T, KB, XB>(r, ch, i, x, w, bias, out, L);
  if (const std::size_t rest = r.out_width - x; rest > 0) {
    const int vectors = static_cast<int>((rest + L - 1) / L);
    tail<T, KB, XB>(vectors, r, ch, i, x, w, bias, out, rest - (vectors - 1) * L);
  }
}

/// `count` output rows, every filter: per row and block of channels, every block of KB
/// filters in turn, each along the whole row. The block's input rows stay in L1 across the
/// filter blocks, the packed weights in L2. (Tiles outermost and the filter blocks inside
/// them measured slower.)
template <class T>
void band_of(const DirectRows<T>* r, std::size_t filters, const T* packed, const T* bias, T* out, std::size_t count) {
  const std::size_t filter_size = r->channels * r->kernel_height * r->kernel_width;
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t c0 = 0; c0 < r->channels; c0 += r->channel_block) {
      const Channels ch{c0, std::min(r->channels, c0 + r->channel_block)};
      for (std::size_t k0 = 0; k0 < filters; k0 += kDirectFilterBlock) {
        const T* w = packed + k0 * filter_size;
        T* o = out + k0 * r->out_plane;
        switch (std::min(kDirectFilterBlock, filters - k0)) {
          case 4: row_of<T, 4>(*r, ch, i, w, bias + k0, o); break;
          case 3: row_of<T, 3>(*r, ch, i, w, bias + k0, o); break;
          case 2: row_of<T, 2>(*r, ch, i, w, bias + k0, o); break;
          default: row_of<T, 1>(*r, ch, i, w, bias + k0, o); break;
        }
      }
    }
  }
}

}  // namespace

void band(const DirectRows<float>& rows, std::size_t filters, const float* packed, const float* bias, float* out,
          std::size_t count) {
  band_of(&rows, filters, packed, bias, out, count);
}

void band(const DirectRows<double>& rows, std::size_t filters, const double* packed, const double* bias,
          double* out, std::size_t count) {
  band_of(&rows, filters, packed, bias, out, count);
}

}  // namespace fastconv::nn::FASTCONV_NN_ISA
