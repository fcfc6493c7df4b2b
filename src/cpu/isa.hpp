// src/cpu/isa.hpp — the cpu backend's kernels, one table per instruction set.
//
// src/cpu/kernels_isa.cpp is compiled once per instruction set (see src/CMakeLists.txt):
// Highway vectors of the widest width the flags allow (or, for avx2_128, of 128 bits), in a
// namespace of their own. Each copy exports one IsaKernels table; the table for the running CPU
// is chosen once, at first use (dispatch.cpp), and every supported one is a variant of the cpu
// backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/backend_impl.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::cpu {

/// The element-wise middle step of a fused dyadic convolution.
enum class DyadicOp { multiply, square, divide };

/// Cache-derived sizes the kernels block for (bytes).
struct Geometry {
  std::size_t leaf_bytes;   ///< a block transformed entirely in L1
  std::size_t block_bytes;   ///< a block transformed entirely in L2: where the recursion stops
  std::size_t gather_bytes;  ///< from this size on, sweeps across an array go through a buffer
  /// L1's set-aliasing distance (its size over its ways): rows this far apart, or any multiple,
  /// compete for one set of `l1_ways` lines.
  std::size_t l1_way_bytes = 4096;
  std::size_t l1_ways = 8;
  /// A second thread joins a transform only for a share of at least this many bytes (and
  /// never for less than passes.hpp's kMinWordsPerThread words).
  std::size_t min_share_bytes = 0;
  /// The bytes that the threads sharing one last-level cache may work on at once, and how
  /// many threads share it (0: no limit). A team shares out the parts of a walk only where
  /// min(team, l3_threads) of them fit l3_budget_bytes together; bigger parts it works
  /// through one by one, the whole team on each (passes.hpp).
  std::size_t l3_budget_bytes = 0;
  std::size_t l3_threads = 1;
  /// The most rows a direct sweep across parts (rows a block or more apart) of an array
  /// beyond L2 takes; 0: no more than L1 has ways, the in-cache sweeps' rule (passes.hpp's
  /// radix_for_rows), which arrays within L2 always follow.
  std::size_t part_sweep_rows = 0;
  /// From this many bytes on, the sweeps of each block of a walk that run in L2 (those after
  /// its L1 leaves) prefetch the first half of the next block into L2 as they go, while the
  /// memory would otherwise be idle (passes.hpp); never by default.
  std::size_t prefetch_from_bytes = std::numeric_limits<std::size_t>::max();
  /// L2's size: the plans weigh a sweep over an array within it as cheaper than one beyond it.
  std::size_t l2_bytes = std::size_t{1} << 20;
  /// From this many bytes on, the first sweep of each L1 leaf prefetches into L2 the words a
  /// page past those it reads (SimdOps::kLeadBytes): the leaves of arrays beyond the L3 come
  /// from memory, a page at a time for the hardware's prefetchers; never by default.
  std::size_t lead_from_bytes = std::numeric_limits<std::size_t>::max();
  /// Whether first sweeps take the first in-vector stage's two operands by duplicating loads
  /// (SimdOps::lane_stages_of) instead of one load and a shuffle, in the copy that may do
  /// either (AVX-512, SimdOps::kChoosesPairLoads); the other copies keep their own rule.
  bool lane_pair_loads = true;
  /// From this CPU's cache sizes (sysconf, and Linux's sysfs for the L3), with defaults where
  /// they are unknown.
  static const Geometry& of_this_cpu() noexcept;
};

/// p[k] ← p[k] / 2^bits for words that, read as signed, are exact multiples of 2^bits: how an
/// integer transform that could not fit is undone (transformed again, W·W = 2^n·I, then this).
/// Static: each translation unit keeps its own copy, compiled for its own instruction set (an
/// inline one could be merged with a kernel file's AVX-512 copy and run on any CPU).
template <class W>
static void divide_out(W* p, std::size_t count, int bits) {
  using S = std::make_signed_t<W>;
  for (std::size_t k = 0; k < count; ++k) p[k] = static_cast<W>(static_cast<S>(p[k]) >> bits);
}

/// From this size on (bytes), WordKernels::reorder and WordKernels::ordered stream their
/// stores past the caches where their output is aligned to a vector (the tiles write their
/// vectors far apart, and a store to a line not in cache reads it first); ordered declines an
/// output that is not, and the cpu backend transforms a Paley or sequency row that it declines
/// (an integer row, or one not aligned to a vector) in place and reorders it through its
/// aligned scratch. (The reordering alone of 2^21 words of 4 bytes: 0.64 ms streamed against
/// 1.2–3.4 not; but the whole transform of 2^21 floats with both from 8 MiB took 1.96–1.98 ms
/// against 1.57–2.09 from 16 MiB.)
inline constexpr std::size_t kStreamedReorderBytes = std::size_t{16} << 20;

