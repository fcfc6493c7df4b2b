// src/cpu/permute.hpp — a natural-order transform's words into Paley or sequency order, out of
// place, on this instruction set's vectors (included only by kernels_isa.cpp, once per
// instruction set).
//
// Paley coefficient k is natural coefficient bit_reverse(k); sequency coefficient k is Paley
// coefficient gray(k) = k ⊕ (k >> 1) (order.hpp). With L = 2^q lanes a vector and the index
// split k = (a, mid, b) into its top q bits, the m = n − 2q middle ones and the low q, the
// Paley words (a, mid, ·) are lane rev(a) of the natural vectors (rev(·), rev(mid)): for each
// mid, a tile of L vectors from L rows, transposed (its vectors gathered from 128-bit blocks
// of the rows, then transposed within the blocks, Tiles::load_columns; loading and storing
// them in bit-reversed order reverses both indices) and stored as L vectors of L rows. Sequency order
// is the same tile with each vector stored where the Gray map sends it, its lanes permuted:
// sequency vector v' is Paley vector gray(v') with lane l ← l ⊕ (l >> 1) ⊕ (v' & 1)·L/2. The
// tiles go in the order of the columns they read, so that each of the L rows is read straight
// through (the other way round, reading a new place in every row for each tile, took 2.6–4×
// as long beyond the caches). The stores land far apart; from kStreamedReorderBytes on they
// stream past the caches. Rows shorter than L² words take tiles of narrower vectors (down to
// 128 bits); rows no longer than a vector, one lane permutation per vector. A whole transform
// (floating point, or exact integers with their range check) does the tiles in its own top
// sweep (ordered_wht, at the end), from kStreamedReorderBytes on where its output is aligned
// for the streamed stores. (Tiled scalar permutations, run twice for sequency order, took
// 8–21× a copy of the array each; this takes 2.4–3.9× in cache, 1.2–2.1× beyond it:
// docs/benchmarks.md.)
#pragma once

#include <hwy/highway.h>
#include <hwy/cache_control.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/order.hpp"
#include "cpu/passes.hpp"

namespace fastconv::cpu::FASTCONV_ISA {

namespace hn = hwy::HWY_NAMESPACE;

/// One row of 2^n words in tiles of L × L words (L = 2^q, the lanes of tag D; n ≥ 2q), from in
/// to out (in ≠ out), on a team of `threads` (0: OpenMP's default).
template <class D>
class Tiles {
  using U = hn::TFromD<D>;
  using V = hn::Vec<D>;
  static constexpr std::size_t L = hn::MaxLanes(D());
  static constexpr int q = std::countr_zero(L);

 public:
  static constexpr std::size_t rev(std::size_t i) { return bit_reverse(i, q); }

  static void row(const U* __restrict in, U* __restrict out, int n, Order order, int threads) {
    const bool sequency = order == Order::sequency;
    const bool stream = (sizeof(U) << n) >= kStreamedReorderBytes && reinterpret_cast<std::uintptr_t>(out) % (L * sizeof(U)) == 0;
    if (sequency) stream ? tiles<true, true>(in, out, n, threads) : tiles<true, false>(in, out, n, threads);
    else stream ? tiles<false, true>(in, out, n, threads) : tiles<false, false>(in, out, n, threads);
  }

 private:
  /// x, of which the compiler may assume nothing: so that it computes addresses from x where
  /// they are used, not all of them once before a loop (more than the registers hold).
  template <class X>
  HWY_INLINE static X opaque(X x) {
    asm volatile("" : "+r"(x));  // volatile: not hoisted out of the loop either
    return x;
  }

  /// The prefix XOR of x from its top bit down: the inverse of gray().
  static constexpr std::size_t gray_inverse(std::size_t x) {
    for (int s = 1; s < 64; s <<= 1) x ^= x >> s;
    return x;
  }

