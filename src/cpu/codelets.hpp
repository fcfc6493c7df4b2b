// src/cpu/codelets.hpp — the innermost WHT kernels ("codelets") of the cpu backend, for one
// instruction set (included only by kernels_isa.cpp, which is compiled once per instruction
// set; Highway's static target is the best one the compile flags enable).
//
// Two codelet families implement the same interface, used by the pass structure in
// passes.hpp:
//   SimdOps<T>   float, double, uint32, uint64 on Highway vectors of L lanes;
//   ScalarOps<W> any word (the 128-bit integer ring, and arrays shorter than one vector).
// The interface, for a contiguous array x of 2^m words:
//   kLanesLog2          log2 L (0 for ScalarOps)
//   kRadixLog2          how many stages the first sweep covers across vectors
//   kColumnsRadixLog2   how many stages a sweep across rows (columns*) covers at most
//   kMiddleInRegisters  whether columns_middle can do the dyadic middle (floating point)
//   first_sweep(x, m, src, upto, lead, pairs)
//                       stages 0 … min(upto, kLanesLog2 + kRadixLog2) − 1 (upto ≤ m; m if
//                       not given): the in-vector stages by lane permutations, then the
//                       first cross-vector stages; returns the number of stages done. With
//                       src (not null, not x), the words are read from src: an out-of-place
//                       transform's copy rides on it. With upto < m, each run of 2^upto
//                       words is transformed on its own (a batch of short rows). With lead,
//                       it prefetches into L2 what it will read kLeadBytes on (SimdOps);
//                       pairs: Geometry::lane_pair_loads (SimdOps::with_pair_loads)
//   copy(dst, src, count)
//   columns(x, h, k, j0, j1)
//                       k ≤ kColumnsRadixLog2 stages across 2^k rows h words apart, on
//                       columns j0 … j1−1: 2^k vectors loaded, transformed in registers
//                       and stored
//   columns_scaled(x, h, k, j0, j1, factor)
//                       columns(), every word times factor before it is stored
//   columns_to(src, hs, dst, hd, k, count, stream, factor)
//                       k ≤ kColumnsRadixLog2 stages across 2^k rows of src (hs apart) on
//                       columns 0 … count−1, stored to the rows of dst (hd apart), each word
//                       times factor first (floating point; 1 leaves them); k = 0 copies.
//                       src and dst do not overlap (ScalarOps also takes src = dst).
//                       With stream (and dst aligned to a vector), the stores bypass the
//                       caches: the caller ends its streaming with hwy::FlushStream()
//   columns_middle(x, h, k, j0, j1, s, op, factor, s_pending)
//                       columns(), each word combined with s at its own index, columns()
//                       again, in registers; with s_pending (multiply only), s's words
//                       still lack these k stages, and the codelet does them on s's
//                       vectors first (s itself is not written); false (nothing done)
//                       where it cannot
//   below(x, count, limit)
//                       integer words: whether every x[i], read as a signed word, has
//                       |x[i]| < 2^limit (limit below the word's width)
// 16-bit floats (SimdOps<float>::kHalves: float16, bfloat16 words, computed in float):
//   first_sweep and copy also read them, widening each word exactly; columns_to also
//   writes them, rounding each result once to nearest even;
//   first_sweep_only(x, m, upto, factor, route, pairs)
//                       rows of 2^upto of them that the first sweep covers whole,
//                       transformed in place in its registers; with a route (SimdOps'
//                       route_for, for T words too), also put into Paley or sequency order
//                       there
//
// Every codelet performs exactly the butterflies of the radix-2 network, in the same stage
// order, so float results of a transform are bitwise identical to the textbook loop's (a
// scaled one: the textbook loop's, then scaled).
#pragma once

#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/order.hpp"

namespace fastconv::cpu::FASTCONV_ISA {

namespace hn = hwy::HWY_NAMESPACE;

/// The codelets' vectors of T: the widest the target has, or FASTCONV_CPU_VECTOR_BYTES wide in
/// a copy built narrower (avx2_128, src/CMakeLists.txt: AVX2's instructions on 128-bit vectors,
/// for CPUs whose floating-point units are 128 bits wide. There a 256-bit operation costs two,
/// and the in-vector stage across its halves eight (vperm2f128 on AMD Zen): on the first-Zen VM
/// the transforms of floats, doubles, int32 and int64 at 2^10 … 2^22 ran 1.01–1.24× faster on
/// 128-bit vectors than on 256-bit ones; docs/benchmarks.md).
#ifdef FASTCONV_CPU_VECTOR_BYTES
template <class T>
using VectorTag = hn::CappedTag<T, FASTCONV_CPU_VECTOR_BYTES / sizeof(T)>;
#else
template <class T>
using VectorTag = hn::ScalableTag<T>;
#endif

/// The reorderings' tiles of T (permute.hpp): L × L words in the target's full vectors, at most
/// 16 lanes (16 registers), also where VectorTag is narrower. (With avx2_128's 4 × 4 tiles of
/// floats, sequency order at 2^14 … 2^20 took 1.09–1.48× as long as with 8 × 8 ones.)
template <class T>
using TileTag = hn::CappedTag<T, 16>;

/// Registers the target has: radix-16 butterflies fit in 32, radix-8 in 16. (Radix 16 with
/// 16 AVX2 registers spills: measured 1.5–2× slower, even in memory-bound sweeps, stage after
/// stage; SimdOps::sixteen_columns orders it to spill two vectors per 16, for the sweeps
/// across rows of the AVX2 copies.)
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_SVE || \
    HWY_TARGET == HWY_NEON
inline constexpr int kTargetRadixLog2 = 4;
#else
inline constexpr int kTargetRadixLog2 = 3;
#endif

/// Which butterflies of SimdOps::radix_in_registers run on the FMA units (floating point):
/// the target's rule, every one, or one in four.
enum class OnFma { target, all, quarter };

/// Lines that a sweep pulls into L2 as it goes, kLinesPerStep each time its codelet loop
/// moves on to the next columns, from `next` up to `end` (passes.hpp: the next block's first
/// half, during a block's sweeps in L2). Spread over the loop, the prefetches overlap the
/// sweep's arithmetic; a burst of them would wait on the line fill buffers.
struct Prefetch {
  static constexpr int kLinesPerStep = 2;
  static constexpr std::size_t kLineBytes = 64;
  const char* next = nullptr;
  const char* end = nullptr;
  bool pending() const { return next < end; }
  HWY_INLINE void step() {
    if (next < end) {
      for (int i = 0; i < kLinesPerStep; ++i) __builtin_prefetch(next + i * kLineBytes, 0, 2);  // into L2
      next += kLinesPerStep * kLineBytes;
    }
  }
};

/// How a sweep's codelet walks its columns (SimdOps::columns_r): in place; reading row r of
/// its rows r vectors (and `offset` words) further on than it writes it (rows that were
/// rotated by their index: Pipeline::skewed_sweep); reading and writing row r r vectors on
/// (rows rotated so, swept in place: Pipeline::skewed_in_place); or writing each column
/// `offset` words further on than it read it, the last column first, so that every word is
/// read before it is overwritten (a part rotated as its last sweep stores it:
/// Pipeline::rotated_sweep).
enum class Walk { in_place, skewed_reads, skewed, shifted_writes };

/// Element-wise step of a fused dyadic convolution: y ← f · (y ⊙ S), f·y², or f · (y ⊘ S).
template <class W>
inline W combine_one(W y, W s, DyadicOp op, W factor) {
  switch (op) {
    case DyadicOp::multiply: return y * s * factor;
    case DyadicOp::square: return y * y * factor;
    case DyadicOp::divide: return y / s * factor;
  }
  return y;
}

/// y[k] ← combine(y[k], S[(offset + k) & mask]) for k < count; rings ignore `factor` = 1.
template <class W>
inline void combine_range(W* __restrict y, std::size_t count, DyadicOp op, const W* __restrict s,
                          std::size_t offset, std::size_t mask, W factor) {
  if (op == DyadicOp::square) {
    for (std::size_t k = 0; k < count; ++k) y[k] = combine_one(y[k], y[k], op, factor);
    return;
  }
  const std::size_t start = offset & mask;
  if (start + count <= mask + 1) {  // one contiguous run of S: vectorisable
    const W* __restrict run = s + start;
    if (op == DyadicOp::multiply)
      for (std::size_t k = 0; k < count; ++k) y[k] = y[k] * run[k] * factor;
    else
      for (std::size_t k = 0; k < count; ++k) y[k] = y[k] / run[k] * factor;
    return;
  }
  for (std::size_t k = 0; k < count; ++k) y[k] = combine_one(y[k], s[(offset + k) & mask], op, factor);
}

/// What a bounded first sweep (first_sweep_bounded) did: the words it transformed, from the
/// first (all of them where every check passed), and the stages it did to them.
struct BoundedSweep {
  std::size_t words;
  int stages;
};

/// The codelets on plain words, one at a time.
template <class W>
struct ScalarOps {
  using Word = W;
  static constexpr int kLanesLog2 = 0;
  static constexpr int kRadixLog2 = 3;
  static constexpr int kColumnsRadixLog2 = kRadixLog2;
  static constexpr bool kMiddleInRegisters = false;

