// src/cuda/device_helpers.hpp — the CUDA kernels' index arithmetic, word arithmetic and
// per-thread bodies as small __host__ __device__ functions. The kernels (kernels.cu) are thin
// loops over these; tests/cuda_helpers_test.cpp runs the same functions on the CPU, thread by
// thread and phase by phase (a barrier = the end of a phase), against the reference WHT, so
// that the kernels' logic is tested in CI without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define FC_HD __host__ __device__ __forceinline__
#define FC_UNROLL _Pragma("unroll")
#else
#define FC_HD inline
#define FC_UNROLL
#endif

namespace fastconv::cuda {

// ---- words ----------------------------------------------------------------------------------

/// The ring Z/2^128 as two 64-bit halves, laid out like the host's unsigned __int128.
struct U128 {
  std::uint64_t lo = 0, hi = 0;
  FC_HD friend U128 operator+(U128 a, U128 b) {
    U128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
    return r;
  }
  FC_HD friend U128 operator-(U128 a, U128 b) {
    U128 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo ? 1u : 0u);
    return r;
  }
  FC_HD friend U128 operator*(U128 a, U128 b) {  // the low 128 bits of the product
    U128 r;
    r.lo = a.lo * b.lo;
    r.hi = mul_hi(a.lo, b.lo) + a.lo * b.hi + a.hi * b.lo;
    return r;
  }
  FC_HD static std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 wide;
    return static_cast<std::uint64_t>((static_cast<wide>(a) * b) >> 64);
#endif
  }
};

/// A word from a small non-negative integer (0/1 selectors, factors).
template <class W>
FC_HD W word_from(std::uint64_t v) {
  if constexpr (sizeof(W) == 16) return U128{v, 0};
  else return static_cast<W>(v);
}

/// x · scale for floating-point words, x · factor for rings (the exact power of two that a
/// block-local convolution owes the full-size one; 1 otherwise).
template <class W>
FC_HD W scaled(W x, double scale, std::uint64_t factor) {
  if constexpr (std::is_floating_point_v<W>) return x * static_cast<W>(scale);
  else return factor == 1 ? x : x * word_from<W>(factor);
}

// ---- seed 001 (Gajić & Stanković), Algorithm 1 ------------------------------------------------

/// Eq. 15: the first element of thread `tid`'s butterfly in the step of span `step`.
FC_HD std::uint64_t gajic_op1(std::uint64_t tid, std::uint64_t step) { return tid % step + 2 * step * (tid / step); }

/// One thread of one FWT step (eqs. 15-16) on one row.
template <class W>
FC_HD void gajic_butterfly(W* row, std::uint64_t tid, std::uint64_t step) {
  const std::uint64_t op1 = gajic_op1(tid, step), op2 = op1 + step;
  const W a = row[op1], b = row[op2];
  row[op1] = a + b;
  row[op2] = a - b;
}

// ---- seed 004 (Bikov & Bouyukliev), Algorithms 1-6 ----------------------------------------------

/// Algorithm 1's kernel for element i in step r (span j): reads `from`, writes `to`
/// (from = W_f, to = temp when r is odd; the other way round when r is even).
template <class W>
FC_HD void bikov_a1_element(const W* from, W* to, std::uint64_t i, std::uint64_t j) {
  if ((i & j) == 0) to[i] = from[i] + from[i + j];
  else to[i] = from[i - j] - from[i];
}

/// Algorithm 2's branch-free form, value = (1 − ii)(W[i] + W[i+j]) + ii(−W[i] + W[i−j]) with
/// ii = (i & j)/j. As printed it reads W[i+j] and W[i−j] both, one of them outside the array;
/// the partner i ⊕ j is i + j when ii = 0 and i − j when ii = 1, so it reads that one only.
/// As in the paper, the unused branch is multiplied by 0: an infinite float there gives NaN
/// where the other variants give ±inf (Algorithm 6's warp step shares this).
template <class W>
FC_HD void bikov_a2_element(const W* from, W* to, std::uint64_t i, std::uint64_t j) {
  const std::uint64_t ii = (i & j) / j;
  const W mine = from[i], partner = from[i ^ j];
  to[i] = word_from<W>(1 - ii) * (mine + partner) + word_from<W>(ii) * (partner - mine);
}

/// Algorithms 4-6, the shared-memory loop: thread i of a block holds `value`; after the block
/// wrote every value to `shared` (a barrier), the step of span j combines it with the partner.
template <class W>
FC_HD W bikov_shared_step(W value, const W* shared, unsigned i, unsigned j) {
  if ((i & j) == 0) return value + shared[i + j];
  return shared[i - j] - value;
}