  /// Lane l of sequency vector v' is lane l ⊕ (l >> 1) ⊕ (v' & 1)·L/2 of Paley vector gray(v').
  alignas(64) static constexpr std::array<std::array<hwy::MakeSigned<U>, L>, 2> kGrayLanes = [] {
    std::array<std::array<hwy::MakeSigned<U>, L>, 2> idx{};
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t l = 0; l < L; ++l) idx[p][l] = static_cast<hwy::MakeSigned<U>>(l ^ (l >> 1) ^ (p * L / 2));
    return idx;
  }();

  /// Every tile, in the order of the rows' columns read (t = rev(mid)): each of the L rows is
  /// read straight through; the stores go where the order sends them.
  template <bool kSequency, bool kStream>
  static void tiles(const U* __restrict in, U* __restrict out, int n, int threads) {
    const std::size_t count = std::size_t{1} << (n - 2 * q);
    const int team = threads > 0 ? threads : omp_get_max_threads();
    if (team > 1 && (sizeof(U) << n) >= kParallelReorderBytes) {
#pragma omp parallel num_threads(team)
      {
        const auto t = static_cast<std::size_t>(omp_get_thread_num()), size = static_cast<std::size_t>(omp_get_num_threads());
        tile_run<kSequency, kStream>(in, out, n, count * t / size, count * (t + 1) / size);
      }
      return;
    }
    tile_run<kSequency, kStream>(in, out, n, 0, count);
  }

  /// Tiles [t0, t1): each one's columns loaded straight into place (load_columns), then
  /// stored. The tile's place, mid = rev(t) over m bits, follows t: adding 1 to t flips its
  /// trailing ones and the zero above them, which are mid's leading bits. (The bit reversal
  /// made afresh, and every tile's load and store addresses hoisted out of the loop, took
  /// about 100 scalar instructions a tile, and spilled the addresses; that was more than the
  /// tile's shuffles.)
  template <bool kSequency, bool kStream>
  static void tile_run(const U* __restrict in, U* __restrict out, int n, std::size_t t0, std::size_t t1) {
    const int m = n - 2 * q;
    const std::size_t all = (std::size_t{1} << m) - 1;
    std::size_t mid = bit_reverse(t0, m);
    for (std::size_t t = t0; t < t1; ++t) {
      V r[L];  // the loops unrolled, so that r stays in registers
      load_columns(in + (t << q), opaque(std::size_t{1} << (n - q)), r);
      store_columns<kSequency, kStream>(r, out, m, mid);
      mid ^= all & ~(all >> (std::countr_one(t) + 1));
    }
    if constexpr (kStream) hwy::FlushStream();
  }

  /// A vector whose 128-bit block k is the 128 bits at p[k].
  HWY_INLINE static V load_blocks(const U* const* p) {
    const D d;
    if constexpr (nb == 1) {
      return hn::LoadU(d, p[0]);
    } else if constexpr (nb == 2) {  // the upper block: an insert from memory
      const hn::Half<D> dh;
      return Combine(d, hn::LoadU(dh, p[1]), hn::LoadU(dh, p[0]));
    } else {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      // Inserts from memory (a load and a blend's port on Intel); Highway's Combine of two
      // halves would insert the upper half from a register, a shuffle.
      __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0])));
      v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1])), 1);
      v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2])), 2);
      v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3])), 3);
      const hn::Repartition<std::uint32_t, D> du;
      return hn::BitCast(d, hn::Vec<decltype(du)>{v});
#else
      static_assert(nb <= 2, "vectors of four blocks: only AVX-512 among the targets built");