  /// src: words of W, or 16-bit floats widened to float (SimdOps<float>::kHalves).
  template <class Src = W>
  static int first_sweep(W* x, int m, const Src* src = nullptr, int upto = -1, bool /*lead*/ = false,
                         bool /*pairs*/ = true) {
    if (upto < 0 || upto > m) upto = m;
    const int k = upto < kRadixLog2 ? upto : kRadixLog2;
    const std::size_t n = std::size_t{1} << m;
    if (src != nullptr) copy(x, src, n);
    for (std::size_t base = 0; base < n; base += std::size_t{1} << k) columns(x + base, 1, k, 0, 1);
    return k;
  }

  template <class Src>
  static void copy(W* __restrict dst, const Src* __restrict src, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) dst[k] = static_cast<W>(src[k]);
  }

  static bool below(const W* x, std::size_t count, int limit) {
    using S = std::make_signed_t<W>;
    W magnitudes = 0;  // OR of |x[i]|: below 2^limit exactly when every one is
    for (std::size_t k = 0; k < count; ++k) {
      const auto v = static_cast<S>(x[k]);
      magnitudes |= v < 0 ? static_cast<W>(W(0) - static_cast<W>(v)) : static_cast<W>(v);
    }
    return (magnitudes >> limit) == 0;
  }

  /// columns(), each word of those columns then multiplied by `factor` (floating point).
  static void columns_scaled(W* x, std::size_t h, int k, std::size_t j0, std::size_t j1, W factor) {
    columns_to(x + j0, h, x + j0, h, k, j1 - j0, false, factor);
  }

  /// The fused middle of SimdOps; plain words take the three-step path.
  static bool columns_middle(W*, std::size_t, int, std::size_t, std::size_t, const W*, DyadicOp, W, bool) {
    return false;
  }

  static void columns(W* x, std::size_t h, int k, std::size_t j0, std::size_t j1) {
    columns_to(x + j0, h, x + j0, h, k, j1 - j0, false, W(1));
  }
  /// columns(): SimdOps gives sweeps within L1 a codelet of their own.
  static void columns_in_l1(W* x, std::size_t h, int k, std::size_t j0, std::size_t j1) { columns(x, h, k, j0, j1); }

  /// src may equal dst (each column is read whole before it is written); `stream` is ignored.
  /// Dst: W, or a 16-bit float that each result is rounded to.
  template <class Dst>
  static void columns_to(const W* src, std::size_t hs, Dst* dst, std::size_t hd, int k, std::size_t count, bool,
                         W factor) {
    for (std::size_t j = 0; j < count; ++j) {
      W v[16];  // up to radix 16: SimdOps hands its own sweeps over for short rows
      for (int r = 0; r < (1 << k); ++r) v[r] = src[j + r * hs];
      for (int t = 1; t < (1 << k); t *= 2)
        for (int i = 0; i < (1 << k); i += 2 * t)
          for (int q = i; q < i + t; ++q) {
            const W a = v[q], b = v[q + t];
            v[q] = a + b;
            v[q + t] = a - b;
          }
      if constexpr (std::is_floating_point_v<W>)
        if (factor != W(1))
          for (int r = 0; r < (1 << k); ++r) v[r] *= factor;
      for (int r = 0; r < (1 << k); ++r) dst[j + r * hd] = static_cast<Dst>(v[r]);
    }
  }
};

/// The codelets on Highway vectors of L = 2^kLanesLog2 lanes of T.
template <class T>
struct SimdOps {
  using Word = T;
  using D = VectorTag<T>;
  using V = hn::Vec<D>;
  static constexpr std::size_t kLanes = hn::MaxLanes(D());
  static_assert((kLanes & (kLanes - 1)) == 0, "lane count must be a power of two");
  static constexpr int kLanesLog2 = std::countr_zero(kLanes);
  static constexpr int kRadixLog2 = kTargetRadixLog2;
  /// The sweeps across rows: radix 16 also in the AVX2 copies (avx2, avx2_128), whose 16
  /// registers hold it with two vectors spilled (sixteen_columns); passes.hpp takes it there
  /// only where it saves a sweep and its rows do not share L1 sets. On the first-Zen VM
  /// (avx2_128) 2^12 and 2^15 floats, 2^11 and 2^14 doubles ran 1.11–1.16× faster; with
  /// the avx2 copy on the Intel Xeon VM of 2026-12-04 (together with the 256-bit floats'
  /// loads of lane_stages_of) floats at 2^10 … 2^22 ran 1.01–1.17× faster and doubles
  /// 0.99–1.15× (docs/benchmarks.md).
#if HWY_TARGET == HWY_AVX2
  static constexpr int kColumnsRadixLog2 = 4;
#else
  static constexpr int kColumnsRadixLog2 = kRadixLog2;
#endif
  static constexpr bool kFloat = std::is_floating_point_v<T>;
  static constexpr bool kMiddleInRegisters = kFloat;

  /// a, b ← a + b, a − b. (VV: V, or a wider vector of T: the reorderings' tiles, TileTag.)
  template <class VV>
  static HWY_INLINE void butterfly(VV& a, VV& b) {
    const VV s = hn::Add(a, b);
    b = hn::Sub(a, b);
    a = s;
  }

  /// The same butterfly on the FMA units: a, b ← b·1 + a, −(b·1) + a (exact: b·1 is b).
  template <class VV>
  static HWY_INLINE void butterfly_on_fma(VV& a, VV& b) {
    const VV one = hn::Set(hn::DFromV<VV>(), T(1));
    const VV s = hn::MulAdd(b, one, a);
    b = hn::NegMulAdd(b, one, a);
    a = s;
  }

  /// All log2 R stages over R vectors held in registers, vector r belonging to row r (VV: V,
  /// or the wider vectors of TileTag).
  ///
  /// Radix 8 and 16 on 32-register targets, floating point (the first sweep's rule): every
  /// other butterfly of floats runs on the FMA units, one in four of doubles. AMD Zen 4 adds on
  /// two pipes and multiplies-adds on two others, and one add per vector and stage kept the two
  /// adders the limit of these sweeps: with every other butterfly on the FMA units, floats at
  /// 2^14 … 2^21 ran 1.05–1.20× faster, doubles at 2^11 … 2^16 1.05–1.07×; at radix 8 (the
  /// sweeps across L1 leaves) a sweep in L1 went from 3.0 to 2.6 cycles per vector, whole
  /// transforms 1.01–1.02×. The first sweep's in-vector stages put their FMAs on those units
  /// too, and for doubles one butterfly in four there instead of every other took 2^8 … 2^20
  /// 1.02–1.07× faster (one in eight did as well); the floats' first sweep, with one
  /// in-vector stage more, gained from neither (docs/benchmarks.md). The sweeps after the
  /// first take one in four (column_stages). At radix 4 and below the stores are the limit.
  /// (On Intel's AVX-512 cores adds and FMAs share their ports at the same latency, which
  /// changes nothing; on Zen 2/3 with AVX2, 16 registers, it measured slower, and on the
  /// first Zen's 128-bit vectors (avx2_128) no faster: every other butterfly of the radix-8
  /// sweeps 0.96–1.14× in two runs at 2^8 … 2^20 floats, no size faster in both; all those of
  /// the sweeps after the first 0.94–1.03×.)
  ///
  /// kOnFma (floating point) overrides that rule: OnFma::all, every butterfly on the FMA
  /// units; OnFma::quarter, the last of every four (column_stages).
  template <int kR, int kT = 1, OnFma kOnFma = OnFma::target, class VV>
  static HWY_INLINE void radix_in_registers(VV* v) {
    if constexpr (kT < kR) {
      // Butterfly p of this stage pairs rows q and q + kT.
#pragma GCC unroll 16
      for (int p = 0; p < kR / 2; ++p) {
        const int q = (p / kT) * 2 * kT + p % kT;
        if constexpr (kFloat) {
          // One butterfly in kEvery on the FMA units (0: none).
          constexpr int kEvery = kOnFma == OnFma::all       ? 1
                                 : kOnFma == OnFma::quarter ? 4
                                 : kR >= 8 && kTargetRadixLog2 >= 4 ? (sizeof(T) == 8 ? 4 : 2)
                                                                    : 0;
          if (kEvery > 0 && p % kEvery == kEvery - 1) {
            butterfly_on_fma(v[q], v[q + kT]);
            continue;
          }
        }
        butterfly(v[q], v[q + kT]);
      }
      radix_in_registers<kR, 2 * kT, kOnFma>(v);
    }
  }