/// Algorithm 6's warp step: `partner` is __shfl_xor(value, j).
template <class W>
FC_HD W bikov_shuffle_step(W value, W partner, unsigned i, unsigned j) {
  const std::uint64_t ii = (i & j) / j;
  return word_from<W>(ii) * (partner - value) + word_from<W>(1 - ii) * (partner + value);
}

/// Algorithms 5-6, the "memory pattern" of the second kernel: the element that thread t of
/// block b holds. The first kernel's blocks are the rows of a block_num × 1024 matrix; the
/// second kernel transposes it, one block per column (1024 blocks of block_num threads), so
/// thread t of block b takes element t·1024 + b. (The paper prints ji = t·block_num + b, which
/// is the same only at n = 20, block_num = 1024; at other n it repeats the first kernel's
/// stages instead of doing the remaining ones.)
FC_HD std::uint64_t bikov_pattern(unsigned t, unsigned b, unsigned first_block) {
  return static_cast<std::uint64_t>(t) * first_block + b;
}

// ---- seed 003 (NVIDIA fastWalshTransform): radix-4 butterflies ---------------------------------

/// The first of the four elements thread `pos` combines at span `stride`: i0, i0 + stride, ...
FC_HD std::uint64_t radix4_first(std::uint64_t pos, std::uint64_t stride) {
  const std::uint64_t lo = pos & (stride - 1);
  return ((pos - lo) << 2) + lo;
}

/// Two stages on (x0, x1, x2, x3) = data at i0 + k·stride, in natural order.
template <class W>
FC_HD void radix4_butterfly(W* data, std::uint64_t i0, std::uint64_t stride) {
  W d0 = data[i0], d1 = data[i0 + stride], d2 = data[i0 + 2 * stride], d3 = data[i0 + 3 * stride];
  const W s02 = d0 + d2, t02 = d0 - d2, s13 = d1 + d3, t13 = d1 - d3;
  data[i0] = s02 + s13;
  data[i0 + stride] = s02 - s13;
  data[i0 + 2 * stride] = t02 + t13;
  data[i0 + 3 * stride] = t02 - t13;
}

// ---- output orders -----------------------------------------------------------------------------

/// The natural (Hadamard) index of output coefficient k of an ordered transform of 2^bits
/// points: order 1 = sequency (row bit_reverse(gray(k))), 2 = Paley (row bit_reverse(k)).
FC_HD std::uint64_t natural_index(std::uint64_t k, unsigned bits, int order) {
  if (order == 0) return k;
  std::uint64_t x = order == 1 ? k ^ (k >> 1) : k, r = 0;
  for (unsigned i = 0; i < bits; ++i, x >>= 1) r = (r << 1) | (x & 1);
  return r;
}

// ---- the `fast` variant -----------------------------------------------------------------------

/// `rest` with `count` zero bits inserted at bit `at`.
FC_HD std::uint64_t insert_zero_bits(std::uint64_t rest, unsigned at, unsigned count) {
  const std::uint64_t low = rest & ((std::uint64_t{1} << at) - 1);
  return ((rest >> at) << (at + count)) | low;
}

/// XOR swizzle of a tile row: the low `bits` bits of the row are XORed with the next ones, so
/// that the threads of a warp walking rows 2^bits apart reach different shared-memory banks.
/// A bijection on [0, 2^t) for any t.
FC_HD unsigned swizzle_row(unsigned row, unsigned bits) {
  return row ^ ((row >> bits) & ((1u << bits) - 1));
}