#endif
    }
  }

  /// r[c] ← column c of the tile whose row slot l (transpose()'s r[l]) is the vector at
  /// src + rev(l)·stride: each vector first gathered from 128-bit blocks of nb rows (block k of
  /// vector g·B + i: block g of slot k·B + i), then B of them transposed within their blocks,
  /// so that no shuffle crosses blocks (on AVX-512, 32 shuffles and 48 inserts from memory
  /// where transpose() takes 64 shuffles and 16 blends). Slot k·B + i is row rev(i)·nb +
  /// rev(k) (the reversals over log2 B and log2 nb bits): the rows of one i lie at one base,
  /// 0 … nb − 1 strides on, so that few addresses are live.
  HWY_INLINE static void load_columns(const U* src, std::size_t stride, V* r) {
    V a[L];
#pragma GCC unroll 4
    for (std::size_t i = 0; i < B; ++i) {
      const U* base = src + bit_reverse(i, std::countr_zero(B)) * nb * stride;
#pragma GCC unroll 4
      for (std::size_t g = 0; g < nb; ++g) {
        const U* p[nb];
#pragma GCC unroll 4
        for (std::size_t k = 0; k < nb; ++k) p[k] = base + bit_reverse(k, std::countr_zero(nb)) * stride + g * B;
        a[g * B + i] = load_blocks(p);
      }
    }
    within_blocks(a, r);
  }

 public:
  /// r[c] lane l ← r[l] lane c, as the classic transposes do it: within each 128-bit block by
  /// interleaving lanes (and then pairs of lanes, for 4-byte words) of neighbouring rows, then
  /// the blocks across vectors (256-bit halves, then neighbouring blocks: B = lanes a block,
  /// nb = blocks a vector). The unqualified calls are found by ADL, only where instantiated.
  /// (Rounds of ConcatEven/ConcatOdd, two-table permutes, took 48–50 cycles a 16 × 16 tile of
  /// 4-byte words on Zen 4 and 24 an 8 × 8 one of 8-byte words, loads and stores in L1; these
  /// 38–41 and 14–15: docs/benchmarks.md.)
  HWY_INLINE static void transpose(V* r) {
    const D d;
    V u[L];
    within_blocks(r, u);
    // u[g·B + j], block k: column k·B + j of rows g·B … g·B + B − 1; that block goes to r[k·B + j].
#pragma GCC unroll 4
    for (std::size_t j = 0; j < B; ++j) {
      if constexpr (nb == 1) {
        r[j] = u[j];
      } else if constexpr (nb == 2) {
        r[j] = ConcatLowerLower(d, u[B + j], u[j]);
        r[B + j] = ConcatUpperUpper(d, u[B + j], u[j]);
      } else {
        static_assert(nb == 4, "vectors of one, two or four 128-bit blocks");
        const V p0 = ConcatLowerLower(d, u[2 * B + j], u[j]), p2 = ConcatUpperUpper(d, u[2 * B + j], u[j]);
        const V p1 = ConcatLowerLower(d, u[3 * B + j], u[B + j]), p3 = ConcatUpperUpper(d, u[3 * B + j], u[B + j]);
        r[j] = OddEvenBlocks(SwapAdjacentBlocks(p1), p0);
        r[B + j] = OddEvenBlocks(p1, SwapAdjacentBlocks(p0));
        r[2 * B + j] = OddEvenBlocks(SwapAdjacentBlocks(p3), p2);
        r[3 * B + j] = OddEvenBlocks(p3, SwapAdjacentBlocks(p2));
      }
    }
  }

  /// The second half of a tile: r[s] holds row rev(s)'s vector of tile mid (rows 2^(m+q)
  /// words apart); transposed and stored into out in the order.
  template <bool kSequency, bool kStream>
  HWY_INLINE static void transpose_store(V* r, U* __restrict out, int m, std::size_t mid) {
    transpose(r);
    store_columns<kSequency, kStream>(r, out, m, mid);
  }

 private:
  static constexpr std::size_t B = std::min<std::size_t>(16 / sizeof(U), L), nb = L / B;

  /// u[g + j] lane b·B + i ← r[g + i] lane b·B + j for each group g of B vectors and each
  /// block b: the B × B transposes within 128-bit blocks.
  HWY_INLINE static void within_blocks(const V* r, V* u) {
    const D d;
    if constexpr (sizeof(U) == 4) {  // lanes, then pairs of lanes as one wide lane
      const hn::RepartitionToWide<D> dw;
#pragma GCC unroll 4
      for (std::size_t g = 0; g < L; g += 4) {
        const V t0 = InterleaveLower(d, r[g], r[g + 1]), t1 = InterleaveUpper(d, r[g], r[g + 1]);
        const V t2 = InterleaveLower(d, r[g + 2], r[g + 3]), t3 = InterleaveUpper(d, r[g + 2], r[g + 3]);
        u[g] = BitCast(d, InterleaveLower(dw, BitCast(dw, t0), BitCast(dw, t2)));
        u[g + 1] = BitCast(d, InterleaveUpper(dw, BitCast(dw, t0), BitCast(dw, t2)));
        u[g + 2] = BitCast(d, InterleaveLower(dw, BitCast(dw, t1), BitCast(dw, t3)));
        u[g + 3] = BitCast(d, InterleaveUpper(dw, BitCast(dw, t1), BitCast(dw, t3)));
      }
    } else {
#pragma GCC unroll 8
      for (std::size_t g = 0; g < L; g += 2) {
        u[g] = InterleaveLower(d, r[g], r[g + 1]);
        u[g + 1] = InterleaveUpper(d, r[g], r[g + 1]);
      }
    }
  }

  /// r[rev(a)] stored as vector a of tile mid's Paley vectors, or in sequency order: at the
  /// vector the Gray map sends it to, its lanes permuted. Sequency vector w of the tile is
  /// Paley vector a = gray(w), whose parity is w's low bit; its place within its row of
  /// vectors, low, is gray⁻¹(mid), or that with its m bits flipped where a is odd. Both walks
  /// go through the tile's vectors a pointer at a time, its step opaque, so that the compiler
  /// keeps no address a vector.
  template <bool kSequency, bool kStream>
  HWY_INLINE static void store_columns(const V* r, U* __restrict out, int m, std::size_t mid) {
    const D d;
    const std::size_t step = opaque(L << m);  // words from vector a to vector a + 1
    const auto put = [&](V v, U* to) {
      if constexpr (kStream) hn::Stream(v, d, to);
      else hn::StoreU(v, d, to);
    };
    if constexpr (!kSequency) {
      U* to = out + (mid << q);
#pragma GCC unroll 16
      for (std::size_t a = 0; a < L; ++a) {
        put(r[rev(a)], to);
        if (a + 1 < L) to = opaque(to + step);  // no pointer past the array's end
      }
    } else {
      const std::size_t low = gray_inverse(mid), odd_low = low ^ ((std::size_t{1} << m) - 1);
      // Lane table kGrayLanes[v & 1] of v = (w << m) | low: low's bit for the even w (0 where
      // m = 0), the other one for the odd w.
      const std::size_t e = low & 1;
      const auto even_lanes = hn::SetTableIndices(d, kGrayLanes[e].data());
      const auto odd_lanes = hn::SetTableIndices(d, kGrayLanes[e ^ 1].data());
      U* to_even = out + (low << q);
      U* to_odd = out + (odd_low << q) + step;
#pragma GCC unroll 8
      for (std::size_t w = 0; w < L; w += 2) {
        put(hn::TableLookupLanes(r[rev(w ^ (w >> 1))], even_lanes), to_even);
        put(hn::TableLookupLanes(r[rev((w + 1) ^ ((w + 1) >> 1))], odd_lanes), to_odd);
        if (w + 2 < L) {  // no pointer past the array's end
          to_even = opaque(to_even + 2 * step);
          to_odd = opaque(to_odd + 2 * step);
        }
      }
    }
  }
};