  /// Whether the sweeps after the first run every radix-8 and radix-16 butterfly on the FMA
  /// units: in the avx2_128 copy, made for the first Zen, whose adders also carry the vector
  /// stores (a radix-8 sweep's loop in L1 took 2.2 cycles a 128-bit vector with adds, 1.6 on the FMA
  /// units; whole transforms of floats and doubles at 2^10 … 2^22 1.01–1.08× faster). Not the first sweep, whose in-vector stages already load those units (its loop
  /// in L1 took 4.1 cycles a vector with adds, 4.4 with every other butterfly on them), nor
  /// radix 4 and below, where the stores are the limit.
#ifdef FASTCONV_CPU_VECTOR_BYTES
  static constexpr bool kColumnsOnFma = kFloat;
#else
  static constexpr bool kColumnsOnFma = false;
#endif

  /// Whether the radix-8 sweeps within an L1 leaf (columns_in_l1) run one butterfly in four
  /// (the last of each stage) on the FMA units: in the avx2 copy (256-bit vectors, 16
  /// registers). AMD Zen 3 adds on two pipes and multiplies-adds on two others, but those
  /// take fewer butterflies than the adders: a one-off radix-8 loop over 16 KiB in L1 took
  /// 1.13 TSC ticks a vector with adds alone, 0.92–0.96 with one butterfly in four on the FMA
  /// units, 1.15–1.25 with every other one (the 32-register rule, which had measured slower
  /// here) and 1.60 with all; this codelet alone 1.17 and 0.95–1.06. Transforms of 2^12 floats
  /// and 2^11 doubles, whose leaves take two radix-8 sweeps, ran 1.05–1.08× and 1.02–1.06×
  /// faster; the sweeps across leaves, their rows from L2 and beyond, gained nothing beyond
  /// noise with it, and keep the adders (docs/benchmarks.md). The radix-16 sweeps within a
  /// leaf (sixteen_columns) do the same, the last butterfly of each four: 2^10, 2^13, 2^16
  /// and 2^19 floats 1.02–1.08× faster, doubles 2^12, 2^15 and 2^18 1.04–1.07× (best of six
  /// rounds in an A/B on the Zen 3 VM, 2026-12-06), the other sizes within noise.
#if HWY_TARGET == HWY_AVX2 && !defined(FASTCONV_CPU_VECTOR_BYTES)
  static constexpr bool kQuarterOnFma = kFloat;
#else
  static constexpr bool kQuarterOnFma = false;
#endif

  /// radix_in_registers for the sweeps after the first (columns_r, columns_to_r, columns_middle_r);
  /// kInL1: a sweep within an L1 leaf (columns_in_l1). On 32-register targets, one butterfly
  /// in four of radix 8 and 16 on the FMA units, not every other as in the first sweep: on the
  /// AMD EPYC Zen 4 VM a one-off radix-8 loop took 1.57 TSC ticks a vector in L1 so against
  /// 1.83, 1.82–2.06 in L2 against 1.90–2.23, and radix 16 in L1 2.59 against 2.79; whole
  /// transforms of floats at 2^11 … 2^23 1.01–1.06× faster at 10 of the 13 sizes, 0.99–1.00×
  /// at the others (docs/benchmarks.md).
  template <int kR, bool kInL1 = false>
  static HWY_INLINE void column_stages(V* v) {
    constexpr OnFma kOnFma = kColumnsOnFma && kR >= 8                  ? OnFma::all
                             : kQuarterOnFma && kInL1 && kR == 8        ? OnFma::quarter
                             : kTargetRadixLog2 >= 4 && kR >= 8         ? OnFma::quarter
                                                                        : OnFma::target;
    radix_in_registers<kR, 1, kOnFma>(v);
  }

  /// Whether the codelets also read and write 16-bit floats (float16, bfloat16) for float
  /// words: from AVX2 on, whose flags here include F16C (Highway's float16 conversions are
  /// then vcvtph2ps and vcvtps2ph, rounding to nearest even as fastconv/types.hpp does; before
  /// that Highway 1.0.3 truncates).
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  static constexpr bool kHalves = std::is_same_v<T, float>;
#else
  static constexpr bool kHalves = false;
#endif

  static HWY_INLINE V load(const T* p) { return hn::LoadU(D(), p); }
  static HWY_INLINE void store(V v, T* p) { hn::StoreU(v, D(), p); }

  /// 16-bit floats (kHalves): widened exactly as they are loaded, rounded to nearest even as
  /// they are stored, NaNs quiet with their payload's top kept: the bits of fastconv/types.hpp.
  static HWY_INLINE V load(const float16* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(D(), hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  static HWY_INLINE void store(V v, float16* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
  }
  static HWY_INLINE V load(const bfloat16* p) {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<std::uint16_t, D> d16;
    return hn::BitCast(D(), hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(p)))));
  }
  static HWY_INLINE void store(V v, bfloat16* p) {
    const hn::RebindToUnsigned<D> du;
    const hn::RebindToSigned<D> di;
    const hn::Rebind<std::uint16_t, D> d16;
    const auto bits = hn::BitCast(du, v);
    const auto high = hn::ShiftRight<16>(bits);
    // bfloat16_bits(): a carry out of the kept fraction moves to the next binade, or to infinity.
    const auto rounded = hn::ShiftRight<16>(hn::Add(hn::Add(bits, hn::Set(du, 0x7fffu)), hn::And(high, hn::Set(du, 1u))));
    const auto quiet_nan = hn::Or(high, hn::Set(du, 0x40u));
    const auto word = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet_nan, rounded);
    // Every word is below 2^16: the saturating demotion from int32 keeps it.
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, word)), d16, reinterpret_cast<std::uint16_t*>(p));
  }

  /// Per-stage constants of the in-vector stages: which lanes are the upper half of their
  /// butterfly (floats: as a ±1 multiplier).
  struct LaneStages {
    V sign[kLanesLog2 > 0 ? kLanesLog2 : 1];
    hn::Mask<D> upper[kLanesLog2 > 0 ? kLanesLog2 : 1];
    HWY_INLINE LaneStages() {  // inlined: a call for these few instructions was 6 % of a 2^3 transform
      const D d;
      const hn::RebindToUnsigned<D> du;
      using U = hn::TFromD<decltype(du)>;
      const auto lane = hn::Iota(du, U{0});
      for (int i = 0; i < kLanesLog2; ++i) {
        upper[i] = hn::RebindMask(d, hn::TestBit(lane, hn::Set(du, static_cast<U>(U{1} << i))));
        if constexpr (kFloat || kSignedLanes) sign[i] = hn::IfThenElse(upper[i], hn::Set(d, T(-1)), hn::Set(d, T(1)));
      }
    }
  };

  /// Whether 32-bit integer lanes take vpsignd (SSSE3 and AVX2; AVX-512 has none, and blends
  /// by mask in one instruction anyway): an in-vector stage is then a shuffle, v's sign flipped
  /// in the upper lanes (flip_sign, by c.sign) and one add, instead of an add, a subtract and a
  /// blend after the shuffle. The ring's words wrap alike: −v of 2^31 is 2^31 either way.
#if HWY_TARGET == HWY_AVX2
  static constexpr bool kSignedLanes = !kFloat && sizeof(T) == 4;
  static HWY_INLINE V flip_sign(V v, V s) {
    if constexpr (kLanes * sizeof(T) == 16) return V{_mm_sign_epi32(v.raw, s.raw)};  // avx2_128
    else return V{_mm256_sign_epi32(v.raw, s.raw)};
  }
#elif HWY_TARGET == HWY_SSE4
  static constexpr bool kSignedLanes = !kFloat && sizeof(T) == 4;
  static HWY_INLINE V flip_sign(V v, V s) { return V{_mm_sign_epi32(v.raw, s.raw)}; }
#else
  static constexpr bool kSignedLanes = false;