/// In-place butterflies on v[0 .. 2^bits) (bits ≤ MaxBits); loops unroll to straight code.
template <int MaxBits, class W>
FC_HD void butterflies(W* v, int bits) {
  FC_UNROLL for (int h = 1; h < (1 << MaxBits); h <<= 1) {
    if (h >= (1 << bits)) break;
    FC_UNROLL for (int i = 0; i < (1 << MaxBits); ++i)
      if ((i & h) == 0 && i < (1 << bits)) {
        const W a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
  }
}

/// One pass of the `fast` variant over a tile: 2^t rows 2^p0 words apart, each 2^gc vectors of
/// 2^logv words; stages on bits [p0, p0 + t), and, if `lanes`, on the logv bits inside each
/// vector. Done in rounds of at most r row bits, from the high bits down.
struct PassShape {
  int logv = 0, p0 = 0, t = 0, r = 0, gc = 0;
  bool lanes = false;
  FC_HD int rounds() const { return t == 0 ? 1 : (t + r - 1) / r; }
  FC_HD int round_lo(int k) const { return t - (k + 1) * r > 0 ? t - (k + 1) * r : 0; }
  FC_HD int round_bits(int k) const { return (t - k * r) - round_lo(k); }
  FC_HD unsigned threads_per_tile() const { return 1u << (gc + t - r); }
  /// The first word of tile `tile` (tiles enumerate column blocks, then bands).
  FC_HD std::uint64_t tile_base(std::uint64_t tile) const {
    const int cb_log = p0 - logv - gc;
    const std::uint64_t band = tile >> cb_log, column_block = tile & ((std::uint64_t{1} << cb_log) - 1);
    return (band << (p0 + t)) + (column_block << (gc + logv));
  }
  /// The shape of pass i of a gpu::PassPlan (host code: the backend's launches and their CPU
  /// emulation in tests/cuda_helpers_test.cpp).
  template <class Plan>
  static PassShape of(const Plan& plan, std::size_t i) {
    const auto& p = plan.passes[i];
    PassShape s;
    s.logv = plan.logv;
    s.p0 = p.p0;
    s.t = p.t;
    s.r = p.r;
    s.gc = p.gc;
    s.lanes = p.lanes;
    return s;
  }
};

/// V words loaded and stored as one 16-byte access.
template <class W, int V>
struct alignas(sizeof(W) * V) Vec {
  W w[V];
};

/// A vector with each word converted to `To`: 16-bit floats widen to float exactly on load, and
/// float rounds to nearest even on store (the GPU: CUDA's __half and __nv_bfloat16; the CPU
/// emulation: fastconv::float16 and bfloat16). The identity for words stored as themselves.
template <class To, class From, int V>
FC_HD Vec<To, V> convert_words(const Vec<From, V>& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else {
    Vec<To, V> out;
    FC_UNROLL for (int l = 0; l < V; ++l) out.w[l] = static_cast<To>(v.w[l]);
    return out;
  }
}

/// What the last forward round of a dyadic pass does to each vector before the inverse
/// rounds: mode 1 multiplies by the spectrum, 2 squares, 3 divides by the spectrum (floats),
/// then scales. The spectrum repeats with period mask + 1 vectors.
template <class W, int V>
struct Combine {
  int mode = 0;  ///< 0: a plain pass (no combine, no inverse rounds)
  const Vec<W, V>* spectrum = nullptr;
  std::uint64_t mask = 0;
  double scale = 1;
  std::uint64_t factor = 1;

  FC_HD void operator()(Vec<W, V>& x, std::uint64_t vector_index) const {
    const Vec<W, V> s = mode == 2 ? x : spectrum[vector_index & mask];
    FC_UNROLL for (int l = 0; l < V; ++l) {
      W y;
      if constexpr (std::is_floating_point_v<W>) y = mode == 3 ? x.w[l] / s.w[l] : x.w[l] * s.w[l];
      else y = x.w[l] * s.w[l];
      x.w[l] = scaled(y, scale, factor);
    }
  }
};

/// Everything one round of the `fast` pass kernel needs, for one tile. The pass reads words of
/// type In and writes words of type Out at the same places, in place when both are the same
/// array; registers and shared memory hold W. 16-bit floats (computed as W = float) are read
/// from the array and written back only by a transform's first and last pass, so that they are
/// rounded once: passes in between go through a float array.
template <class W, int V, class In = W, class Out = In>
struct TileRound {
  PassShape shape;
  const Vec<In, V>* source = nullptr;  ///< what the first round loads, as vectors
  Vec<Out, V>* target = nullptr;       ///< where the last round stores (may be `source`)
  std::uint64_t tile_vec = 0;   ///< the tile's first vector
  Vec<W, V>* shared = nullptr;  ///< the tile's slots in shared memory
  bool active = true;           ///< false: a spare tile that stores nothing
  double store_scale = 1;       ///< floats: applied by the final store (1: none)
  Combine<W, V> combine;

  FC_HD std::uint64_t global_index(unsigned row, unsigned c) const {
    return tile_vec + (static_cast<std::uint64_t>(row) << (shape.p0 - shape.logv)) + c;
  }
  FC_HD unsigned slot(unsigned row, unsigned c) const {
    return (swizzle_row(row, static_cast<unsigned>(shape.r)) << shape.gc) + c;
  }

  /// Whether a round that works on row bits from `lo` up stores strided across a warp: a first
  /// pass (rows side by side) with fewer than 5 row bits below the round's.
  FC_HD bool strided_store(int lo) const { return shape.p0 == shape.logv && lo < 5 && shape.t >= 5; }

  /// The tile from its shared-memory slots to `target` in order: thread `item` of `threads`
  /// stores vectors item, item + threads, ... (after a barrier that follows the last round).
  FC_HD void store_tile(unsigned item, unsigned threads) const {
    if (!active) return;
    const unsigned count = 1u << (shape.t + shape.gc);
    for (unsigned v = item; v < count; v += threads) {
      const unsigned row = v >> shape.gc, c = v & ((1u << shape.gc) - 1);
      Vec<W, V> out = shared[slot(row, c)];
      if (store_scale != 1.0) {
        FC_UNROLL for (int l = 0; l < V; ++l) out.w[l] = scaled(out.w[l], store_scale, 1);
      }
      target[global_index(row, c)] = convert_words<Out>(out);
    }
  }

  /// Round k for thread `item` of the tile: its groups of 2^bits rows are loaded (from global
  /// memory if `from_global`, else shared), transformed, combined and transformed back if
  /// `middle`, and stored (to global memory if `to_global`).
  template <int R>
  FC_HD void run(int k, unsigned item, bool from_global, bool to_global, bool middle) const {
    const int lo = shape.round_lo(k), bits = shape.round_bits(k);
    const bool lanes = shape.lanes && k == shape.rounds() - 1;
    for (unsigned j = 0; j < (1u << (shape.r - bits)); ++j) {
      const unsigned g = (j << (shape.gc + shape.t - shape.r)) + item;
      const unsigned c = g & ((1u << shape.gc) - 1);
      const unsigned row0 = static_cast<unsigned>(insert_zero_bits(g >> shape.gc, lo, bits));
      Vec<W, V> v[1 << R];
      FC_UNROLL for (int i = 0; i < (1 << R); ++i)
        if (i < (1 << bits)) {
          const unsigned row = row0 + (static_cast<unsigned>(i) << lo);
          v[i] = from_global ? convert_words<W>(source[global_index(row, c)]) : shared[slot(row, c)];
        }
      stages<R>(v, bits, lanes);
      if (middle && combine.mode != 0) {
        FC_UNROLL for (int i = 0; i < (1 << R); ++i)
          if (i < (1 << bits)) combine(v[i], global_index(row0 + (static_cast<unsigned>(i) << lo), c));
        stages<R>(v, bits, lanes);
      }
      FC_UNROLL for (int i = 0; i < (1 << R); ++i)
        if (i < (1 << bits)) {
          const unsigned row = row0 + (static_cast<unsigned>(i) << lo);
          if (!to_global) {
            shared[slot(row, c)] = v[i];
          } else if (active) {
            Vec<W, V> out = v[i];
            if (store_scale != 1.0) {
              FC_UNROLL for (int l = 0; l < V; ++l) out.w[l] = scaled(out.w[l], store_scale, 1);
            }
            target[global_index(row, c)] = convert_words<Out>(out);
          }
        }
    }
  }

 private:
  /// The round's row stages on v[0 .. 2^bits), then (if `lanes`) the stages inside each vector.
  template <int R>
  FC_HD static void stages(Vec<W, V>* v, int bits, bool lanes) {
    FC_UNROLL for (int h = 1; h < (1 << R); h <<= 1) {
      if (h >= (1 << bits)) break;
      FC_UNROLL for (int i = 0; i < (1 << R); ++i)
        if ((i & h) == 0 && i < (1 << bits)) {
          FC_UNROLL for (int l = 0; l < V; ++l) {
            const W a = v[i].w[l], b = v[i + h].w[l];
            v[i].w[l] = a + b;
            v[i + h].w[l] = a - b;
          }
        }
    }
    if (lanes) {
      FC_UNROLL for (int i = 0; i < (1 << R); ++i)
        if (i < (1 << bits)) butterflies<(V > 1 ? log2_of(V) : 0)>(v[i].w, log2_of(V));
    }
  }
  FC_HD static constexpr int log2_of(int x) { return x <= 1 ? 0 : 1 + log2_of(x / 2); }
};

/// The rounds of one tile in order, with `barrier` between them (__syncthreads() on the GPU;
/// nothing in the CPU emulation, which runs each round for every thread before the next):
/// forward rounds; in a dyadic middle pass the last one combines and undoes its stages, and the
/// earlier rounds run again in reverse.
struct RoundPlan {
  int rounds = 1;
  bool middle = false;
  /// Round `step` of the sequence: which round, and whether it reads/writes global memory.
  struct Step {
    int k;
    bool from_global, to_global, middle;
  };
  FC_HD int steps() const { return middle ? 2 * rounds - 1 : rounds; }
  FC_HD Step step(int i) const {
    const int k = i < rounds ? i : 2 * rounds - 2 - i;
    const bool last = i == steps() - 1;
    return {k, i == 0, last, middle && i == rounds - 1};
  }
};

}  // namespace fastconv::cuda