/// Words [from, rows·2^n) of `rows` rows of 2^n words, word by word: out[k] = in[k's row's
/// natural_index(k)] (where no vector fits).
template <class W>
void reorder_words(const W* __restrict in, W* __restrict out, std::size_t from, std::size_t rows, int n, Order order) {
  const std::size_t size = std::size_t{1} << n;
  for (std::size_t k = from; k < rows * size; ++k) out[k] = in[(k & ~(size - 1)) | natural_index(k & (size - 1), n, order)];
}

/// `rows` rows of 2^n words of U (uint32_t or uint64_t: the bits of any word of that size)
/// back to back, from in to out (in ≠ out), each into `order` (Paley or sequency), on a team of
/// `threads` (0: OpenMP's default) for rows of tiles.
template <class U>
class Reorder {
  using D = TileTag<U>;
  static constexpr std::size_t L = hn::MaxLanes(D());
  static constexpr int q = std::countr_zero(L);
  /// The narrowest tiles: 128-bit vectors (a lane a row: single words, nothing to transpose).
  static constexpr int kMinQ = std::countr_zero(16 / sizeof(U));

 public:
  /// Whether rows of 2^n words go through vectors, not word by word: rows no longer than a
  /// vector by one lane permutation per vector; longer ones in tiles, of vectors of 2^(n/2)
  /// lanes where n < 2q (rows of 2^4 … 2^7 floats on AVX-512 take tiles of 128 and 256 bits).
  static constexpr bool in_vectors(int n) {
    return q > 0 && ((n >= 1 && n <= q) || std::min(n / 2, q) >= kMinQ);
  }