#endif

  /// The lanes of v with lane index bit i flipped (single-lane targets have none).
  template <int kI>
  static HWY_INLINE V partner(V v) {
#if HWY_TARGET == HWY_SCALAR
    return v;
#else
    constexpr std::size_t bytes = sizeof(T) << kI;
    if constexpr (bytes == 4) return hn::Shuffle2301(v);
    else if constexpr (bytes == 8 && sizeof(T) == 4) return hn::Shuffle1032(v);
    else if constexpr (bytes == 8) return hn::Shuffle01(v);
    else if constexpr (bytes == 16) return hn::SwapAdjacentBlocks(v);
    else {
      static_assert(bytes == 32, "vectors wider than 512 bits are not handled");
      return hn::ConcatLowerUpper(D(), v, v);
    }
#endif
  }

  /// In-vector stages kI … kEnd − 1.
  template <int kI = 0, int kEnd = kLanesLog2>
  static HWY_INLINE V lane_stages(V v, const LaneStages& c) {
    if constexpr (kI >= kEnd) {
      return v;
    } else {
      const V p = partner<kI>(v);
      // Lower lane: v + p; upper lane: p − v (its partner p is the lower element).
      if constexpr (kFloat) v = hn::MulAdd(v, c.sign[kI], p);
      else if constexpr (kSignedLanes) v = hn::Add(p, flip_sign(v, c.sign[kI]));  // shuffle, sign, add
      else v = hn::IfThenElse(c.upper[kI], hn::Sub(p, v), hn::Add(v, p));
      return lane_stages<kI + 1, kEnd>(v, c);
    }
  }

  /// lane_stages() of the vector at p, as loaded: the first in-vector stage takes its two
  /// operands straight from memory, the even and the odd words each duplicated into their
  /// pair of lanes (vmovsldup and vmovshdup for 4-byte words, vmovddup at p and p + 1 for
  /// 8-byte ones), and one FMA (floats) or add and subtract (integers): no shuffle. Those
  /// loads take none of the vector ALU ports that the shuffle would. On the first Zen
  /// (avx2_128) 12 adds and FMAs took the same time with or without 6 such loads beside them,
  /// and 1.2 cycles more with 6 vpermilps from memory; on the Intel Xeon VM of 2026-12-04
  /// (avx512, whose 512-bit shuffles and arithmetic share two ports) floats and int32 at
  /// 2^8 … 2^18 ran 1.04–1.08× faster, int64 1.02–1.07×, doubles 1.01–1.05×
  /// (docs/benchmarks.md). Bitwise the same words: a0 + a1 and a0 − a1, each rounded once.
  /// The odd 8-byte words of a vector wider than 128 bits take a load that reads one word
  /// past its end (into a 128-bit register vmovddup reads only the word it duplicates): only
  /// with kNextReadable, where the next vector is the caller's too, and not in the avx2 copy
  /// for doubles (kLoadsOddWords). (16-bit floats, Src of kHalves, are widened as loaded, and
  /// shuffled.) !kPairLoads: one load and the shuffle (kChoosesPairLoads).
  template <bool kNextReadable = false, bool kPairLoads = true, class Src>
  static HWY_INLINE V lane_stages_of(const Src* p, const LaneStages& c) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kPairLoads && std::is_same_v<Src, T> &&
                  (sizeof(T) == 4 || kLanes == 2 || (kNextReadable && kLoadsOddWords))) {
      const auto [even, odd] = even_and_odd_words(p);
      if constexpr (kFloat) return lane_stages<1>(hn::MulAdd(odd, c.sign[0], even), c);
      else if constexpr (kSignedLanes) return lane_stages<1>(hn::Add(even, flip_sign(odd, c.sign[0])), c);
      else return lane_stages<1>(hn::IfThenElse(c.upper[0], hn::Sub(even, odd), hn::Add(even, odd)), c);
    }
#endif
    return lane_stages(load(p), c);
  }

  /// Whether 8-byte words in vectors wider than 128 bits take their odd words by the load
  /// at p + 1 (lane_stages_of). Not the avx2 copy's doubles: that load straddles two lines
  /// for every other vector, and where the first sweep reads from L2 or beyond (the leaves of
  /// every array larger than one) a one-off first sweep of doubles on the AMD EPYC Zen 3 VM
  /// took 2.15–2.23 TSC ticks a vector so, 1.94–1.99 with the in-register shuffle (1.82–1.87
  /// against 1.87–1.91 in L1); whole transforms of 2^13 … 2^20 doubles 1.015–1.027× faster,
  /// 2^10 … 2^12 the same. int64 keeps the load (with the shuffle 0.98–1.00× at 2^10 … 2^20),
  /// and so does the AVX-512 copy, whose doubles gained 1.01–1.05× with it on the Xeon VM
  /// (docs/benchmarks.md).
#if HWY_TARGET == HWY_AVX2 && !defined(FASTCONV_CPU_VECTOR_BYTES)
  static constexpr bool kLoadsOddWords = !kFloat;
#else
  static constexpr bool kLoadsOddWords = true;
#endif

  /// Whether the first sweeps take lane_stages_of's loads or its shuffle as the Geometry says
  /// (Geometry::lane_pair_loads, with_pair_loads): the AVX-512 copy, which both Intel's and
  /// AMD's cores run. On the Intel Xeon VM of model 207 the loads took every word type at
  /// 2^8 … 2^18 1.01–1.08× faster. On the AMD EPYC Zen 4 VM a 512-bit `vmovsldup` or
  /// `vmovddup` from memory takes a shuffle pipe as well as a load (two of them beside six
  /// `vpermilps` took as long as eight `vpermilps`, two plain loads as long as six), so the
  /// loads save no shuffle there and add a load, and the doubles' loads at p + 1 straddle two
  /// lines (1.6× a load within one); the shuffle took 2^8 … 2^21 floats 1.03–1.06× faster,
  /// doubles 1.05–1.12×, int32 1.03–1.07× and int64 1.01–1.05× (best of 5 rounds; 2^22, in
  /// the L3, 0.97–1.05×; docs/benchmarks.md). The other copies keep their own rule.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  static constexpr bool kChoosesPairLoads = true;
#else
  static constexpr bool kChoosesPairLoads = false;
#endif

  /// f(kPairLoads), a std::bool_constant: whether first sweeps over words from Src take
  /// lane_stages_of's loads; `pairs` (Geometry::lane_pair_loads) decides where the copy may
  /// choose and the words are T's own (16-bit floats are shuffled either way).
  template <class Src, class F>
  static HWY_INLINE decltype(auto) with_pair_loads(bool pairs, F&& f) {
    if constexpr (kChoosesPairLoads && std::is_same_v<Src, T>) {
      if (!pairs) return f(std::false_type{});
    }
    return f(std::true_type{});
  }

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  struct EvenAndOdd {
    V even, odd;
  };
  /// The vector at p with each even word, and with each odd word, duplicated into its pair of
  /// lanes; 8-byte words of vectors wider than 128 bits read p[kLanes] too. (Inline assembly:
  /// from intrinsics the compiler merges the two loads of one address and shuffles in
  /// registers.)
  static HWY_INLINE EvenAndOdd even_and_odd_words(const T* p) {
    struct Words {
      T w[kLanes];
    };
    const auto& words = *reinterpret_cast<const Words*>(p);
    decltype(V{}.raw) even, odd;  // __m128, __m256 or __m512, of floats, doubles or integers
    if constexpr (sizeof(T) == 4) {
      asm("vmovsldup %1, %0" : "=v"(even) : "m"(words));
      asm("vmovshdup %1, %0" : "=v"(odd) : "m"(words));
    } else {
      asm("vmovddup %1, %0" : "=v"(even) : "m"(words));
      asm("vmovddup %1, %0" : "=v"(odd) : "m"(*reinterpret_cast<const Words*>(p + 1)));
    }
    return {V{even}, V{odd}};
  }
#endif

  /// Indices of lane selections, as the tables of TableLookupLanes take them.
  using Index = hwy::MakeSigned<T>;
  /// Whole rows in the first sweep's registers into Paley or sequency order (order.hpp).
  using Route = RowRoute<kLanes, Index, kRadixLog2>;

  /// The route of rows of 2^n words into `order` (paley or sequency) in the first sweep's
  /// registers, made on first use; null where the first sweep does not hold such rows whole
  /// or cannot route them. (256 rows of 2^2 … 2^8 floats took 1.5–4.6× the time of natural
  /// order when reordered after the transform, through scratch and a copy back; 0.98–1.6× so,
  /// on the Xeon VM: docs/benchmarks.md.)
  static const Route* route_for(int n, Order order) {
    constexpr int kMaxLog2 = kLanesLog2 + kRadixLog2;
    if (n < 0 || n > kMaxLog2 || order == Order::hadamard) return nullptr;
    struct Routes {
      Route route[2][kMaxLog2 + 1];
      bool made[2][kMaxLog2 + 1];
    };
    static const std::unique_ptr<const Routes> routes = [] {
      auto r = std::make_unique<Routes>();
      for (int o = 0; o < 2; ++o)
        for (int m = 0; m <= kMaxLog2; ++m)
          r->made[o][m] = r->route[o][m].make(m, o == 0 ? Order::paley : Order::sequency);
      return r;
    }();
    const int o = order == Order::paley ? 0 : 1;
    return routes->made[o][n] ? &routes->route[o][n] : nullptr;
  }

  /// Lane l of the result: lane idx[l] of a, or lane idx[l] − L of b (idx[l] ≥ L).
  static HWY_INLINE V two_tables(V a, V b, const Index* HWY_RESTRICT idx) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // One vpermt2ps/pd/d/q; Highway 1.0.3 has no two-table lookup.
    const __m512i i = _mm512_load_si512(idx);
    if constexpr (std::is_same_v<T, float>) return V{_mm512_permutex2var_ps(a.raw, i, b.raw)};
    else if constexpr (std::is_same_v<T, double>) return V{_mm512_permutex2var_pd(a.raw, i, b.raw)};
    else if constexpr (sizeof(T) == 4) return V{_mm512_permutex2var_epi32(a.raw, i, b.raw)};
    else return V{_mm512_permutex2var_epi64(a.raw, i, b.raw)};