/// Below this size (bytes) a transform into Paley or sequency order runs on one thread, its
/// reordering included: the tiles read every part of the array, and a team's parts sit in
/// the other core's cache. (2^16 floats on two threads: 0.038–0.043 ms against 0.033 on one;
/// 2^16 doubles, 512 KiB: 0.048 against 0.065.)
inline constexpr std::size_t kParallelReorderBytes = std::size_t{512} << 10;

/// IsaKernels::wht_rows_f16 and wht_rows_bf16 take scratch for at least this many floats (a
/// leaf's worth of short rows: Geometry::leaf_bytes is at most 64 KiB).
inline constexpr int kHalvesScratchLog2 = 14;

/// What WordKernels::ordered did.
enum class Fused { declined, done, exceeded };

template <class W>
struct WordKernels {
  /// out ← scale · W·in, natural order, 2^log2n words (in may equal out).
  void (*wht)(const W* in, W* out, int log2n, int threads, double scale, const Geometry& g);
  /// out ← scale · W(op(W·in, S)) with S of 2^spectrum_log2n ≤ 2^log2n words standing for its
  /// zero-padded operand (S[k mod 2^spectrum_log2n]); `spectrum` is unused by `square`.
  void (*dyadic)(const W* in, W* out, int log2n, DyadicOp op, const W* spectrum, int spectrum_log2n,
                 double scale, int threads, const Geometry& g);
  /// out ← scale · W(W·a ⊙ W·b), a and b of 2^log2n words, s room for 2^log2n words (b's
  /// spectrum, left there); out may be a or b.
  void (*convolve)(const W* a, const W* b, W* out, W* s, int log2n, double scale, int threads, const Geometry& g);
  /// `rows` rows of 2^log2n words back to back from x, each transformed in place (times
  /// scale) on this thread into `order` (paley or sequency only where orders_rows() is true);
  /// short rows a leaf's worth at a time. With limit ≥ 0 (uint32/uint64 only), as
  /// wht_bounded: false, and x as it was, if some |x[i]| ≥ 2^limit.
  bool (*wht_rows)(W* x, std::size_t rows, int log2n, double scale, int limit, const Geometry& g, Order order);
  /// Whether wht_rows puts rows of 2^log2n words into `order` itself, in the registers of
  /// its one sweep over them (rows of up to 2^8 floats or 2^7 doubles on AVX-512), with no
  /// reorder() afterwards.
  bool (*orders_rows)(int log2n, Order order);
  /// `rows` rows of 2^log2n words back to back from in to out (in ≠ out), each into `order`
  /// (paley or sequency): out[k] = in[natural_index(k)] row by row, in tiles transposed in
  /// registers or, for rows no longer than a vector, lanes permuted (permute.hpp), on a team of
  /// `threads` (0: OpenMP's default).
  void (*reorder)(const W* in, W* out, std::size_t rows, int log2n, Order order, int threads);
  /// Whether reorder() does rows of 2^log2n words in vectors, not word by word.
  bool (*reorders_in_vectors)(int log2n);
  /// out ← scale · W·in in `order` (paley or sequency), in may be out, scratch room for
  /// 2^log2n words: the reordering fused into the transform's top sweep (permute.hpp);
  /// `declined`, and nothing done, where that does not apply (then wht() and reorder()). With
  /// limit ≥ 0 (uint32/uint64 only), as wht_bounded: `exceeded`, and in and out as they were,
  /// if some |in[i]| ≥ 2^limit.
  Fused (*ordered)(const W* in, W* out, W* scratch, int log2n, Order order, double scale, int threads, int limit,
                   const Geometry& g);
  /// uint32/uint64 only (else null): out ← W·in if every in[i], read as a signed word, has
  /// |in[i]| < 2^limit; otherwise false, and in (which may equal out) as it was.
  bool (*wht_bounded)(const W* in, W* out, int log2n, int threads, int limit, const Geometry& g) = nullptr;
};