  static void run(const U* __restrict in, U* __restrict out, std::size_t rows, int n, Order order, int threads) {
    std::size_t done = 0;  // words
    if constexpr (q > 0) {  // the scalar target has one lane, and no ConcatEven
      const std::size_t size = std::size_t{1} << n;
      if (n >= 1 && n <= q) {
        done = within_vectors(in, out, rows * size, n, order);
      } else if (in_vectors(n)) {
        for (std::size_t r = 0; r < rows; ++r) tile_row(in + r * size, out + r * size, n, order, threads);
        return;
      }
    }
    reorder_words(in, out, done, rows, n, order);  // no vector fits
  }

 private:
  /// Tiles of the widest vectors up to 2^(n/2) lanes.
  static void tile_row(const U* in, U* out, int n, Order order, int threads) {
    static_assert(q <= 4, "the cases below cover tiles of 2 … 16 lanes");
    if (n >= 2 * q) return Tiles<D>::row(in, out, n, order, threads);
    if constexpr (q >= 4 && kMinQ <= 3) {
      if (n / 2 == 3) return Tiles<hn::CappedTag<U, 8>>::row(in, out, n, order, threads);
    }
    if constexpr (q >= 3 && kMinQ <= 2) {
      if (n / 2 == 2) return Tiles<hn::CappedTag<U, 4>>::row(in, out, n, order, threads);
    }
    if constexpr (q >= 2 && kMinQ <= 1) {
      if (n / 2 == 1) return Tiles<hn::CappedTag<U, 2>>::row(in, out, n, order, threads);
    }
  }

  /// Rows of 2^n ≤ L words, L/2^n to a vector: each vector's lanes permuted (the same way for
  /// every vector); returns the words done (whole vectors).
  static std::size_t within_vectors(const U* __restrict in, U* __restrict out, std::size_t words, int n, Order order) {
    const D d;
    const auto idx = hn::SetTableIndices(d, lane_table(n, order));
    std::size_t i = 0;
    for (; i + L <= words; i += L) hn::StoreU(hn::TableLookupLanes(hn::LoadU(d, in + i), idx), d, out + i);
    return i;
  }