#else
    const D d;
    const hn::RebindToSigned<D> di;
    const auto i = hn::Load(di, idx);
    const auto lanes = hn::IndicesFromVec(d, hn::And(i, hn::Set(di, static_cast<Index>(kLanes - 1))));
    const auto second = hn::RebindMask(d, hn::TestBit(i, hn::Set(di, static_cast<Index>(kLanes))));
    return hn::IfThenElse(second, hn::TableLookupLanes(b, lanes), hn::TableLookupLanes(a, lanes));
#endif
  }

  /// A row held in kR registers into the order of `route` (route.rounds = log2 kR): round kJ
  /// and the ones after it, each pair of registers kJ apart made from lanes of both.
  template <int kR, int kJ = 1>
  static HWY_INLINE void route_registers(V* v, const Route& route) {
    if constexpr (kR == 1) {
      v[0] = hn::TableLookupLanes(v[0], hn::SetTableIndices(D(), route.lanes[0][0]));
    } else if constexpr (kJ < kR) {
      constexpr int round = std::countr_zero(static_cast<unsigned>(kJ));
#pragma GCC unroll 16
      for (int p = 0; p < kR / 2; ++p) {
        const int q = (p / kJ) * 2 * kJ + p % kJ;  // the pair q, q + kJ, as radix_in_registers
        const V a = v[q], b = v[q + kJ];
        v[q] = two_tables(a, b, route.lanes[round][q]);
        v[q + kJ] = two_tables(a, b, route.lanes[round][q + kJ]);
      }
      route_registers<kR, 2 * kJ>(v, route);
    }
  }

  /// In-vector stages 0 … kEnd − 1 of every vector: rows of 2^kEnd words, shorter than one;
  /// kOrdered: then each row into the order of `route`. (Src, Dst: T, or 16-bit floats: see
  /// load() and store(); from may be x.)
  template <int kEnd, bool kScaled = false, bool kOrdered = false, class Src, class Dst>
  static void lane_sweep_r(Dst* x, const Src* from, std::size_t n, T factor = T(1), const Route* route = nullptr) {
    const LaneStages c;
    const V f = hn::Set(D(), factor);
    for (std::size_t k = 0; k < n; k += kLanes) {
      V v = lane_stages<0, kEnd>(load(from + k), c);
      if constexpr (kOrdered) route_registers<1>(&v, *route);
      if constexpr (kScaled) v = hn::Mul(v, f);
      store(v, x + k);
    }
  }

  /// The in-vector stages and log2 kR across vectors; kOrdered: then each row of kR vectors
  /// into the order of `route`. kBounded (integer words): each group of kR vectors is first
  /// checked as below() checks against `limit`, and the sweep stops at the first that fails.
  /// Returns the words transformed: n, or the start of the group that failed.
  template <int kR, bool kScaled = false, bool kOrdered = false, bool kBounded = false, bool kLead = false,
            bool kPairLoads = true, class Src, class Dst>
  static std::size_t first_sweep_r(Dst* x, const Src* from, std::size_t n, T factor = T(1),  // from may be x
                                   const Route* route = nullptr, int limit = 0) {
    const LaneStages c;
    const V f = hn::Set(D(), factor);
    for (std::size_t base = 0; base < n; base += kR * kLanes) {
      if constexpr (kLead) {
        // (An address, not a pointer: past the array's end it is only a hint that cannot fault.)
        const auto ahead = reinterpret_cast<std::uintptr_t>(from + base) + kLeadBytes;
#pragma GCC unroll 16
        for (std::size_t b = 0; b < kR * kLanes * sizeof(Src); b += Prefetch::kLineBytes)
          __builtin_prefetch(reinterpret_cast<const void*>(ahead + b), 0, 2);  // into L2
      }
      if constexpr (kBounded) {
        if (!below(from + base, kR * kLanes, limit)) return base;
      }
      V v[kR];
#pragma GCC unroll 16
      for (int r = 0; r + 1 < kR; ++r) v[r] = lane_stages_of<true, kPairLoads>(from + base + r * kLanes, c);
      v[kR - 1] = lane_stages_of<false, kPairLoads>(from + base + (kR - 1) * kLanes, c);
      radix_in_registers<kR>(v);
      if constexpr (kOrdered) route_registers<kR>(v, *route);
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) store(kScaled ? hn::Mul(v[r], f) : v[r], x + base + r * kLanes);
    }
    return n;
  }

  /// first_sweep() of the 2^m integer words of src (x itself, or another array) into x, each
  /// group of its registers checked first against the limit (as below(): every |w| <
  /// 2^limit): the words up to the first group that fails are transformed (each group a
  /// whole transform of 2^stages words), that group and the rest are left as they were. The check rides on the sweep: as a pass of its own over
  /// each L1 leaf before it, the first to bring the leaf into L1, it took int32 and int64
  /// transforms at 2^10 … 2^18 1.08–1.25× as long as no check (docs/benchmarks.md).
  static BoundedSweep first_sweep_bounded(T* x, int m, const T* src, int limit, bool lead = false, bool pairs = true) {
    constexpr int kGroupLog2 = kLanesLog2 + kRadixLog2;
    const std::size_t n = std::size_t{1} << m;
    if (m < kGroupLog2) {  // no whole group: checked, then transformed
      if (!below(src, n, limit)) return {0, 0};
      return {n, first_sweep(x, m, src == x ? nullptr : src, -1, false, pairs)};
    }
    constexpr int kR = 1 << kRadixLog2;
    const std::size_t done = with_pair_loads<T>(pairs, [&](auto loads) {
      constexpr bool kPairLoads = decltype(loads)::value;
      return lead ? first_sweep_r<kR, false, false, true, true, kPairLoads>(x, src, n, T(1), nullptr, limit)
                  : first_sweep_r<kR, false, false, true, false, kPairLoads>(x, src, n, T(1), nullptr, limit);
    });
    return {done, kGroupLog2};
  }

  /// How far ahead of its reads a first sweep with `lead` prefetches: a page. The leaves of
  /// an array beyond the L3 come from memory, and the hardware's prefetchers, which stop at
  /// each 4 KiB page, left the first sweep waiting on them; on the AMD EPYC Zen 3 VM floats
  /// at 2^23 … 2^25 ran 1.07–1.17× faster so, doubles at 2^22 … 2^25 up to 1.08×
  /// (docs/benchmarks.md). A leaf (16 KiB) ahead measured the same.
  static constexpr std::size_t kLeadBytes = 4096;

  /// Src: T, or 16-bit floats widened as they are loaded (kHalves). pairs:
  /// Geometry::lane_pair_loads (with_pair_loads).
  template <class Src = T>
  static int first_sweep(T* x, int m, const Src* src = nullptr, int upto = -1, bool lead = false, bool pairs = true) {
    if constexpr (!std::is_same_v<Src, T>) {
      if (src == nullptr) return first_sweep<T>(x, m, nullptr, upto, lead, pairs);
    }
    if (upto < 0 || upto > m) upto = m;
    if (m < kLanesLog2) return ScalarOps<T>::first_sweep(x, m, src, upto);
    const std::size_t n = std::size_t{1} << m;
    const Src* from = src;
    if constexpr (std::is_same_v<Src, T>) from = src != nullptr ? src : x;
    if (upto < kLanesLog2) {  // rows shorter than a vector: some of the in-vector stages
      if (upto > 0) in_vector_stages(x, from, n, upto, T(1));
      else if (src != nullptr) copy(x, src, n);
      return upto;
    }
    const int k = upto - kLanesLog2 < kRadixLog2 ? upto - kLanesLog2 : kRadixLog2;
    if (lead && k == kRadixLog2) {
      with_pair_loads<Src>(pairs, [&](auto loads) {
        first_sweep_r<1 << kRadixLog2, false, false, false, true, decltype(loads)::value>(x, from, n);
      });
    } else {
      first_sweep_k(x, from, n, k, T(1), nullptr, pairs);
    }
    return kLanesLog2 + k;
  }

  /// The whole transform of each run of 2^upto 16-bit floats (upto ≤ kLanesLog2 +
  /// kRadixLog2) of the 2^m from x, in place, in the first sweep's registers: each word widened
  /// as it is loaded, and times `factor` and rounded as it is stored. False (nothing done)
  /// where rows are longer or the array is shorter than a vector.
  /// H: 16-bit floats, or T itself. With a route (route_for(upto, ·)), the rows also go into
  /// its order in the registers.
  template <class H>
  static bool first_sweep_only(H* x, int m, int upto, T factor, const Route* route = nullptr, bool pairs = true) {
    if (m < kLanesLog2 || upto > kLanesLog2 + kRadixLog2) return false;
    const std::size_t n = std::size_t{1} << m;
    if (upto < kLanesLog2) in_vector_stages(x, x, n, upto, factor, route);
    else first_sweep_k(x, x, n, upto - kLanesLog2, factor, route, pairs);
    return true;
  }

  /// f(scaled, ordered) with each flag as a std::bool_constant: whether factor scales
  /// (floating point only) and whether a route orders.
  template <class F>
  static HWY_INLINE void with_flags(T factor, const Route* route, F&& f) {
    const auto ordered = [&](auto scaled) {
      if (route != nullptr) f(scaled, std::true_type{});
      else f(scaled, std::false_type{});
    };
    if constexpr (kFloat) {
      if (factor != T(1)) return ordered(std::true_type{});
    }
    ordered(std::false_type{});
  }

  /// lane_sweep_r for rows of 2^upto words, upto < kLanesLog2 (0: the scale alone).
  template <class Src, class Dst>
  static void in_vector_stages(Dst* x, const Src* from, std::size_t n, int upto, T factor,
                               const Route* route = nullptr) {
    with_flags(factor, route, [&](auto scaled, auto ordered) {
      in_vector_stages_r<decltype(scaled)::value, decltype(ordered)::value>(x, from, n, upto, factor, route);
    });
  }

  template <bool kScaled, bool kOrdered, class Src, class Dst>
  static void in_vector_stages_r(Dst* x, const Src* from, std::size_t n, int upto, T factor, const Route* route) {
    switch (upto) {  // each case only where it can happen: upto < kLanesLog2
      case 0: lane_sweep_r<0, kScaled, kOrdered>(x, from, n, factor, route); break;
      case 1: if constexpr (kLanesLog2 > 1) lane_sweep_r<1, kScaled, kOrdered>(x, from, n, factor, route); break;
      case 2: if constexpr (kLanesLog2 > 2) lane_sweep_r<2, kScaled, kOrdered>(x, from, n, factor, route); break;
      case 3: if constexpr (kLanesLog2 > 3) lane_sweep_r<3, kScaled, kOrdered>(x, from, n, factor, route); break;
      default: if constexpr (kLanesLog2 > 4) lane_sweep_r<4, kScaled, kOrdered>(x, from, n, factor, route); break;
    }
  }

  /// first_sweep_r: the in-vector stages and k ≤ kRadixLog2 across vectors (pairs:
  /// with_pair_loads). The choice is taken once, outside with_flags' lambdas, and forced
  /// inline: nested inside them GCC left two call levels out of line, 2.4 % of a 2^10-float
  /// transform's samples.
  template <class Src, class Dst>
  static void first_sweep_k(Dst* x, const Src* from, std::size_t n, int k, T factor, const Route* route = nullptr,
                            bool pairs = true) {
    with_pair_loads<Src>(pairs, [&](auto loads) __attribute__((always_inline)) {
      first_sweep_k_r<decltype(loads)::value>(x, from, n, k, factor, route);
    });
  }

  template <bool kPairLoads, class Src, class Dst>
  static HWY_INLINE void first_sweep_k_r(Dst* x, const Src* from, std::size_t n, int k, T factor, const Route* route) {
    with_flags(factor, route, [&](auto scaled, auto ordered) {
      constexpr bool kScaled = decltype(scaled)::value, kOrdered = decltype(ordered)::value;
      if (k == 0) first_sweep_r<1, kScaled, kOrdered, false, false, kPairLoads>(x, from, n, factor, route);
      else
        at_radix<kRadixLog2>(k, [&](auto r) {
          first_sweep_r<decltype(r)::value, kScaled, kOrdered, false, false, kPairLoads>(x, from, n, factor, route);
        });
    });
  }

  /// dst[0, count) ← src[0, count) (16-bit floats widened). Not memcpy: glibc's `rep movsb`
  /// copies slowly on some AMD CPUs when source and destination sit a multiple of 4 KiB
  /// apart, as strips do.
  template <class Src>
  static void copy(T* HWY_RESTRICT dst, const Src* HWY_RESTRICT src, std::size_t count) {
    convert(dst, src, count);
  }

  /// copy() between any two of T and the 16-bit floats (kHalves): each word widened, or
  /// rounded to nearest even.
  template <class Dst, class Src>
  static void convert(Dst* HWY_RESTRICT dst, const Src* HWY_RESTRICT src, std::size_t count) {
    std::size_t k = 0;
    for (; k + 4 * kLanes <= count; k += 4 * kLanes) {
      const V a = load(src + k), b = load(src + k + kLanes);
      const V c = load(src + k + 2 * kLanes), e = load(src + k + 3 * kLanes);
      store(a, dst + k);
      store(b, dst + k + kLanes);
      store(c, dst + k + 2 * kLanes);
      store(e, dst + k + 3 * kLanes);
    }
    for (; k < count; ++k) dst[k] = static_cast<Dst>(static_cast<T>(src[k]));
  }

  /// Integer words: whether |x[i]| < 2^limit for every x[i] read as a signed word (OR of the
  /// magnitudes, in four accumulators so that the ORs do not wait on each other).
  static bool below(const T* HWY_RESTRICT x, std::size_t count, int limit) {
    static_assert(!kFloat, "a magnitude bound is for integer words");
    const D d;
    const hn::RebindToSigned<D> di;
    auto magnitude = [&](std::size_t k) { return hn::BitCast(d, hn::Abs(hn::BitCast(di, hn::LoadU(d, x + k)))); };
    V a = hn::Zero(d), b = a, c = a, e = a;
    std::size_t k = 0;
    for (; k + 4 * kLanes <= count; k += 4 * kLanes) {
      a = hn::Or(a, magnitude(k));
      b = hn::Or(b, magnitude(k + kLanes));
      c = hn::Or(c, magnitude(k + 2 * kLanes));
      e = hn::Or(e, magnitude(k + 3 * kLanes));
    }
    for (; k + kLanes <= count; k += kLanes) a = hn::Or(a, magnitude(k));
    const V all = hn::Or(hn::Or(a, b), hn::Or(c, e));
    return hn::AllTrue(d, hn::Eq(hn::ShiftRightSame(all, limit), hn::Zero(d))) &&
           ScalarOps<T>::below(x + k, count - k, limit);
  }

  /// Stages s … s+k−1 on columns [j0, j1) of 2^k rows h words apart (x = the first row).
  /// kScaled: every word times `factor` before it is stored (a normalised transform's last
  /// sweep; the same rounding as scaling afterwards, without the pass that costs).
  /// kPrefetch: `ahead` steps once per column of vectors (Prefetch). kWalk: where each
  /// column's rows are read and written (Walk; `offset` for Walk::skewed_reads and
  /// Walk::shifted_writes).
  template <int kR, bool kScaled = false, bool kPrefetch = false, Walk kWalk = Walk::in_place, bool kInL1 = false>
  static void columns_r(T* HWY_RESTRICT x, std::size_t h, std::size_t j0, std::size_t j1, T factor = T(1),
                        Prefetch* ahead = nullptr, std::size_t offset = 0) {
    if constexpr (kR == 16 && kRadixLog2 < 4 && kWalk == Walk::in_place)
      return sixteen_columns<kScaled, kPrefetch, kInL1>(x, h, j0, j1, factor, ahead);
    // Row r sits (r mod 8)·h words past p or q = p + 8h, written as odd·h·2^s with odd·h one
    // of four loop invariants: every address is then a base, an invariant and a scale the
    // addressing modes take for free. (Written as x + j + r·h, GCC kept one induction
    // variable per row and spilled half of 16 of them, and the FMA butterflies did not pay:
    // on AMD Zen 4 a radix-16 sweep in L1 took 4.1 cycles per vector before, 3.3 after both.)
    const std::size_t odd_h[4] = {h, 3 * h, 5 * h, 7 * h};
    if constexpr (kWalk == Walk::shifted_writes) {
      for (T* p = x + j1; p > x + j0;) column_r<kR, kScaled, kPrefetch, kWalk>(p -= kLanes, h, odd_h, factor, ahead, offset);
    } else {
      for (T* p = x + j0; p < x + j1; p += kLanes)
        column_r<kR, kScaled, kPrefetch, kWalk, kInL1>(p, h, odd_h, factor, ahead, offset);
    }
  }

  /// One column of vectors of columns_r, its row 0 at p.
  template <int kR, bool kScaled, bool kPrefetch, Walk kWalk, bool kInL1 = false>
  static HWY_INLINE void column_r(T* p, std::size_t h, const std::size_t* odd_h, T factor, Prefetch* ahead,
                                  std::size_t offset) {
    const D d;
    // Row r is read r vectors (a compile-time offset) and `offset` words further on, or read
    // and written r vectors on, or written `offset` words on.
    constexpr bool kSkewed = kWalk == Walk::skewed_reads || kWalk == Walk::skewed;
    if constexpr (kPrefetch) ahead->step();
    T* const q = kR > 8 ? p + 8 * h : p;  // rows 8 … 15 only exist at radix 16
    const std::size_t read_at = kWalk == Walk::skewed_reads ? offset : 0;
    V v[kR];
#pragma GCC unroll 16
    for (int r = 0; r < kR; ++r) v[r] = hn::LoadU(d, row_of(p, q, odd_h, r) + read_at + (kSkewed ? r * kLanes : 0));
    column_stages<kR, kInL1>(v);
    if constexpr (kScaled) {
      const V f = hn::Set(d, factor);
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) v[r] = hn::Mul(v[r], f);
    }
    // Floating point in place: last row first, 1.00–1.02× over rows in order at 2^12 … 2^22
    // (floats and doubles); uint32 lost 0.6–1.4 % at some sizes that way, so integers keep
    // the order. Skewed reads store in order: row r's line came in r columns ago, and a
    // radix-16 sweep over 4 MiB of doubles took 155 µs so, 233 µs last row first.