struct IsaKernels {
  std::string_view name;         ///< the variant name: "avx512", "avx2", "avx2_128", "sse4", "portable"
  std::string_view description;  ///< Highway's target, e.g. "AVX2", and "AVX2, 128-bit" for avx2_128
  WordKernels<float> f32;
  WordKernels<double> f64;
  WordKernels<std::uint32_t> u32;
  WordKernels<std::uint64_t> u64;
  WordKernels<detail::u128> u128;
  /// 16-bit floats to float and back, rounding to nearest even: the conversions of
  /// fastconv/types.hpp (the same bits), on this instruction set's vectors (F16C from AVX2 on).
  void (*widen_f16)(const float16* from, float* to, std::size_t n);
  void (*narrow_f16)(const float* from, float16* to, std::size_t n);
  void (*widen_bf16)(const bfloat16* from, float* to, std::size_t n);
  void (*narrow_bf16)(const float* from, bfloat16* to, std::size_t n);
  /// `rows` rows of 2^log2n 16-bit floats, row r at x + r·stride, each transformed in place
  /// on this thread into `order`, computed in float and times scale: each word widened as
  /// the first sweep reads it, each result rounded once to nearest even as the last sweep
  /// stores it (the results of widen, the float transform and narrow), with the sweeps between
  /// in `scratch` (room for max(2^log2n, 2^kHalvesScratchLog2) floats; none needed, and null
  /// allowed, for rows of up to 2^halves_in_registers_log2). For rows of up to the cache block
  /// (Geometry::block_bytes) floats; Paley or sequency order only where f32.orders_rows() is
  /// true (rows the registers hold whole). Null where the instruction set has no such kernels
  /// (below AVX2).
  void (*wht_rows_f16)(float16* x, std::size_t rows, std::size_t stride, int log2n, double scale, float* scratch,
                       const Geometry& g, Order order);
  void (*wht_rows_bf16)(bfloat16* x, std::size_t rows, std::size_t stride, int log2n, double scale, float* scratch,
                        const Geometry& g, Order order);
  /// Rows this short (log2) are transformed in the first sweep's registers.
  int halves_in_registers_log2;
  /// One row of 2^log2n 16-bit floats: out ← scale · W·in (in may equal out) in natural order,
  /// computed in float by the whole walk on `threads` into `scratch` (room for 2^log2n floats),
  /// the first sweeps widening each word as they read it, then rounded once into out by the
  /// team. For rows beyond the cache, or shared by a team. Null below AVX2.
  void (*wht_f16)(const float16* in, float16* out, float* scratch, int log2n, int threads, double scale,
                  const Geometry& g);
  void (*wht_bf16)(const bfloat16* in, bfloat16* out, float* scratch, int log2n, int threads, double scale,
                   const Geometry& g);

  template <class W>
  [[nodiscard]] const WordKernels<W>& of() const noexcept {
    if constexpr (std::is_same_v<W, float>) return f32;
    else if constexpr (std::is_same_v<W, double>) return f64;
    else if constexpr (std::is_same_v<W, std::uint32_t>) return u32;
    else if constexpr (std::is_same_v<W, std::uint64_t>) return u64;
    else return u128;
  }
};

/// The instruction sets this CPU can run, slowest first (the order dispatch.cpp measured: the
/// two AVX2 copies' order depends on the CPU).
std::span<const IsaKernels* const> supported_isas() noexcept;
/// Their names (the cpu backend's variants), in the same order.
std::vector<std::string> supported_isa_names();
/// Whether a CPU of this vendor (CPUID leaf 0's string) and signature (leaf 1's EAX) has
/// floating-point units 128 bits wide, splitting every 256-bit operation in two: AMD's Zen and
/// Zen+ (family 17h, models 00h–2Fh; Zen 2, from model 30h on, has 256-bit units) and Hygon's
/// Dhyana (family 18h, built on Zen). There the avx2_128 copy is the faster AVX2 one and comes
/// after avx2 in supported_isas().
bool has_128bit_fp_units(std::string_view vendor, std::uint32_t signature) noexcept;
/// Whether sweeps across arrays of 512 MiB and more go through a buffer (Geometry::gather_bytes)
/// on a CPU of this vendor and signature: on AMD's from family 19h (Zen 3, Zen 4) on. On the
/// Zen 4 VM direct sweeps over 8 streams 64 MiB apart thrashed (2.5× slower than one stream)
/// and the buffered ones won at 2^27 and 2^28 words, as on the Zen 3 VM (2^28 floats 366
/// against 775 ms direct). On the Intel Xeon VM (Cascade Lake) direct sweeps did not thrash
/// and the buffer's copies cost: 2^28 floats 566–629 ms direct against 791–873 buffered; on
/// the first-Zen VM (family 17h) 745 against 1415 ms, and 2^26 … 2^28 floats and doubles,
/// one thread or two, 1.47–1.90× faster direct (docs/benchmarks.md). Zen 2, also family
/// 17h, was not measured, and sweeps there directly as on the first Zen.
bool gathers_huge_sweeps(std::string_view vendor, std::uint32_t signature) noexcept;
/// The fastest supported table, or the one FASTCONV_CPU_ISA names (if supported).
const IsaKernels& best_isa() noexcept;

}  // namespace fastconv::cpu