  /// within_vectors' lane indices for rows of 2^n ≤ L words in Paley or sequency order, made on
  /// the first call: made per call, they were 40 % of a sequency transform of one row of 2^4
  /// floats (docs/benchmarks.md).
  static const hwy::MakeSigned<U>* lane_table(int n, Order order) {
    struct Tables {
      alignas(64) hwy::MakeSigned<U> lanes[2][q + 1][L];
    };
    static const Tables tables = [] {
      Tables t{};
      for (int o = 0; o < 2; ++o)
        for (int k = 1; k <= q; ++k) {
          const std::size_t size = std::size_t{1} << k;
          for (std::size_t l = 0; l < L; ++l)
            t.lanes[o][k][l] = static_cast<hwy::MakeSigned<U>>(
                (l & ~(size - 1)) | natural_index(l & (size - 1), k, o == 0 ? Order::paley : Order::sequency));
        }
      return t;
    }();
    return tables.lanes[order == Order::sequency ? 1 : 0][n];
  }
};

/// WordKernels::reorder: words of 4 and 8 bytes as the unsigned integers of their size; wider
/// ones (the 128-bit ring), which no vector holds, word by word.
template <class W>
constexpr bool kVectorWord = sizeof(W) == 4 || sizeof(W) == 8;

/// The unsigned integer of W's size, for a vector word.
template <class W>
using BitsOf = std::conditional_t<sizeof(W) == 4, std::uint32_t, std::uint64_t>;

template <class W>
void reorder(const W* in, W* out, std::size_t rows, int n, Order order, int threads) {
  if constexpr (kVectorWord<W>)
    Reorder<BitsOf<W>>::run(reinterpret_cast<const BitsOf<W>*>(in), reinterpret_cast<BitsOf<W>*>(out), rows, n, order, threads);
  else
    reorder_words(in, out, 0, rows, n, order);
}

/// WordKernels::reorders_in_vectors.
template <class W>
bool reorders_in_vectors(int n) {
  if constexpr (kVectorWord<W>) return Reorder<BitsOf<W>>::in_vectors(n);
  else return false;
}