#pragma GCC unroll 16
    for (int i = 0; i < kR; ++i) {
      const int r = kFloat && !kSkewed ? kR - 1 - i : i;
      hn::StoreU(v[r], d, row_of(p, q, odd_h, r) + (kWalk == Walk::shifted_writes ? offset : 0) +
                              (kWalk == Walk::skewed ? r * kLanes : 0));
    }
  }

  /// columns_r at radix 16 on a 16-register target (kColumnsRadixLog2 > kRadixLog2): each
  /// group of four rows goes through the first two stages as it is loaded, then each column
  /// c, c + 4, c + 8, c + 12 through the other two and is stored, so that at most 16 vectors
  /// and a butterfly's result are live at once (GCC 12 spills two vectors per 16; the
  /// textbook's order of stages, so the same results). Not inlined into columns(): inlined,
  /// the radix-8 sweeps beside it took 1–3 % longer on the first-Zen VM. kInL1: rows within
  /// one L1 leaf (columns_in_l1), one butterfly in four on the FMA units (kQuarterOnFma).
  template <bool kScaled, bool kPrefetch = false, bool kInL1 = false>
  static HWY_NOINLINE void sixteen_columns(T* HWY_RESTRICT x, std::size_t h, std::size_t j0, std::size_t j1,
                                           T factor, Prefetch* ahead = nullptr) {
    const std::size_t odd_h[4] = {h, 3 * h, 5 * h, 7 * h};
    for (T* p = x + j0; p < x + j1; p += kLanes) {
      if constexpr (kPrefetch) ahead->step();
      sixteen_rows<kScaled, kInL1>(p, p + 8 * h, odd_h, factor);
    }
  }
  template <bool kScaled, bool kInL1>
  static HWY_INLINE void sixteen_rows(T* p, T* q, const std::size_t* odd_h, T factor) {
    const D d;
    const auto pair = [](V& a, V& b) {
      if constexpr (kColumnsOnFma) butterfly_on_fma(a, b);
      else butterfly(a, b);
    };
    // Within an L1 leaf, the last butterfly of each four on the FMA units (kQuarterOnFma).
    const auto last = [&](V& a, V& b) {
      if constexpr (kQuarterOnFma && kInL1) butterfly_on_fma(a, b);
      else pair(a, b);
    };
    V v[16];
#pragma GCC unroll 4
    for (int g = 0; g < 16; g += 4) {
#pragma GCC unroll 4
      for (int r = g; r < g + 4; ++r) v[r] = hn::LoadU(d, row_of(p, q, odd_h, r));
      pair(v[g], v[g + 1]);
      pair(v[g + 2], v[g + 3]);
      pair(v[g], v[g + 2]);
      last(v[g + 1], v[g + 3]);
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      pair(v[c], v[c + 4]);
      pair(v[c + 8], v[c + 12]);
      pair(v[c], v[c + 8]);
      last(v[c + 4], v[c + 12]);
#pragma GCC unroll 4
      for (int i = 3; i >= 0; --i) {
        if constexpr (kScaled) v[c + 4 * i] = hn::Mul(v[c + 4 * i], hn::Set(d, factor));
        hn::StoreU(v[c + 4 * i], d, row_of(p, q, odd_h, c + 4 * i));
      }
    }
  }

  static HWY_INLINE T* row_of(T* p, T* q, const std::size_t* odd_h, int r) {
    const int low = r & 7;
    if (low == 0) return r < 8 ? p : q;
    const int shift = std::countr_zero(static_cast<unsigned>(low));
    return (r < 8 ? p : q) + (odd_h[low >> (shift + 1)] << shift);
  }

  /// Vectors of T in a cache line (1 where a vector fills one or more: AVX-512).
  static constexpr std::size_t kLineVectors = std::max<std::size_t>(1, Prefetch::kLineBytes / (kLanes * sizeof(T)));

  /// columns_to() at radix kR (1: a copy). Rows are read and written as base + r·stride:
  /// at radix 8 and below GCC keeps them in registers (radix 16 is what columns_r's
  /// addressing is for). Streamed where vectors are shorter than a line, each trip does a
  /// line's worth of columns and stores them row by row (columns_to_lines).
  template <int kR, bool kStream, bool kScaled, class Dst>
  static void columns_to_r(const T* HWY_RESTRICT src, std::size_t hs, Dst* HWY_RESTRICT dst, std::size_t hd,
                           std::size_t count, T factor) {
    if constexpr (kStream && kLineVectors > 1)
      if (count % (kLineVectors * kLanes) == 0)
        return columns_to_lines<kR, kStream, kScaled, kLineVectors>(src, hs, dst, hd, count, factor);
    columns_to_lines<kR, kStream, kScaled, 1>(src, hs, dst, hd, count, factor);
  }

  /// columns_to_r()'s loop, kU vectors of columns a trip (count a multiple of them), stored
  /// row by row. With kU a line's worth and streaming stores, each row's line is written
  /// whole before the next row's is begun: with a vector a row at a time, 2^k lines a power
  /// of two apart were each half written at once in the write-combining buffers, and on the
  /// AMD EPYC Zen 3 VM (AVX2, half-line vectors) the gathered top sweeps of arrays of 512 MiB
  /// and more then took 2^27 and 2^28 floats 1.06–1.13× longer (docs/benchmarks.md).
  template <int kR, bool kStream, bool kScaled, std::size_t kU, class Dst>
  static void columns_to_lines(const T* HWY_RESTRICT src, std::size_t hs, Dst* HWY_RESTRICT dst, std::size_t hd,
                               std::size_t count, T factor) {
    const D d;
    const V f = hn::Set(d, factor);
    for (std::size_t j = 0; j < count; j += kU * kLanes) {
      V v[kU][kR];
#pragma GCC unroll 4
      for (std::size_t u = 0; u < kU; ++u) {
#pragma GCC unroll 16
        for (int r = 0; r < kR; ++r) v[u][r] = hn::LoadU(d, src + r * hs + j + u * kLanes);
        column_stages<kR>(v[u]);
      }
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
        for (std::size_t u = 0; u < kU; ++u) {
          if constexpr (kScaled) v[u][r] = hn::Mul(v[u][r], f);
          if constexpr (kStream) hn::Stream(v[u][r], d, dst + r * hd + j + u * kLanes);
          else store(v[u][r], dst + r * hd + j + u * kLanes);
        }
      }
    }
  }

  /// columns_r(), then every word y of those columns ← combine_one(y, s[i]) with i its index
  /// in x, then columns_r() again: the middle of a dyadic convolution while the rows' vectors
  /// are in registers, so the sweep reads and writes x once and reads S alongside it in the
  /// same pattern. (Done as three steps over a column chunk, the middle read S one row at a
  /// time, 16 MiB apart at 2^25 floats, and took 8 of the fused sweep's 15.5 ms:
  /// docs/benchmarks.md.) kPending: S's vectors go through the same butterflies first (the
  /// top stages of the second operand's transform, which then never makes a pass of its own).
  template <int kR, DyadicOp kOp, bool kPending = false>
  static void columns_middle_r(T* HWY_RESTRICT x, std::size_t h, std::size_t j0, std::size_t j1,
                               const T* HWY_RESTRICT s, T factor) {
    const D d;
    const V f = hn::Set(d, factor);
    const std::size_t odd_h[4] = {h, 3 * h, 5 * h, 7 * h};
    for (T* p = x + j0; p < x + j1; p += kLanes) {
      T* const q = kR > 8 ? p + 8 * h : p;
      V v[kR];
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) v[r] = hn::LoadU(d, row_of(p, q, odd_h, r));
      column_stages<kR>(v);
      if constexpr (kPending) {
        static_assert(kOp == DyadicOp::multiply, "a pending spectrum is the second operand of a convolution");
        V sv[kR];
#pragma GCC unroll 16
        for (int r = 0; r < kR; ++r) sv[r] = hn::LoadU(d, s + (row_of(p, q, odd_h, r) - x));
        column_stages<kR>(sv);
#pragma GCC unroll 16
        for (int r = 0; r < kR; ++r) v[r] = hn::Mul(hn::Mul(v[r], sv[r]), f);
      } else {
#pragma GCC unroll 16
        for (int r = 0; r < kR; ++r) {
          // The same roundings as combine_one: (y ⊙ S)·f, (y ⊘ S)·f, y²·f.
          if constexpr (kOp == DyadicOp::square) {
            v[r] = hn::Mul(hn::Mul(v[r], v[r]), f);
          } else {
            const V sv = hn::LoadU(d, s + (row_of(p, q, odd_h, r) - x));
            v[r] = hn::Mul(kOp == DyadicOp::multiply ? hn::Mul(v[r], sv) : hn::Div(v[r], sv), f);
          }
        }
      }
      column_stages<kR>(v);
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) hn::StoreU(v[r], d, row_of(p, q, odd_h, r));
    }
  }

  /// f(std::integral_constant<int, 2^k>{}) for 0 ≤ k ≤ kMaxLog2: a codelet at radix 2^k.
  template <int kMaxLog2 = kColumnsRadixLog2, class F>
  static HWY_INLINE void at_radix(int k, F&& f) {
    switch (k) {
      case 0: f(std::integral_constant<int, 1>{}); break;
      case 1: f(std::integral_constant<int, 2>{}); break;
      case 2: f(std::integral_constant<int, 4>{}); break;
      case 3: f(std::integral_constant<int, 8>{}); break;
      default: if constexpr (kMaxLog2 >= 4) f(std::integral_constant<int, 16>{}); break;
    }
  }

  template <DyadicOp kOp, bool kPending = false>
  static void columns_middle_op(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, const T* s, T factor) {
    at_radix(k, [&](auto r) { columns_middle_r<decltype(r)::value, kOp, kPending>(x, h, j0, j1, s, factor); });
  }

  /// Floating point: columns(), the dyadic middle with S laid out as x (S[i] belongs with
  /// x[i]; unused for `square`), and columns() again, in one sweep. False (nothing done)
  /// where the three-step path must do it: integer words (their rings multiply in
  /// combine_one), rows shorter than a vector, or a radix 1. With s_pending (multiply only),
  /// S's vectors first go through the same k stages.
  static bool columns_middle(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, const T* s, DyadicOp op,
                             T factor, bool s_pending) {
    if constexpr (!kFloat) {
      return false;
    } else {
      if (k < 1 || h < kLanes || (j1 - j0) % kLanes != 0) return false;
      if (s_pending) {
        if (op != DyadicOp::multiply) return false;
        columns_middle_op<DyadicOp::multiply, true>(x, h, k, j0, j1, s, factor);
        return true;
      }
      switch (op) {
        case DyadicOp::multiply: columns_middle_op<DyadicOp::multiply>(x, h, k, j0, j1, s, factor); break;
        case DyadicOp::square: columns_middle_op<DyadicOp::square>(x, h, k, j0, j1, s, factor); break;
        case DyadicOp::divide: columns_middle_op<DyadicOp::divide>(x, h, k, j0, j1, s, factor); break;
      }
      return true;
    }
  }

  /// k ≤ kColumnsRadixLog2 stages across 2^k rows h words apart, on their columns [j0, j1)
  /// (multiples of L, or the scalar codelets take over).
  static void columns(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1) {
    if (h < kLanes || (j1 - j0) % kLanes != 0) return ScalarOps<T>::columns(x, h, k, j0, j1);
    at_radix(k, [&](auto r) { columns_r<decltype(r)::value>(x, h, j0, j1); });
  }

  /// columns() on rows that all lie within one L1 leaf (kQuarterOnFma).
  static void columns_in_l1(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1) {
    if (h < kLanes || (j1 - j0) % kLanes != 0) return ScalarOps<T>::columns(x, h, k, j0, j1);
    at_radix(k, [&](auto r) { columns_r<decltype(r)::value, false, false, Walk::in_place, true>(x, h, j0, j1); });
  }

  /// columns(), with `ahead` stepping once per column of vectors (Prefetch).
  static void columns_prefetching(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, Prefetch& ahead) {
    if (h < kLanes || (j1 - j0) % kLanes != 0) return ScalarOps<T>::columns(x, h, k, j0, j1);
    at_radix(k, [&](auto r) { columns_r<decltype(r)::value, false, true>(x, h, j0, j1, T(1), &ahead); });
  }

  /// columns(), each word of those columns then multiplied by `factor` (floating point).
  static void columns_scaled(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, T factor) {
    if (!kFloat || h < kLanes || (j1 - j0) % kLanes != 0)
      return ScalarOps<T>::columns_scaled(x, h, k, j0, j1, factor);
    at_radix(k, [&](auto r) { columns_r<decltype(r)::value, kFloat>(x, h, j0, j1, factor); });
  }

  /// columns_scaled() (factor 1: columns()) on rows that sit rotated: row r's column j is read
  /// at x + r·(h + L) + j + offset, and written at x + r·h + j (Walk::skewed_reads). Columns
  /// [j0, j1) in order, multiples of L; every word read lies at or after the words written so far.
  static void columns_skewed(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, T factor,
                             std::size_t offset = 0) {
    at_radix(k, [&](auto r) {
      constexpr int kR = decltype(r)::value;
      if (kFloat && factor != T(1)) columns_r<kR, kFloat, false, Walk::skewed_reads>(x, h, j0, j1, factor, nullptr, offset);
      else columns_r<kR, false, false, Walk::skewed_reads>(x, h, j0, j1, T(1), nullptr, offset);
    });
  }

  /// columns() on rows that sit rotated, in place: row r's column j is read and written at
  /// x + r·(h + L) + j (Walk::skewed). Columns [j0, j1), multiples of L.
  static void columns_skewed_in_place(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1) {
    at_radix(k, [&](auto r) { columns_r<decltype(r)::value, false, false, Walk::skewed>(x, h, j0, j1); });
  }

  /// columns(), each column j of the rows written `shift` words further on, at x + r·h + j +
  /// shift (Walk::shifted_writes): columns [j0, j1), multiples of L, last first, so that a
  /// shift within the rows overwrites only words already read; `ahead` (if any) stepping
  /// once per column of vectors while it has lines left (Prefetch).
  static void columns_shifted(T* x, std::size_t h, int k, std::size_t j0, std::size_t j1, std::size_t shift,
                              Prefetch* ahead = nullptr) {
    at_radix(k, [&](auto r) {
      constexpr int kR = decltype(r)::value;
      if (ahead != nullptr && ahead->pending())
        columns_r<kR, false, true, Walk::shifted_writes>(x, h, j0, j1, T(1), ahead, shift);
      else
        columns_r<kR, false, false, Walk::shifted_writes>(x, h, j0, j1, T(1), nullptr, shift);
    });
  }

  /// Dst: T, or a 16-bit float each result is rounded to (kHalves; never streamed).
  template <class Dst>
  static void columns_to(const T* src, std::size_t hs, Dst* dst, std::size_t hd, int k, std::size_t count, bool stream,
                         T factor) {
    if (hs < kLanes || hd < kLanes || count % kLanes != 0)
      return ScalarOps<T>::columns_to(src, hs, dst, hd, k, count, stream, factor);
    stream = std::is_same_v<Dst, T> && stream && reinterpret_cast<std::uintptr_t>(dst) % (kLanes * sizeof(T)) == 0;
    const bool scaled = kFloat && factor != T(1);
    at_radix(k, [&](auto r) {
      constexpr int kR = decltype(r)::value;
      if constexpr (std::is_same_v<Dst, T>) {
        if (stream) {
          if (scaled) columns_to_r<kR, true, true>(src, hs, dst, hd, count, factor);
          else columns_to_r<kR, true, false>(src, hs, dst, hd, count, factor);
          return;
        }
      }
      if (scaled) columns_to_r<kR, false, true>(src, hs, dst, hd, count, factor);
      else columns_to_r<kR, false, false>(src, hs, dst, hd, count, factor);
    });
  }
};

/// The codelets for word W on this instruction set.
template <class W>
using OpsFor = std::conditional_t<std::is_same_v<W, detail::u128>, ScalarOps<W>, SimdOps<W>>;

}  // namespace fastconv::cpu::FASTCONV_ISA