/// WordKernels::ordered: out ← scale · W·in in Paley or sequency order (in may be out;
/// scratch: room for 2^n words), the reordering fused into the transform's top sweep. The L
/// parts of 2^(n−q) words are transformed into the scratch, then one sweep of radix-L
/// codelets does the top q stages across them, scales, and hands the L vectors of each column,
/// which are exactly a tile's rows, to Tiles::transpose_store: the separate reordering's load
/// and store of every word are gone, and beyond the caches so is the transform's own top sweep
/// over memory. From kStreamedReorderBytes on the tiles' stores stream past the caches (they
/// land far apart, and a store to a line not in cache reads it first). Integer words (no
/// scale: the front end divides exactly) with limit ≥ 0 check each part's words as its walk
/// first reads them (wht_bounded, against the whole transform's limit); the parts go to the
/// scratch, so a part that fails leaves in and out as they were. Declined where it does not
/// apply: radix L above the target's codelets, parts smaller than an L1 leaf (L walks' set-up
/// cost more than the pass saved: 2^8 … 2^13 floats took 1.1–2.3× as long), and an out not
/// aligned to a vector from kStreamedReorderBytes on (the cpu backend then reorders through
/// its aligned scratch). (2^16 and 2^18 floats in sequency order: 0.0305–0.0308 and
/// 0.138–0.149 ms against 0.0338–0.0344 and 0.154–0.155 in two passes; the transposes, not the
/// pass, are most of what the reordering costs. Streamed, 2^22 … 2^25 floats and doubles took
/// 0.70–0.84× the time of a transform in place, a reordering into the scratch and a copy back:
/// docs/benchmarks.md.)
template <class T>
Fused ordered_wht(const T* in, T* out, T* scratch, int n, Order order, double scale, int threads, int limit,
                  const Geometry& g) {
  using Ops = OpsFor<T>;
  using D = TileTag<T>;  // the tiles' vectors: wider than the codelets' in avx2_128
  constexpr std::size_t L = hn::MaxLanes(D());
  constexpr int q = std::countr_zero(L);
  if constexpr (!kVectorWord<T> || q < 1 || q > kTargetRadixLog2) {
    return Fused::declined;
  } else {
    using V = hn::Vec<D>;
    using Tile = Tiles<D>;
    constexpr bool kFloat = std::is_floating_point_v<T>;
    const std::size_t bytes = sizeof(T) << n;
    const bool aligned = reinterpret_cast<std::uintptr_t>(out) % (L * sizeof(T)) == 0;
    if (n < 2 * q || (sizeof(T) << (n - q)) < g.leaf_bytes || (bytes >= kStreamedReorderBytes && !aligned))
      return Fused::declined;
    const int m = n - 2 * q;
    const std::size_t part = std::size_t{1} << (n - q);
    const int team = threads > 0 ? threads : omp_get_max_threads();
    const bool shared = team > 1 && bytes >= kParallelReorderBytes;
    const T factor = kFloat ? static_cast<T>(scale) : T(1);
    // Part p into the scratch: false if a word is beyond the limit.
    const auto transform_part = [&](std::ptrdiff_t p) {
      if constexpr (!kFloat) {
        if (limit >= 0) return Pipeline<Ops>::wht_bounded(in + p * part, scratch + p * part, n - q, 1, limit, g);
      }
      Pipeline<Ops>::wht(in + p * part, scratch + p * part, n - q, 1, 1.0, g);
      return true;
    };
    // Columns [t0, t1) on this thread, its streamed stores fenced before the team's barrier.
    const auto columns = [&]<bool kSequency, bool kStream>(std::ptrdiff_t t0, std::ptrdiff_t t1) {
      const D d;
      for (std::ptrdiff_t c = t0; c < t1; ++c) {
        const auto t = static_cast<std::size_t>(c);
        V v[L];
#pragma GCC unroll 16
        for (std::size_t s = 0; s < L; ++s) v[s] = hn::LoadU(d, scratch + s * part + (t << q));
        Ops::template radix_in_registers<static_cast<int>(L)>(v);
        V r[L];
#pragma GCC unroll 16
        for (std::size_t s = 0; s < L; ++s) {
          r[s] = v[Tile::rev(s)];
          if constexpr (kFloat) r[s] = factor == T(1) ? r[s] : hn::Mul(r[s], hn::Set(d, factor));
        }
        Tile::template transpose_store<kSequency, kStream>(r, out, m, bit_reverse(t, m));
      }
      if constexpr (kStream) hwy::FlushStream();
    };
    const bool sequency = order == Order::sequency, stream = bytes >= kStreamedReorderBytes;
    const auto sweep = [&](std::ptrdiff_t t0, std::ptrdiff_t t1) {
      if (sequency && stream) columns.template operator()<true, true>(t0, t1);
      else if (sequency) columns.template operator()<true, false>(t0, t1);
      else if (stream) columns.template operator()<false, true>(t0, t1);
      else columns.template operator()<false, false>(t0, t1);
    };
    const auto parts = static_cast<std::ptrdiff_t>(L), count = static_cast<std::ptrdiff_t>(std::size_t{1} << m);
    bool fits = true;
    if (shared) {
#pragma omp parallel num_threads(team)
      {
#pragma omp for schedule(static) reduction(&& : fits)
        for (std::ptrdiff_t p = 0; p < parts; ++p) fits = transform_part(p) && fits;
        if (fits) {  // the same value on every thread: the reduction's barrier came before
          const auto t = static_cast<std::ptrdiff_t>(omp_get_thread_num());
          const auto size = static_cast<std::ptrdiff_t>(omp_get_num_threads());
          sweep(count * t / size, count * (t + 1) / size);
        }
      }
    } else {
      for (std::ptrdiff_t p = 0; p < parts && fits; ++p) fits = transform_part(p);
      if (fits) sweep(0, count);
    }
    return fits ? Fused::done : Fused::exceeded;
  }
}

}  // namespace fastconv::cpu::FASTCONV_ISA
