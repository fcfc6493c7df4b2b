// src/cpu/passes.hpp — how the cpu backend walks memory: the codelets of codelets.hpp
// arranged into as few passes over a large array as the caches allow (included only by
// kernels_isa.cpp, once per instruction set).
//
// A transform of 2^n words runs depth first: the array is split at its top k ≤ radix bits
// into 2^k parts, each part is transformed the same way, and then one sweep of radix-2^k
// codelets does the top k stages across the parts (2^k streams, each read sequentially).
// The recursion ends at blocks of 2^b words (b from Geometry::block_bytes: L2's size, at most
// 1 MiB; half that where a single bit would be left above the blocks; smaller where that
// saves a sweep, plan_walk), which are transformed in cache, L1-sized leaves first, then
// sweeps across the leaves whose rows all fit one L1 set (radix_for_rows). Depth first, every
// part that fits a cache level is finished there before the next one is touched: only the
// few top sweeps stream the whole array from memory. Over arrays beyond the L3, a block's
// sweeps in L2 prefetch the next block's first half, which would otherwise keep the next
// block's first sweep waiting on memory (Geometry::prefetch_from_bytes, next_block_of);
// where L2 has no room for that, each leaf's first sweep prefetches a page ahead of its
// reads instead (Geometry::lead_from_bytes).
// (Breadth-first passes with strips gathered into buffers need fewer sweeps on paper but
// touch a new page with every short row; measured slower: docs/benchmarks.md.) The stages
// run in the textbook's order, so results are bitwise those of the textbook loop.
//
// Where the outermost sweep takes more rows than L1 has ways (radix 16 across parts on Intel
// CPUs), its rows, parts a power of two apart, would all fall in one L1 set. Instead each
// part's last sweep stores its results rotated by the part's index in vectors (r vectors
// further on, wrapping around within the part: rotated_sweep), and the outermost sweep reads
// row r that far on and writes it in place (skewed_sweep): a column's rows then fall in as
// many sets as there are rows. The layout is the caller's again when the transform returns.
// Where those parts are blocks of 16 leaves, the same goes one level down (skewed_leaf): each
// leaf's last sweep stores it rotated by its part's index plus its own, the radix-16 sweep
// across a block's leaves reads and writes each row where it lies (skewed_in_place), and the
// outermost sweep reads the parts leaf by leaf.
//
// A dyadic convolution out = f·W(S ⊙ W·x) fuses into the same walk: the parts are
// transformed (reading x, writing out), the top sweep transforms each column vector of its
// rows, multiplies it by the spectrum and transforms it back while it is in registers, and
// the parts are transformed again (the inverse thus runs its top stages first). An array of
// one block does the same with its own last sweep. A convolution of two operands
// (convolve()) leaves the second one's outermost sweep undone too: the middle does those
// stages on S's vectors (in the gathered sweeps, on S's chunk in a buffer) beside the first
// one's, so S makes no pass of its own there. The scale of a normalised transform is
// applied by the last sweep, before its stores.
//
// 16-bit floats (float16, bfloat16) are computed in float by the same walk: the first sweeps
// widen each word as they read it (into scratch, for a whole walk), and the last sweep rounds
// each result once as it stores it (wht16_rows, wht16).
//
// Exact integer transforms run in the word's own ring only if no result can overflow: every
// input below 2^(bits − n) in magnitude. wht_bounded checks that in each L1 leaf's first
// sweep, group of registers by group before it is transformed, so the check costs no pass of
// its own; a group that fails undoes, exactly, what was done before it (W·W = 2^m·I:
// transform again, shift right by m) and the front end takes a wider ring.
//
// Parallelism: one OpenMP team per call; the parts of the top level are shared out (or, if
// there are fewer parts than threads, or so many threads on parts this big would crowd their
// L3, the team works through them one by one and shares out the level below), and each sweep
// above the shared parts is split by column chunks.
#pragma once

#include <hwy/cache_control.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>

#include "cpu/codelets.hpp"

namespace fastconv::cpu::FASTCONV_ISA {

/// A barrier for the threads of one OpenMP region, where a call's team meets between its
/// steps. libgomp's `barrier` (and the one that ends a `for`) makes a futex_wake system call
/// in the last thread to arrive, waiters or not: 0.42–0.48 µs on these VMs, 0.55 µs of a
/// two-thread 2^16-float transform's 14.4 (docs/benchmarks.md). Here the last thread only
/// bumps a generation word the others spin on, and they leave about 0.1 µs later. A waiter
/// spins with pause (hwy::Pause) for a while, then yields its CPU; at once where the team
/// has more threads than there are CPUs, whose waiters would otherwise spin while the
/// threads they wait for cannot run. The release and acquire orders make every word written
/// before the barrier visible after it, as OpenMP's barrier does.
class TeamBarrier {
 public:
  /// Returns once all `team` threads (omp_get_num_threads()) have called it.
  void wait(int team) const noexcept {
    if (team <= 1) return;
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<unsigned>(team)) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    // (omp_get_num_procs() asks the kernel for the thread's affinity each time: once.)
    static const int procs = omp_get_num_procs();
    const unsigned spins = team <= procs ? kSpins : 0;
    for (unsigned k = 0; generation_.load(std::memory_order_acquire) == generation; ++k) {
      if (k < spins) hwy::Pause();
      else std::this_thread::yield();
    }
  }

 private:
  /// Pauses before yielding: 0.39–0.41 ms on the Zen 3 VM (longer on Intel cores, whose pause
  /// is longer), far more than a balanced team waits at a barrier.
  static constexpr unsigned kSpins = 1u << 14;
  // One cache line: the last thread's count and bump take one transfer of it between cores.
  alignas(64) mutable std::atomic<unsigned> arrived_{0};
  mutable std::atomic<unsigned> generation_{0};
};

/// What the middle of a dyadic convolution does to the spectrum: nothing (a plain
/// transform), or combine() it with S and transform back.
template <class W>
struct Middle {
  bool active = false;
  DyadicOp op = DyadicOp::multiply;
  const W* spectrum = nullptr;
  std::size_t spectrum_mask = 0;  ///< S index = global index & mask (a zero-padded operand)
  W factor = W(1);
  /// Not null (the spectrum's own words, writable): S still lacks the stages of the
  /// outermost sweep, which the middle does on S's vectors too (Pipeline::convolve).
  W* pending = nullptr;
};

/// Ops::Route where the codelets can order whole rows in their registers (SimdOps), else void.
template <class Ops>
struct RouteOf {
  using type = void;
};
template <class Ops>
  requires requires { typename Ops::Route; }
struct RouteOf<Ops> {
  using type = typename Ops::Route;
};

/// Ops with a sweep that prefetches as it goes (SimdOps::columns_prefetching).
template <class Ops>
concept PrefetchingOps = requires(typename Ops::Word* x, Prefetch& p) { Ops::columns_prefetching(x, 1, 1, 0, 1, p); };

/// Ops whose sweeps can read rows rotated by their index and write a part rotated
/// (SimdOps::columns_skewed, columns_shifted; Walk).
template <class Ops>
concept SkewingOps = requires(typename Ops::Word* x) {
  Ops::columns_skewed(x, 1, 1, 0, 1, typename Ops::Word(1), 0);
  Ops::columns_skewed_in_place(x, 1, 1, 0, 1);
  Ops::columns_shifted(x, 1, 1, 0, 1, 1);
};

/// The words of one of Ops's vectors (SkewingOps), else 1.
template <class Ops>
constexpr std::size_t vector_words() {
  if constexpr (SkewingOps<Ops>) return Ops::kLanes;
  else return 1;
}

template <class Ops>
class Pipeline {
 public:
  using W = typename Ops::Word;
  using Route = typename RouteOf<Ops>::type;

  /// out ← scale · W·in (in may equal out).
  static void wht(const W* in, W* out, int log2n, int threads, double scale, const Geometry& g) {
    Pipeline(in, out, log2n, threads, g, Middle<W>{}, factor_of(scale)).run();
  }

  /// Integer words: out ← W·in if every in[i], read as a signed word, has |in[i]| < 2^limit;
  /// otherwise false, with in and out as they were (out's words may have changed when it is
  /// not in). The check rides on the walk: each L1 leaf's first sweep checks each group of
  /// its registers before it transforms it, and a group that fails undoes the groups and
  /// parts done before it.
  static bool wht_bounded(const W* in, W* out, int log2n, int threads, int limit, const Geometry& g) {
    Pipeline p(in, out, log2n, threads, g, Middle<W>{}, W(1));
    // Undoing needs 2^log2n·|x| < 2^(bits of the signed word): the limit a fitting result implies.
    p.limit_ = std::clamp(limit, 0, std::max(0, std::numeric_limits<std::make_signed_t<W>>::digits - log2n));
    return p.run_bounded();
  }

  /// `rows` rows of 2^log2n words each, back to back from x, each transformed in place
  /// (times scale) into `order`: Paley or sequency only where orders_rows() says so. Rows up
  /// to a leaf go a leaf's worth at a time, as the low log2n stages of that run: short rows
  /// share each codelet call instead of paying a call, and a walk's set-up, apiece. With
  /// limit ≥ 0 (uint32/uint64 words), as wht_bounded: false, and x as it was, if some
  /// |x[i]| ≥ 2^limit.
  static bool wht_rows(W* x, std::size_t rows, int log2n, double scale, int limit, const Geometry& g, Order order) {
    Pipeline p(x, x, log2n, 1, g, Middle<W>{}, factor_of(scale));
    p.route_ = route_of(log2n, order);
    if constexpr (kCheckable) {
      if (limit >= 0) {
        p.limit_ = std::clamp(limit, 0, std::max(0, std::numeric_limits<std::make_signed_t<W>>::digits - log2n));
        const std::size_t done = p.rows_bounded(x, rows, log2n);
        if (done == rows) return true;
        p.rows_in_runs(x, done, log2n, [&](W* at, int run) { p.undo_run(at, run, log2n); });
        return false;
      }
    }
    p.rows_in_runs(x, rows, log2n, [&](W* at, int run) { p.transform_run(at, run, log2n, scale); });
    return true;
  }

  /// Whether wht_rows puts rows of 2^log2n words into `order` itself: where the first sweep
  /// holds them whole in its registers and can route them there (Ops::route_for).
  static bool orders_rows(int log2n, Order order) { return route_of(log2n, order) != nullptr; }

  /// Rows of 2^log2n 16-bit floats (H: float16 or bfloat16; Ops::kHalves), row r at
  /// x + r·stride, each transformed in place on this thread in float, times scale: each row's
  /// first sweep widens its words as it reads them, the sweeps after it work in `scratch` (room
  /// for max(2^log2n, a leaf) floats), and the last one rounds each result once to nearest even
  /// as it stores it back; rows the first sweep covers whole never leave its registers, and
  /// go into `order` there (Paley or sequency only where orders_rows() says so). Rows back to
  /// back go a leaf's worth at a time, as in wht_rows. For rows that fit the cache.
  template <class H>
  static void wht16_rows(H* x, std::size_t rows, std::size_t stride, int log2n, double scale, W* scratch,
                         const Geometry& g, Order order) {
    Pipeline p(scratch, scratch, log2n, 1, g, Middle<W>{}, W(1));
    p.route_ = route_of(log2n, order);
    const W factor = factor_of(scale);
    if (stride == (std::size_t{1} << log2n)) {
      p.rows_in_runs(x, rows, log2n, [&](H* at, int run) { p.run16(at, run, log2n, factor, scratch); });
      return;
    }
    for (std::size_t r = 0; r < rows; ++r) p.run16(x + r * stride, log2n, log2n, factor, scratch);
  }

  /// 2^log2n 16-bit floats (H: float16 or bfloat16; Ops::kHalves): out ← scale · W·in (in may
  /// equal out), computed in float by the whole walk on `threads` into `scratch` (room for
  /// 2^log2n floats), each word widened as the first sweeps read it, then each result rounded
  /// once to nearest even into out by the team (the results of widen, the float transform
  /// and narrow). For rows beyond the cache and rows a team shares.
  template <class H>
  static void wht16(const H* in, H* out, W* scratch, int log2n, int threads, double scale, const Geometry& g) {
    Pipeline p(scratch, scratch, log2n, threads, g, Middle<W>{}, factor_of(scale));
    if (p.lo_ == p.n_) {
      p.stages_from(scratch, log2n, 0, p.scale_, in, nullptr, -1);
    } else {
      // A direct outermost sweep on one thread rounds its results into out as it stores
      // them; a gathered one, or a team's, works in place, and the team rounds the scratch
      // into out after it.
      const bool into_out = !p.split(log2n).gather && p.team_ == 1;
      if (into_out) p.leave_outermost_sweep();
      p.allocate_buffers();
#pragma omp parallel num_threads(p.team_) if (p.team_ > 1)
      {
        p.team_transform(in, scratch, log2n, true);
        if (into_out) p.outermost_sweep_into(out);
      }
      if (into_out) return;
    }
    const std::size_t words = std::size_t{1} << log2n;
    const auto team = static_cast<std::size_t>(p.team_);
    const auto shares = static_cast<std::ptrdiff_t>(team);
#pragma omp parallel for num_threads(p.team_) if (p.team_ > 1) schedule(static)
    for (std::ptrdiff_t t = 0; t < shares; ++t) {
      const std::size_t first = words / team * static_cast<std::size_t>(t);
      const std::size_t last = t + 1 == shares ? words : first + words / team;
      Ops::convert(out + first, scratch + first, last - first);
    }
  }

  /// out ← scale · W(op(W·in, S)), S of 2^spectrum_log2n words standing for its zero-padded
  /// operand (in may equal out).
  static void dyadic(const W* in, W* out, int log2n, DyadicOp op, const W* spectrum, int spectrum_log2n,
                     double scale, int threads, const Geometry& g) {
    Middle<W> middle{true, op, spectrum, (std::size_t{1} << spectrum_log2n) - 1, factor_of(scale)};
    Pipeline(in, out, log2n, threads, g, middle, W(1)).run();
  }

  /// out ← scale · W(W·a ⊙ W·b), a and b of 2^log2n words, `s` room for 2^log2n words (b's
  /// spectrum; out may be a or b). Where the fused middle can (floating point; not a team
  /// sharing one block), b's transform leaves its outermost sweep out and the middle does
  /// those stages on S's vectors in registers (or on S's chunk in a buffer, where the sweep
  /// is gathered), beside a's: S makes no top sweep over memory of its own. The butterflies
  /// are the same, so the result is the same as with a whole spectrum.
  static void convolve(const W* a, const W* b, W* out, W* s, int log2n, double scale, int threads,
                       const Geometry& g) {
    Pipeline spectrum(b, s, log2n, threads, g, Middle<W>{}, W(1));
    const bool pending = spectrum.run_but_outermost_sweep();
    Middle<W> middle{true, DyadicOp::multiply, s, (std::size_t{1} << log2n) - 1, factor_of(scale),
                     pending ? s : nullptr};
    Pipeline(a, out, log2n, threads, g, middle, W(1)).run();
  }

 private:
  static constexpr std::size_t kMinWordsPerThread = std::size_t{1} << 14;

  HWY_INLINE Pipeline(const W* in, W* out, int n, int threads, const Geometry& g, Middle<W> middle, W scale)
      : in_(in),
        x_(out),
        n_(n),
        middle_(middle),
        scale_(scale),
        geometry_(&g),
        gather_bytes_(g.gather_bytes),
        l1_way_bytes_(std::max<std::size_t>(g.l1_way_bytes, 1)),
        l1_ways_(std::max<std::size_t>(g.l1_ways, 2)),
        part_radix_(g.part_sweep_rows >= 2 ? std::min(static_cast<int>(std::bit_width(g.part_sweep_rows)) - 1, Ops::kRadixLog2) : 0),
        l2_bytes_(g.l2_bytes),
        leaf_(bits_of(g.leaf_bytes)),
        lo_(n),
        lead_((sizeof(W) << n) >= g.lead_from_bytes),
        block_words_(std::size_t{1} << std::max(bits_of(g.block_bytes), leaf_)) {
    // An array within one L1 leaf is one block (lo_ = n) on one thread: no walk or team to
    // plan, which was most of a small call's fixed cost. This constructor and run() are
    // inlined and the planning and the walk are not, so such a call costs little but its
    // stages.
    if (n > leaf_) plan_walk(threads, g);
  }

  /// The team and the blocks of an array beyond one leaf: plan(), or what it gave before for
  /// the same call on this CPU's Geometry (plans_).
  HWY_NOINLINE void plan_walk(int threads, const Geometry& g) {
    whole_l1_ = kWholeL1Leaves && !lead_ && l1_way_bytes_ * l1_ways_ >= (sizeof(W) << (leaf_ + 1));
    const int want = threads > 0 ? threads : omp_get_max_threads();
    const bool memo = &g == &Geometry::of_this_cpu() && want <= kMostPlannedThreads;
    std::atomic<std::uint64_t>& slot = plans_[n_][middle_.active][skip_outermost_sweep_];
    if (memo) {
      const std::uint64_t w = slot.load(std::memory_order_relaxed);
      if ((w & 1) != 0 && static_cast<int>(w >> 48) == want) {
        prefetch_ = ((w >> 1) & 1) != 0;
        lo_ = static_cast<int>((w >> 8) & 0xff);
        skew_leaf_ = static_cast<int>((w >> 16) & 0xff);
        team_ = static_cast<int>((w >> 32) & 0xffff);
        return;
      }
    }
    plan(want, g);
    if (memo)
      slot.store(1 | std::uint64_t{prefetch_} << 1 | static_cast<std::uint64_t>(lo_) << 8 |
                     static_cast<std::uint64_t>(skew_leaf_) << 16 | static_cast<std::uint64_t>(team_) << 32 |
                     static_cast<std::uint64_t>(want) << 48,
                 std::memory_order_relaxed);
  }

  /// A walk's plans (team, blocks, skewed leaves, prefetch) for this CPU's Geometry, by size,
  /// middle and left-out outermost sweep, each for the team size it was asked for last, packed
  /// in a word: the search below took 0.2 µs of a two-thread 2^16-float call's 13.6 on the
  /// Zen 3 VM (docs/benchmarks.md). Relaxed: a word is whole or not there, and any word
  /// there is a right plan.
  static constexpr int kMostPlannedThreads = 0xffff;
  static inline std::atomic<std::uint64_t> plans_[64][2][2]{};

  /// plan_walk() for a team of at most `want` threads.
  void plan(int want, const Geometry& g) {
    const int n = n_, block = std::countr_zero(block_words_);
    const std::size_t words = std::size_t{1} << n;
    // A thread joins only for a share of at least kMinWordsPerThread words and the
    // Geometry's minimum: a block on CPUs where moving a smaller share from the caller's
    // cache to the thread's core and back costs more than the thread saves
    // (Geometry::of_this_cpu).
    const std::size_t share = std::max(kMinWordsPerThread, g.min_share_bytes / sizeof(W));
    team_ = static_cast<int>(std::clamp<std::size_t>(words / share, 1, static_cast<std::size_t>(want)));
    prefetch_ = sizeof(W) * words >= g.prefetch_from_bytes;
    // Low bits: one block, or fewer bits so that every thread gets a block.
    lo_ = std::min(block, n - static_cast<int>(std::bit_width(static_cast<unsigned>(team_ - 1))));
    if (team_ == 1) lo_ = std::min(block, n);
    // A lone bit above the blocks would take a radix-2 sweep, which costs a whole pass for one
    // stage; blocks of half the size leave two bits there for the same pass, and the blocks
    // need no more sweeps than before.
    if (lo_ == n - 1 && lo_ - 1 >= leaf_) --lo_;
    // A smaller block where the sweeps inside and above it cost less, each weighed by where
    // it runs (walk_cost). Where radix 16 spills, its one sweep (right after the first) can
    // fill such a block: 2^18 floats in blocks of 2^15 take 5 + 4 + 3 + 3 stages and one
    // radix-8 sweep across the blocks, instead of 5 + 3 + 3 + 3 + 2 and a radix-4 one across
    // blocks of 2^16. With AVX-512 the radix-16 sweeps across parts beyond L2 can: 2^22
    // doubles in blocks of 2^15 (256 KiB) take 7 + 3 + 2 stages in each 32 KiB leaf, a
    // radix-8 sweep across the leaves, one across 2 MiB parts in L2 and a radix-16 one over
    // the L3, instead of 7 + 4 + 3 + 3 in 1 MiB blocks and a radix-8 and a radix-4 sweep over
    // the L3 (and 1.09× faster than blocks of 2^14 and a radix-16 sweep across the 2 MiB
    // parts, whose rows collide in L1); 2^18 doubles in blocks of 2^15 take a radix-8 sweep
    // across them in L2, 1.15× faster than a radix-16 one across blocks of 2^14; two threads
    // on 2^18 floats share eight blocks of 2^15 and a radix-8 sweep instead of two blocks of
    // 2^17 and a radix-2 sweep, 1.18× faster. A team's blocks stay larger than a leaf: two
    // threads on 2^16 int32 and 2^15 int64 words in blocks of one leaf took 1.05× and 1.10×
    // longer (docs/benchmarks.md).
    // (Only for walks: no array of one block here took a sweep fewer in smaller ones, and the
    // search took 1.4 % of a 2^13-float call.)
    if (lo_ < n) {
      const int top = lo_, least = team_ > 1 ? leaf_ + 1 : leaf_;
      int cheapest = walk_cost(top);
      for (int lo = top - 1; lo >= std::max(least, top - Ops::kRadixLog2); --lo)
        if (const int cost = walk_cost(lo); cost + kWalkMargin < cheapest) {
          cheapest = cost;
          lo_ = lo;
        }
      skew_leaf_ = skewed_leaf(lo_);
    }
  }

  /// The sweeps of a walk in blocks of 2^lo words, each weighed by where it runs (sweep_cost):
  /// a block's first sweep and those after it, then those across the blocks.
  int walk_cost(int lo) const {
    const int skewed = skewed_leaf(lo);
    int cost = kSweepCost + (skewed > 0 ? skewed_leaf_cost(skewed) : leaf_cost(leaf_of(lo, lo), lo));
    for (int m = n_; m > lo; m -= split_above(m, lo).k) cost += within_l2(m) ? kSweepCost : kFarSweepCost;
    return cost;
  }

  /// Whether an array of 2^m words fits L2 (Geometry::l2_bytes).
  bool within_l2(int m) const { return (sizeof(W) << m) <= l2_bytes_; }

  /// A smaller block is taken only where it saves more than this (a plan's sweeps weighed as
  /// in walk_cost): on a tie, the larger block's fewer levels.
  static constexpr int kWalkMargin = 4;

  /// Whether src is x itself (never, for words of another type).
  template <class Src>
  static bool is(const Src* src, const W* x) {
    if constexpr (std::is_same_v<Src, W>) return src == x;
    else return false;
  }

  static int bits_of(std::size_t bytes) {
    return std::bit_width(std::max<std::size_t>(bytes / sizeof(W), 1)) - 1;
  }

  static const Route* route_of(int log2n, Order order) {
    if constexpr (std::is_void_v<Route>) return nullptr;
    else return Ops::route_for(log2n, order);
  }

  static W factor_of(double scale) {
    if constexpr (std::is_floating_point_v<W>) return static_cast<W>(scale);
    else return W(1);  // integer rings: the front end divides exactly
  }

  /// Stages s0 … upto−1 (upto = m unless given) of a contiguous array of 2^m words, that is
  /// of each of its 2^upto-word blocks: L1-sized leaves first. With a `scale`, the last sweep
  /// multiplies its words by it before storing them. With `src` (s0 = 0 only), the words
  /// come from src: each leaf's first sweep reads them there, so an out-of-place transform
  /// makes no copy pass of its own. With `held_radix`, a last sweep across rows is left
  /// undone: the stage it would start at is returned and its radix (log2) stored there;
  /// otherwise (and when the first sweep was the last) upto is returned.
  int stages(W* x, int m, int s0, W scale = W(1), const W* src = nullptr, int* held_radix = nullptr,
             int upto = -1) const {
    return stages_from(x, m, s0, scale, src, held_radix, upto);
  }

  /// stages(), src of W or (Ops::kHalves) of 16-bit floats, widened as the first sweep reads them.
  /// With `rotate` (all of the stages, no scale), the results end rotated by that many
  /// words: word i at x[(i + rotate) mod 2^m] (rotated_sweep).
  template <class Src>
  int stages_from(W* x, int m, int s0, W scale, const Src* src, int* held_radix, int upto,
                  std::size_t rotate = 0) const {
    if (upto < 0) upto = m;
    const std::size_t n = std::size_t{1} << m;
    Prefetch ahead = next_block_of(x, m, src);
    if (const int leaf = leaf_of(m, upto); s0 < upto && m > leaf && s0 < leaf) {
      for (std::size_t b = 0; b < n; b += std::size_t{1} << leaf)
        stages_from(x + b, leaf, s0, W(1), src != nullptr ? src + b : nullptr, nullptr, std::min(upto, leaf));
      s0 = std::min(leaf, upto);
      src = nullptr;
    }
    if (s0 >= upto) {
      if (src != nullptr) Ops::copy(x, src, n);
      scale_range(x, n, scale);
      rotate_words(x, n, rotate);
      return upto;
    }
    int s = s0 == 0 ? Ops::first_sweep(x, m, src, upto, lead_, geometry_->lane_pair_loads) : s0;
    if (s >= upto) {  // the first sweep was the only one
      scale_range(x, n, scale);
      rotate_words(x, n, rotate);
      return upto;
    }
    // The rows lie within one L1 leaf, or all of L1 (SimdOps::columns_in_l1).
    const bool in_l1 = m <= leaf_ || (whole_l1_ && m == leaf_ + 1);
    while (s < upto) {
      const std::size_t h = std::size_t{1} << s;
      const int k = chunk(upto - s, radix_for_rows(h));
      if (s + k == upto && held_radix != nullptr) {
        *held_radix = k;
        return s;
      }
      if (s + k == upto && rotate != 0) {
        rotated_sweep(x, h, k, rotate, ahead);
        return upto;
      }
      // The scaled and plain loops apart: a test per codelet call cost 2 % in cache.
      if (s + k == upto && scale != W(1))
        for (std::size_t base = 0; base < n; base += h << k) Ops::columns_scaled(x + base, h, k, 0, h, scale);
      else if (in_l1 && !ahead.pending())
        for (std::size_t base = 0; base < n; base += h << k) Ops::columns_in_l1(x + base, h, k, 0, h);
      else
        for (std::size_t base = 0; base < n; base += h << k) columns_ahead(x + base, h, k, ahead);
      s += k;
    }
    return upto;
  }

  /// What the sweeps of a block of 2^m words at x (its words from src, unless null) that
  /// follow its L1 leaves prefetch, where the walk prefetches (prefetch_): the first half of
  /// the next block's words, where its first sweep will read them, if the array has a next
  /// block. Those sweeps run in L2, and the memory would otherwise sit idle through them: on
  /// the Xeon VM of model 207 each block's first sweep had waited on memory for its words,
  /// and the prefetch took arrays of 128 MiB and more 1.06–1.17× faster (docs/benchmarks.md).
  /// A whole block's worth gained less at 2^25 floats (1.08× against 1.13×) and cost more
  /// where the array sat in the L3 (0.93–0.96× against 0.98–1.00×).
  template <class Src>
  Prefetch next_block_of(const W* x, int m, const Src* src) const {
    if constexpr (kPrefetches) {
      if (!prefetch_ || m != lo_) return {};  // every leaf's call passes here: the cheap tests first
      const std::size_t n = std::size_t{1} << m;
      if (static_cast<std::size_t>(x - x_) + 2 * n > (std::size_t{1} << n_)) return {};  // the last block
      if (src != nullptr && !is(src, x)) {
        const auto* from = reinterpret_cast<const char*>(src + n);
        return {from, from + n / 2 * sizeof(Src)};
      }
      const auto* from = reinterpret_cast<const char*>(x + n);
      return {from, from + n / 2 * sizeof(W)};
    }
    return {};
  }

  static constexpr bool kPrefetches = PrefetchingOps<Ops>;

  /// Ops::columns on every column of 2^k rows h words apart, prefetching as it goes while
  /// `ahead` has lines left.
  static void columns_ahead(W* x, std::size_t h, int k, Prefetch& ahead) {
    if constexpr (kPrefetches)
      if (ahead.pending()) return Ops::columns_prefetching(x, h, k, 0, h, ahead);
    Ops::columns(x, h, k, 0, h);
  }

  /// The leaves (log2 of their words) whose stages an array of 2^m words takes first (stages
  /// up to `upto`), each in L1: a leaf's worth, or half of it for an array of exactly two
  /// leaves, whose stage across them would otherwise be a radix-2 sweep of its own. That
  /// costs a sweep's loads and stores for one add a vector; with half leaves it goes with the
  /// next stage in a radix-4 sweep, and the leaves need no more sweeps than before.
  ///
  /// Or a leaf of a quarter or half that (an eighth, where radix 16 spills), where that
  /// takes fewer sweeps in all: each sweep costs a store a vector besides its adds, and a
  /// leaf whose stages after the first sweep fill radix-8 sweeps can need one sweep fewer.
  /// With 128-bit vectors of floats (five stages in the first sweep), leaves of 2^12 take
  /// 5 + 3 + 2 + 2 stages, leaves of 2^11 5 + 3 + 3; 2^16 floats then take 5 sweeps instead
  /// of 6 (docs/benchmarks.md). Of plans with as few sweeps, the one with fewer spilling
  /// radix-16 sweeps (sweep_cost).
  ///
  /// Or, where L1 holds two leaves (whole_l1_), a leaf of all of L1, where that costs less
  /// with its sweeps weighed as kWholeL1SweepCost: an array of exactly L1's size is then one
  /// leaf (its sweeps columns_in_l1's), and an array of 8 L1s takes one of its two sweeps
  /// across rows in L2 in L1 instead. On the AMD EPYC Zen 3 VM (32 KiB L1, 16 KiB leaves)
  /// 2^12 doubles and 2^13 floats ran 1.08–1.10× faster, 2^15 doubles and 2^16 floats
  /// 1.05–1.06×, and 2^18 doubles, whose blocks are such arrays, 1.04× (best of many calls;
  /// docs/benchmarks.md); leaves of all of L1 everywhere had taken 2^17 doubles and 2^18
  /// floats 0.94× as fast. Not where each leaf's first sweep reads it from memory (lead_):
  /// there 2^24 doubles ran 0.94–0.95× as fast with them.
  int leaf_of(int m, int upto) const {
    const int base = m == leaf_ + 1 && leaf_ > 0 ? leaf_ - 1 : std::min(m, leaf_);
    if (upto <= base) return base;
    constexpr int kFirst = kFirstSweepStages;
    int best = base, cheapest = leaf_cost(base, upto);
    for (int leaf = base - 1; leaf > kFirst && leaf > base - Ops::kColumnsRadixLog2; --leaf)
      if (const int cost = leaf_cost(leaf, upto); cost < cheapest) {
        best = leaf;
        cheapest = cost;
      }
    if (whole_l1_ && m > leaf_ && upto > leaf_ && leaf_cost(leaf_ + 1, upto) < cheapest) best = leaf_ + 1;
    return best;
  }

  /// The sweeps after the first of a block in leaves of 2^leaf words, up to stage `upto`:
  /// those in each leaf run in L1, those across the leaves in L2.
  int leaf_cost(int leaf, int upto) const {
    return sweep_cost(kFirstSweepStages, leaf, leaf > leaf_ ? kWholeL1SweepCost : kL1SweepCost) +
           sweep_cost(leaf, upto, kSweepCost);
  }

  /// leaf_cost() of a block whose stages above its leaves of 2^leaf words are one skewed
  /// sweep (skewed_leaf).
  int skewed_leaf_cost(int leaf) const { return sweep_cost(kFirstSweepStages, leaf, kL1SweepCost) + kSweepCost; }

  /// The leaves (log2 of their words) of blocks of 2^lo words that are the parts of a skewed
  /// outermost sweep (skews) and whose stages above their leaves take one sweep of more rows
  /// than L1 has ways, where that plan costs less than leaf_of's; 0 where none. Each leaf's
  /// last sweep then stores it rotated by (part + leaf index) vectors, the sweep across the
  /// leaves reads and writes each row in place where it lies (skewed_in_place: a column's
  /// rows fall in as many L1 sets as there are rows), and the outermost sweep reads each
  /// part leaf by leaf (skewed_sweep). On AVX-512 that turns a block's two sweeps across 16
  /// leaves (radix 4 and 4, or 8 and 8 across 64 smaller leaves) into one of radix 16.
  int skewed_leaf(int lo) const {
    if constexpr (!kSkews) {
      return 0;
    } else {
      if (middle_.active || lo >= n_) return 0;
      const Split sp = split_above(n_, lo);
      if (n_ - sp.k != lo || !skews(sp, std::size_t{1} << lo)) return 0;
      const int leaf = lo - Ops::kRadixLog2;  // one sweep of the most rows the codelets hold
      const std::size_t most = (std::size_t{1} << sp.k) - 1, rows = std::size_t{1} << Ops::kRadixLog2;
      // The sweep across the leaves as any other below a skewed one (skews_in_place), and the
      // leaves' last sweeps rotate them directly only where a row of theirs is longer than the
      // largest rotation (rotated_sweep).
      if (leaf > leaf_ || leaf <= kFirstSweepStages || !skews_in_place(lo, Split{Ops::kRadixLog2, false}, most) ||
          last_sweep_rows(leaf) < (most + rows) * kVectorWords)
        return 0;
      return skewed_leaf_cost(leaf) < leaf_cost(leaf_of(lo, lo), lo) ? leaf : 0;
    }
  }

  /// The words of each row of the last sweep of a leaf of 2^leaf words (stages_from); 0
  /// where the first sweep is its last.
  std::size_t last_sweep_rows(int leaf) const {
    for (int s = kFirstSweepStages; s < leaf;) {
      const int k = chunk(leaf - s, radix_for_rows(std::size_t{1} << s));
      if (s + k == leaf) return std::size_t{1} << s;
      s += k;
    }
    return 0;
  }

  /// The sweeps across rows that stages_from() takes from stage s to stage `upto`, `each`
  /// apiece, plus one for each radix-16 sweep of a 16-register target (kSpillsRadix16):
  /// those cost more a stage than radix 8, so they are taken only where they save a sweep.
  /// (On the first-Zen VM, floats at 2^16 … 2^22 that traded a radix-8 sweep for a radix-16
  /// one and a radix-4 one, in as many sweeps, took 1.02–1.04× longer.)
  int sweep_cost(int s, int upto, int each) const {
    int cost = 0;
    for (; s < upto; cost += each) {
      const int k = chunk(upto - s, radix_for_rows(std::size_t{1} << s));
      if (kSpillsRadix16 && k > Ops::kRadixLog2) ++cost;
      s += k;
    }
    return cost;
  }
  /// What the plans count a sweep as, by where its rows are: in an L1 leaf, in L2 (across a
  /// block's leaves, or across the parts of an array within L2), or beyond L2. Each moves
  /// every word through its level once; on the Xeon VM of model 207 the sweeps of 2^18
  /// doubles took 22 µs in L1 (radix 16) and 36 µs in L2 (radix 8), and a radix-8 sweep over
  /// 2 MiB of an array in the L3 66–77 µs (a one-off program). There the plans of floats and
  /// doubles at 2^17 … 2^28 came out the same with 32 or 40 for kFarSweepCost.
  static constexpr int kL1SweepCost = 10, kSweepCost = 16, kFarSweepCost = 24;
  /// A sweep within a leaf of all of L1 (leaf_of): more than one within a smaller leaf, which
  /// leaves room in L1 for the lines that the sweeps around it read; less than one in L2.
  static constexpr int kWholeL1SweepCost = 12;

  static constexpr int kFirstSweepStages = Ops::kLanesLog2 + Ops::kRadixLog2;  ///< in-vector and across

  /// Whether the sweeps across rows may be radix 16 where the first sweep holds radix 8 in
  /// 16 registers (SimdOps::kColumnsRadixLog2: the AVX2 copies), at the cost of two spilled
  /// vectors in 16.
  static constexpr bool kSpillsRadix16 = Ops::kColumnsRadixLog2 > Ops::kRadixLog2;

  /// Whether plans may take leaves of all of L1 (leaf_of): on the AVX2 copy's 256-bit
  /// vectors, whose 16 registers hold radix 16 with two spilled, where it was measured.
  static constexpr bool kWholeL1Leaves = kSpillsRadix16 && vector_words<Ops>() * sizeof(W) >= 32;

  /// The largest radix (log2) whose rows, h words apart, all fit one L1 set: a codelet loads
  /// one line of each of its 2^k rows and then stores them back, and rows that alias in L1
  /// beyond its ways evict each other before the stores, which then miss. On the Xeon VM
  /// (32 KiB, 8 ways) radix-8 sweeps instead of radix-16 ones at strides of 4 KiB and more
  /// took 2^18 floats from 0.211 to 0.152 ms and 2^20 from 1.02 to 0.853 ms; 2–28 % off
  /// floats and doubles at 2^16 … 2^21 (docs/benchmarks.md).
  ///
  /// Where radix 16 spills (kSpillsRadix16), it is taken only for rows that each fall in a set
  /// of their own: on the first-Zen VM, right after the first sweep (rows 128 B apart) 2^12
  /// and 2^15 floats went from 4 and 5 sweeps to 3 and 4 and ran 1.13× and 1.12× faster,
  /// but radix 16 at rows 2 KiB apart (two sets) cost about what the sweep it saved did
  /// (2^13 floats 1.01–1.02×, 2^16 0.99–1.01×; docs/benchmarks.md).
  int radix_for_rows(std::size_t h) const {
    const std::size_t stride = h * sizeof(W);
    // The rows cycle through `sets` sets: one once the stride is a multiple of the way size.
    const std::size_t sets = stride >= l1_way_bytes_ ? 1 : l1_way_bytes_ / stride;
    const auto fits = [&](int k) {
      const std::size_t rows = std::size_t{1} << k;
      return rows <= l1_ways_ * sets && (!kSpillsRadix16 || k <= Ops::kRadixLog2 || rows <= sets);
    };
    int k = Ops::kColumnsRadixLog2;
    while (k > 1 && !fits(k)) --k;
    return k;
  }

  /// How many of the `left` stages the next sweep of radix at most 2^r takes: the radix, but
  /// never leaving a lone stage behind when two balanced sweeps do the same work. Where
  /// radix 16 spills, the sweeps are balanced whenever it takes more than one: 3 + 3 stages
  /// instead of 4 + 2 (2^11 floats took 1.05× longer with 4 + 2 on the first-Zen VM).
  static int chunk(int left, int r = Ops::kColumnsRadixLog2) {
    if (left <= r) return left;
    if (kSpillsRadix16 && r > Ops::kRadixLog2) {
      const int count = (left + r - 1) / r;
      return (left + count - 1) / count;
    }
    if (left == r + 1) return (left + 1) / 2;
    return r;
  }

  /// Whether S[i] belongs with x[i] over an array of `words` (the fused codelet reads S in
  /// x's own pattern): a spectrum that is not shorter, or none (squaring).
  bool spectrum_lies_as_x(std::size_t words) const {
    return middle_.op == DyadicOp::square || middle_.spectrum_mask + 1 >= words;
  }

  static void scale_range(W* x, std::size_t count, W scale) {
    if (scale == W(1)) return;
    for (std::size_t k = 0; k < count; ++k) x[k] *= scale;
  }

  /// run() but for the outermost sweep, where convolve()'s middle will do it on these words
  /// (true); otherwise the whole of run() (false). Not for a team sharing an array of a
  /// block or less: there the middle read the other core's rows of S, just written, and
  /// 2^15 … 2^17 floats took 1.2–1.5× the time of a whole spectrum first (docs/benchmarks.md).
  bool run_but_outermost_sweep() {
    const bool shared_block = team_ > 1 && (std::size_t{1} << n_) <= block_words_;
    if (!Ops::kMiddleInRegisters || shared_block) {
      run();
      return false;
    }
    if (lo_ == n_) {
      int k = 0;
      return stages(x_, n_, 0, W(1), in_ != x_ ? in_ : nullptr, &k) < n_;
    }
    leave_outermost_sweep();
    run();
    return true;
  }

  /// The outermost sweep left to the caller from here on (run_but_outermost_sweep, wht16):
  /// the walk is planned again where it had counted on that sweep to skew (skewed_leaf), as
  /// a walk with a middle plans it — convolve()'s two walks must split the array alike.
  void leave_outermost_sweep() {
    skip_outermost_sweep_ = true;
    if (skew_leaf_ != 0) plan_walk(team_, *geometry_);
  }

  /// The transform (with the middle, if any) of in_ into x_.
  HWY_INLINE void run() {
    if (lo_ == n_ && !middle_.active) {  // one block, in cache: its stages (inlined for small calls)
      stages(x_, n_, 0, scale_, in_ != x_ ? in_ : nullptr);
      return;
    }
    run_walk();
  }

  /// run() of one block with a middle, or of a walk.
  HWY_NOINLINE void run_walk() {
    const std::size_t words = std::size_t{1} << n_;
    if (lo_ == n_) {  // one block: everything in cache
      const W* src = in_ != x_ ? in_ : nullptr;
      // The last forward sweep, the middle and the same stages back in registers (as the
      // top sweep of larger arrays does), then the stages below it back; or, where the
      // codelet cannot (a shorter spectrum, one sweep in all), three steps.
      int k = 0;
      const int s = stages(x_, n_, 0, W(1), src, spectrum_lies_as_x(words) ? &k : nullptr);
      if (s < n_) {
        const std::size_t h = std::size_t{1} << s;
        if (Ops::columns_middle(x_, h, k, 0, h, middle_.spectrum, middle_.op, middle_.factor,
                                middle_.pending != nullptr)) {
          stages(x_, n_, 0, scale_, nullptr, nullptr, s);
          return;
        }
        if (middle_.pending != nullptr) Ops::columns(middle_.pending, h, k, 0, h);
        Ops::columns(x_, h, k, 0, h);
      }
      combine_range(x_, words, middle_.op, middle_.spectrum, 0, middle_.spectrum_mask, middle_.factor);
      stages(x_, n_, 0, scale_);
      return;
    }
    allocate_buffers();
    if (const Split sp = split(n_); skews(sp, std::size_t{1} << (n_ - sp.k))) plan_skew(sp.k);
#pragma omp parallel num_threads(team_) if (team_ > 1)
    team_transform(in_, x_, n_, true);
  }

  /// The gathered sweeps' buffers, one per thread, for arrays that take them.
  void allocate_buffers() {
    if ((sizeof(W) << n_) >= gather_bytes_)
      buffers_.reset(new (std::align_val_t{64}) W[buffer_words() * static_cast<std::size_t>(team_)]);
  }

  bool run_bounded() {
    const std::size_t words = std::size_t{1} << n_;
    if (team_ > 1) {  // the team checks its shares first, then transforms as usual
      const auto team = static_cast<std::size_t>(team_);
      bool fits = true;
#pragma omp parallel for num_threads(team_) schedule(static) reduction(&& : fits)
      for (std::size_t t = 0; t < team; ++t)
        fits = Ops::below(in_ + t * words / team, (t + 1) * words / team - t * words / team, limit_);
      if (!fits) return false;
      run();
      return true;
    }
    allocate_buffers();
    return forward_bounded(in_, x_, n_);
  }

  /// forward(), each L1 leaf checked against the limit as its first sweep reads it, group of
  /// registers by group (SimdOps::first_sweep_bounded). On a group that fails: false, and (in
  /// place) the groups and parts before it are restored.
  bool forward_bounded(const W* src, W* x, int m) const {
    const std::size_t words = std::size_t{1} << m;
    if (m <= lo_) {  // leaf by leaf: each checked and transformed as it comes into L1
      const int leaf = leaf_of(m, m);
      const std::size_t leaf_words = std::size_t{1} << leaf;
      for (std::size_t i = 0; i < words; i += leaf_words) {
        const BoundedSweep first = Ops::first_sweep_bounded(x + i, leaf, src + i, limit_, lead_, geometry_->lane_pair_loads);
        if (first.words < leaf_words) {
          if (src == x) {
            undo(x + i, first.words >> first.stages, first.stages);  // its groups done: transforms of 2^stages
            undo(x, i >> leaf, leaf);
          }
          return false;
        }
        stages(x + i, leaf, first.stages);
      }
      stages(x, m, leaf);
      return true;
    }
    const Split sp = split(m);
    const int sub = m - sp.k;
    const std::size_t part = std::size_t{1} << sub;
    for (std::size_t i = 0; i < (std::size_t{1} << sp.k); ++i)
      if (!forward_bounded(src + i * part, x + i * part, sub)) {
        if (src == x) undo(x, i, sub);
        return false;
      }
    sweep(x, part, sp, 0, part, false, false);
    return true;
  }

  static constexpr bool kCheckable = std::is_same_v<W, std::uint32_t> || std::is_same_v<W, std::uint64_t>;

  /// f(at, run) over `rows` rows of 2^log2n words from x, cut into runs of 2^run words: 2^top
  /// words' worth of rows (a leaf's unless given; one row, if rows are longer), then the rest
  /// in power-of-two runs, largest first.
  template <class X, class F>
  void rows_in_runs(X* x, std::size_t rows, int log2n, F&& f, int top = -1) const {
    std::size_t done = 0;
    for (int run = std::max(top < 0 ? leaf_ : top, log2n); run >= log2n; --run)
      for (const std::size_t count = std::size_t{1} << (run - log2n); rows - done >= count; done += count)
        f(x + (done << log2n), run);
  }

  /// The outermost sweep, direct, by the team (after the parts): its results, times the
  /// scale, rounded into the 16-bit floats of out.
  template <class H>
  void outermost_sweep_into(H* out) const {
    const Split sp = split(n_);
    const std::size_t part = std::size_t{1} << (n_ - sp.k);
    const std::size_t cols = chunk_columns(part, sp);
    const auto chunks = static_cast<std::ptrdiff_t>(part / cols);
#pragma omp for schedule(static)
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
      const std::size_t j0 = static_cast<std::size_t>(c) * cols;
      Ops::columns_to(x_ + j0, part, out + j0, part, sp.k, cols, false, scale_);
    }
  }

  /// wht16_rows on a run of 2^run 16-bit floats: its rows of 2^log2n (into route_'s order,
  /// if there is one: then the first sweep covers them whole).
  template <class H>
  void run16(H* at, int run, int log2n, W factor, W* scratch) const {
    if (Ops::first_sweep_only(at, run, log2n, factor, route_, geometry_->lane_pair_loads)) return;
    if (run < Ops::kLanesLog2) return short_run(at, run, log2n, factor);
    const std::size_t n = std::size_t{1} << run;
    int k = 0;
    const int s = stages_from(scratch, run, 0, W(1), at, &k, log2n);
    const std::size_t h = std::size_t{1} << s;
    for (std::size_t base = 0; base < n; base += h << k)
      Ops::columns_to(scratch + base, h, at + base, h, k, h, false, factor);
  }

  /// The rows of 2^log2n words in a run of 2^run (one row: a whole walk of its own), into
  /// route_'s order if there is one.
  void transform_run(W* at, int run, int log2n, double scale) const {
    if (route_ != nullptr) ordered_run(at, run, log2n, factor_of(scale));
    else if (run == log2n && log2n > leaf_) wht(at, at, log2n, 1, scale, *geometry_);
    else stages(at, run, 0, factor_of(scale), nullptr, nullptr, log2n);
  }

  /// The rows of 2^log2n words in a run of 2^run, times factor, each into route_'s order in
  /// the first sweep's registers; a run shorter than a vector word by word.
  void ordered_run(W* at, int run, int log2n, W factor) const {
    if constexpr (!std::is_void_v<Route>) {
      if (!Ops::first_sweep_only(at, run, log2n, factor, route_, geometry_->lane_pair_loads)) short_run(at, run, log2n, factor);
    }
  }

  /// The rows of 2^log2n words of a run of 2^run shorter than a vector (X: W, or 16-bit
  /// floats), in place, times factor, in route_'s order if there is one: transformed in words
  /// on the stack, then stored each where its order puts it.
  template <class X>
  void short_run(X* at, int run, int log2n, W factor) const {
    if constexpr (!std::is_void_v<Route>) {
      W words[Ops::kLanes];
      stages_from(words, run, 0, W(1), at, nullptr, log2n);
      for (std::size_t i = 0; i < (std::size_t{1} << run); ++i)
        at[i] = static_cast<X>(words[from_natural(i, log2n)] * factor);
    }
  }

  /// Where word i of rows of 2^log2n back to back comes from in their natural order: i, or
  /// in route_'s order.
  std::size_t from_natural(std::size_t i, int log2n) const {
    if constexpr (!std::is_void_v<Route>) {
      if (route_ != nullptr) {
        const std::size_t size = std::size_t{1} << log2n;
        return (i & ~(size - 1)) | natural_index(i & (size - 1), log2n, route_->order);
      }
    }
    return i;
  }

  /// How many rows, from the first, wht_rows transformed before a word failed the limit
  /// (all: none failed); checked a run of a quarter leaf at a time, before the run is
  /// transformed. (Runs of a leaf took int32 rows of 2^10 1.15× as long, 4096 of them 1.25
  /// against 1.09 ms, and rows of 2^4 … 2^8 1.03–1.05×; float rows, unchecked, lost 2–5 % in
  /// quarter-leaf runs, so they keep whole leaves.)
  std::size_t rows_bounded(W* x, std::size_t rows, int log2n) const {
    std::size_t done = 0;
    bool fits = true;
    rows_in_runs(x, rows, log2n, [&](W* at, int run) {
      if (!fits) return;
      if (run == log2n && log2n > leaf_ && route_ == nullptr) {  // a long row: checked leaf by leaf in its walk
        fits = wht_bounded(at, at, log2n, 1, limit_, *geometry_);
      } else {
        fits = Ops::below(at, std::size_t{1} << run, limit_);
        if (fits) transform_run(at, run, log2n, 1.0);
      }
      if (fits) done += std::size_t{1} << (run - log2n);
    }, leaf_ - 2);
    return done;
  }

  /// A run that rows_bounded transformed, restored as undo() restores parts.
  void undo_run(W* at, int run, int log2n) const {
    transform_run(at, run, log2n, 1.0);
    divide_out(at, std::size_t{1} << run, log2n);
  }

  /// Restores the first `parts` parts of 2^sub words, each transformed from values below
  /// 2^limit_: a second transform gives 2^sub times the values exactly (W·W = 2^sub·I in the
  /// ring, and 2^sub·2^limit_ fits the signed word), and an arithmetic shift divides it out.
  void undo(W* x, std::size_t parts, int sub) const {
    const std::size_t part = std::size_t{1} << sub;
    for (std::size_t i = 0; i < parts; ++i) {
      W* p = x + i * part;
      forward(p, p, sub);
      divide_out(p, part, sub);
    }
  }

  /// How a level of 2^m words splits: its top k bits, swept directly or, for arrays of
  /// gather_bytes or more, through a buffer (k ≤ kGatherBits). A direct sweep's 2^k rows are
  /// parts at least 2^lo_ words apart, so the L1-set rule of the in-cache sweeps
  /// (radix_for_rows) caps it too: on the AMD EPYC Zen 4 VM, radix 8 instead of 16 took
  /// 2^22 … 2^24 floats and 2^21 … 2^23 doubles 4–12 % faster in two A/B runs
  /// (docs/benchmarks.md). Where the Geometry gives part_sweep_rows, that caps it instead
  /// over arrays beyond L2 (radix 16 on Intel CPUs, Geometry::of_this_cpu).
  /// On the AMD EPYC VM, direct sweeps over big arrays were slow: their 2^k streams sit a
  /// large power of two apart and collided in caches and DRAM banks (measured 2.5× slower
  /// than one stream), and gathered rows of a few KiB each read like one stream. On the
  /// Intel Xeon VM the direct ones were faster (Geometry::of_this_cpu decides).
  struct Split {
    int k;
    bool gather;
  };
  static constexpr int kGatherBits = 6;
  static constexpr std::size_t kMinGatherWidth = 64;  ///< words per gathered row, at least

  Split split(int m) const { return split_above(m, lo_); }

  /// split() with blocks of 2^lo words.
  Split split_above(int m, int lo) const {
    if ((sizeof(W) << m) >= gather_bytes_) return {std::min(m - lo, kGatherBits), true};
    return {chunk(m - lo, part_radix_ > 0 && !within_l2(m) ? part_radix_ : radix_for_rows(std::size_t{1} << lo)), false};
  }

  /// Two chunks of a gathered sweep (it reads one while it writes the other), and a third
  /// for the spectrum's chunk where its stages are pending (convolve()).
  std::size_t buffer_words() const {
    return (middle_.pending != nullptr ? 3 : 2) * std::max(block_words_, kMinGatherWidth << kGatherBits);
  }

  /// Columns per chunk of a sweep across 2^k rows of `run` words: a block's worth (rows of
  /// 16 KiB at 2^28 floats; two blocks' worth measured the same, four 0.92–0.98×), or less
  /// to give every thread of the team direct chunks.
  std::size_t chunk_columns(std::size_t run, const Split& sp) const {
    std::size_t cols = std::min(run, std::max(kMinGatherWidth, block_words_ >> sp.k));
    if (!sp.gather)  // enough chunks for the team
      while (cols > 64 && (run / cols) < 4 * static_cast<std::size_t>(team_)) cols /= 2;
    return cols;
  }

  /// A whole transform of 2^m words (`src` copied in when it is not `x`) by every thread of
  /// the team: the parts below the top bits are shared out — or, if there are fewer parts than
  /// threads, worked through one by one by the whole team — then the top sweep is split by
  /// column chunks. The outermost level also does the dyadic middle (and then transforms the
  /// parts again) or the scale.
  template <class Src>
  void team_transform(const Src* src, W* x, int m, bool outermost) const {
    if (m <= lo_) {
#pragma omp single
      forward(src, x, m);
      return;
    }
    const Split sp = split(m);
    const int sub = m - sp.k;
    const std::size_t part = std::size_t{1} << sub;
    const auto parts = static_cast<std::ptrdiff_t>(std::size_t{1} << sp.k);
    auto transform_parts = [&](const auto* from) {
      if ((parts >= team_ && !crowds_l3(sub)) || sub <= lo_) {
#pragma omp for schedule(static) nowait
        for (std::ptrdiff_t i = 0; i < parts; ++i) forward(from + i * part, x + i * part, sub);
        barrier_.wait(omp_get_num_threads());
      } else {
        for (std::ptrdiff_t i = 0; i < parts; ++i) team_transform(from + i * part, x + i * part, sub, false);
      }
    };
    if (outermost && skew_scratch_ != nullptr) {  // the parts rotated, then read so (skews)
#pragma omp for schedule(static) nowait
      for (std::ptrdiff_t i = 0; i < parts; ++i) rotated_part(src + i * part, x + i * part, sub, static_cast<std::size_t>(i));
      barrier_.wait(omp_get_num_threads());
      skewed_sweep(x, part, sp.k, scale_);
      return;
    }
    transform_parts(src);
    if (outermost && skip_outermost_sweep_) return;
    const std::size_t cols = chunk_columns(part, sp);
    const auto chunks = static_cast<std::ptrdiff_t>(part / cols);
    const bool fused = outermost && middle_.active, scale = outermost && !middle_.active;
    if (sp.gather) {
      // Each thread pipelines a run of whole chunks through its buffers.
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const auto team = static_cast<std::size_t>(omp_get_num_threads());
      const auto share = [&](std::size_t i) { return i * static_cast<std::size_t>(chunks) / team * cols; };
      sweep(x, part, sp, share(t), share(t + 1), fused, scale);
      if (scale) return;  // the last step of the whole transform: the region's own barrier ends it
      barrier_.wait(static_cast<int>(team));
    } else {
      auto sweep_chunk = [&](std::ptrdiff_t c) {
        const auto j0 = static_cast<std::size_t>(c) * cols;
        sweep(x, part, sp, j0, j0 + cols, fused, scale);
      };
      if (scale) {
        // The last step of the whole transform: the parallel region's own barrier ends it.
#pragma omp for schedule(static) nowait
        for (std::ptrdiff_t c = 0; c < chunks; ++c) sweep_chunk(c);
        return;
      }
#pragma omp for schedule(static) nowait
      for (std::ptrdiff_t c = 0; c < chunks; ++c) sweep_chunk(c);
      barrier_.wait(omp_get_num_threads());
    }
    if (fused) transform_parts(x);
  }

  /// Whether a team's threads, each on a part of 2^sub words at once, would hold more than
  /// their L3 budget (Geometry::l3_budget_bytes): then the whole team works through the parts
  /// one by one instead, so that each one's sweeps stay in the L3.
  bool crowds_l3(int sub) const {
    const std::size_t budget = geometry_->l3_budget_bytes;
    const std::size_t at_once = std::min(static_cast<std::size_t>(team_), std::max<std::size_t>(geometry_->l3_threads, 1));
    return budget != 0 && team_ > 1 && (sizeof(W) << sub) * at_once > budget;
  }

  /// All stages of 2^m words on one thread, depth first: the parts below the top bits first
  /// (each small enough, sooner or later, to stay in cache), then the sweep across them. With
  /// `rotate`, the results end rotated by that many words (stages_from).
  template <class Src>
  void forward(const Src* src, W* x, int m, std::size_t rotate = 0) const {
    if (m <= lo_) {
      stages_from(x, m, 0, W(1), is(src, x) ? nullptr : src, nullptr, -1, rotate);
      return;
    }
    const Split sp = split(m);
    const int sub = m - sp.k;
    const std::size_t part = std::size_t{1} << sub;
    for (std::size_t i = 0; i < (std::size_t{1} << sp.k); ++i) forward(src + i * part, x + i * part, sub);
    if (rotate != 0 && !sp.gather) return rotated_sweep(x, part, sp.k, rotate);
    sweep(x, part, sp, 0, part, false, false);
    rotate_words(x, std::size_t{1} << m, rotate);
  }

  /// Whether the outermost sweep, across the 2^sp.k parts of `part` words, reads them
  /// rotated (skewed_sweep): where its rows would otherwise all fall in one L1 set, more of
  /// them than L1 has ways (radix 16 across parts on Intel CPUs, Geometry::part_sweep_rows),
  /// for a plain transform whose parts each go to one thread (team_transform).
  bool skews(const Split& sp, std::size_t part) const {
    if constexpr (!kSkews) {
      return false;
    } else {
      const std::size_t rows = std::size_t{1} << sp.k, team = static_cast<std::size_t>(team_);
      const int sub = std::countr_zero(part);
      return !middle_.active && !skip_outermost_sweep_ && !sp.gather && sp.k <= Ops::kRadixLog2 &&
             rows > l1_ways_ && (part * sizeof(W)) % l1_way_bytes_ == 0 && part / team >= 4 * rows * kVectorWords &&
             (team == 1 || (rows >= team && !crowds_l3(sub)));
    }
  }

  static constexpr bool kSkews = SkewingOps<Ops>;

  /// How far down the walk a skewed outermost sweep across 2^k parts reaches (skew_unit_),
  /// and each thread's scratch. Below it, every sweep of more rows than L1 has ways, across
  /// parts a multiple of L1's way apart (skews_in_place), reads and writes its rows in place
  /// where they lie, each row rotated within its units; the units, where that stops, are
  /// rotated whole by their own last sweeps (rotated_part). The blocks' skewed leaves
  /// (skew_leaf_), where the plan took them, are the units.
  void plan_skew(int k) {
    std::size_t most = (std::size_t{1} << k) - 1;  // the largest rotation of a unit, in vectors
    int unit = n_ - k;
    if (skew_leaf_ != 0) {
      most += (std::size_t{1} << (lo_ - skew_leaf_)) - 1;
      unit = skew_leaf_;
    }
    while (skew_leaf_ == 0 && unit > lo_) {
      const Split sp = split(unit);
      if (!skews_in_place(unit, sp, most)) break;
      most += (std::size_t{1} << sp.k) - 1;
      unit -= sp.k;
    }
    skew_unit_ = unit;
    skew_words_ = std::max<std::size_t>(std::size_t{1} << Ops::kColumnsRadixLog2, std::size_t{2} << k) * most * kVectorWords;
    skew_scratch_.reset(new (std::align_val_t{64}) W[skew_words_ * static_cast<std::size_t>(team_)]);
  }

  /// Whether the sweep across the parts of 2^m words (split sp) below a skewed one reads and
  /// writes them in place where they lie: more rows than L1 has ways, a multiple of its way
  /// apart, each long enough for rotations of up to `most` vectors plus its own index.
  bool skews_in_place(int m, const Split& sp, std::size_t most) const {
    const int sub = m - sp.k;
    const std::size_t rows = std::size_t{1} << sp.k;
    return !sp.gather && sp.k <= Ops::kRadixLog2 && rows > l1_ways_ && (sizeof(W) << sub) % l1_way_bytes_ == 0 &&
           (std::size_t{1} << sub) >= 4 * (most + rows - 1) * kVectorWords;
  }

  /// Part `base` (or a part within it, the rotations of its levels above summed in `base`) of
  /// a skewed outermost sweep, 2^m words from src into x, laid out as the sweeps above read
  /// it: a unit (skew_unit_) rotated whole by `base` vectors (forward's `rotate`); otherwise
  /// its parts (or a block's leaves) each so, part i by base + i, and then the sweep across
  /// them in place where they lie (skewed_in_place).
  template <class Src>
  void rotated_part(const Src* src, W* x, int m, std::size_t base) const {
    if (m == skew_unit_) return forward(src, x, m, base * kVectorWords);
    if (m == lo_) {  // skewed leaves
      const std::size_t leaf = std::size_t{1} << skew_unit_, words = std::size_t{1} << m;
      for (std::size_t b = 0, i = base; b < words; b += leaf, ++i)
        stages_from(x + b, skew_unit_, 0, W(1), is(src, x) ? nullptr : src + b, nullptr, -1, i * kVectorWords);
      return skewed_in_place(x, leaf, m - skew_unit_, base);
    }
    const Split sp = split(m);
    const std::size_t part = std::size_t{1} << (m - sp.k);
    for (std::size_t i = 0; i < (std::size_t{1} << sp.k); ++i) rotated_part(src + i * part, x + i * part, m - sp.k, base + i);
    skewed_in_place(x, part, sp.k, base);
  }

  /// The rotation (in vectors) that unit u of a part of 2^m words has beyond its part's: the
  /// sum of its indices at each level of the walk from there down to the units (rotated_part).
  std::size_t unit_rotation(int m, std::size_t u) const {
    std::size_t sum = 0;
    while (m > skew_unit_) {
      const int sub = m == lo_ ? skew_unit_ : m - split(m).k;
      const std::size_t per = std::size_t{1} << (sub - skew_unit_);
      sum += u / per;
      u %= per;
      m = sub;
    }
    return sum;
  }

  /// All 2^k stages across 2^k rows h words apart, in place where the words lie: row r's unit
  /// u rotated within itself by base + r + unit_rotation(u) vectors. In each unit, the
  /// columns that no row's rotation wraps around directly (Walk::skewed), the others through
  /// this thread's scratch.
  void skewed_in_place(W* x, std::size_t h, int k, std::size_t base) const {
    if constexpr (kSkews) {
      const std::size_t rows = std::size_t{1} << k, unit = std::min(h, std::size_t{1} << skew_unit_);
      const int row_bits = std::countr_zero(h);
      W* const tails = skew_scratch_of(omp_get_thread_num());
      for (std::size_t u = 0; u < h / unit; ++u) {
        W* const at = x + u * unit;
        const std::size_t first = (base + unit_rotation(row_bits, u)) * kVectorWords;
        const std::size_t span = first + (rows - 1) * kVectorWords;
        Ops::columns_skewed_in_place(at + first, h, k, 0, unit - span);
        // Row r's columns unit − span … unit − 1 lie at unit − span + shift … unit − 1, then 0 … shift − 1.
        const auto each_tail = [&](auto&& move) {
          for (std::size_t r = 0; r < rows; ++r) {
            const std::size_t shift = first + r * kVectorWords, own = span - shift;
            move(tails + r * span, at + r * h + unit - own, own);
            move(tails + r * span + own, at + r * h, shift);
          }
        };
        each_tail([](W* t, W* w, std::size_t count) { Ops::copy(t, w, count); });
        Ops::columns(tails, span, k, 0, span);
        each_tail([](W* t, W* w, std::size_t count) { Ops::copy(w, t, count); });
      }
    }
  }

  /// The words of a vector, by which rotated parts are rotated (1 where nothing skews).
  static constexpr std::size_t kVectorWords = vector_words<Ops>();

  /// The last sweep of a part of 2^k rows h words apart, its results rotated by `shift` words
  /// (a multiple of a vector): word i of the part at x[(i + shift) mod 2^k·h]. The columns
  /// whose results wrap around to the next row (the last `shift`) go to the scratch first;
  /// then the others, last first, each written `shift` words on, after it has been read
  /// (Walk::shifted_writes); then the scratch's, at the heads of the rows. The stores fall
  /// on the part's own lines, so the rotation costs the sweep no pass of its own. A block's
  /// last sweep prefetches the next block as the plain one does (`ahead`: next_block_of).
  void rotated_sweep(W* x, std::size_t h, int k, std::size_t shift, Prefetch ahead = {}) const {
    const std::size_t rows = std::size_t{1} << k;
    if constexpr (kSkews) {
      if (shift + kVectorWords <= h && shift % kVectorWords == 0) {
        W* const tail = skew_scratch_of(omp_get_thread_num());
        Ops::columns_to(x + h - shift, h, tail, shift, k, shift, false, W(1));
        Ops::columns_shifted(x, h, k, 0, h - shift, shift, &ahead);
        for (std::size_t r = 0; r < rows; ++r) Ops::copy(x + (r + 1) % rows * h, tail + r * shift, shift);
        return;
      }
    }
    columns_ahead(x, h, k, ahead);
    rotate_words(x, rows * h, shift);
  }

  /// x[(i + shift) mod n] ← x[i] for the n words at x (shift 0: nothing).
  static void rotate_words(W* x, std::size_t n, std::size_t shift) {
    if (shift % n != 0) std::rotate(x, x + n - shift % n, x + n);
  }

  /// The outermost sweep across 2^k parts of `part` words, part r rotated by r vectors (each
  /// one's last sweep stored it so: forward's `rotate`) or, where the skew reaches further
  /// down (plan_skew), its unit u by r + unit_rotation(u) vectors; its results times
  /// `factor` in the natural order, by every thread of the team on its share of the columns. Row r's column j lies r vectors on, so
  /// the 2^k words of a column fall in 2^k different L1 sets instead of one: on the Xeon VM
  /// of model 207 a radix-16 sweep over 4 MiB of doubles took 155 µs so against 233 µs with
  /// the rows a power of two apart (docs/benchmarks.md). Each share is a run of columns
  /// within one unit (a part rotated whole, or a smaller unit): its last columns read the heads of
  /// the unit's rows (or of the next share's, where threads share a unit), which each
  /// thread keeps in its scratch before any thread's columns in order overwrite them; those
  /// last columns are gathered into the scratch and swept from there.
  void skewed_sweep(W* x, std::size_t part, int k, W factor) const {
    if constexpr (kSkews) {
      const auto team = static_cast<std::size_t>(omp_get_num_threads());
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      W* const heads = skew_scratch_of(static_cast<int>(t));
      if (const std::size_t unit = std::size_t{1} << skew_unit_; unit < part) {  // whole units to each thread
        const std::size_t units = part / unit;
        const int part_bits = std::countr_zero(part);
        for (std::size_t u = units * t / team; u < units * (t + 1) / team; ++u) {
          const std::size_t first = unit_rotation(part_bits, u) * kVectorWords;
          save_heads(x + u * unit, part, k, first, heads);
          skewed_share(x + u * unit, part, k, 0, unit, first, heads, factor);
        }
        return;
      }
      const auto share = [&](std::size_t i) { return part / kVectorWords * i / team * kVectorWords; };
      const std::size_t j0 = share(t), j1 = share(t + 1);
      save_heads(x + j0, part, k, 0, heads);
      barrier_.wait(static_cast<int>(team));
      skewed_share(x, part, k, j0, j1, 0, skew_scratch_of(static_cast<int>((t + 1) % team)), factor);
    }
  }

  /// The words of each of 2^k rows `part` apart, from x, that the share before reads last
  /// (row r's `base` words and r vectors), into `heads` (rows as far apart as the most of those).
  void save_heads(const W* x, std::size_t part, int k, std::size_t base, W* heads) const {
    const std::size_t rows = std::size_t{1} << k, span = base + (rows - 1) * kVectorWords;
    for (std::size_t r = 0; r < rows; ++r) Ops::copy(heads + r * span, x + r * part, base + r * kVectorWords);
  }

  /// skewed_sweep on columns [j0, j1) of x, row r rotated by base + r vectors; the words the
  /// last columns read beyond j1 are `next_heads` (save_heads).
  void skewed_share(W* x, std::size_t part, int k, std::size_t j0, std::size_t j1, std::size_t base,
                    const W* next_heads, W factor) const {
    const std::size_t rows = std::size_t{1} << k, span = base + (rows - 1) * kVectorWords;
    W* const tails = skew_scratch_of(omp_get_thread_num()) + rows * span;
    Ops::columns_skewed(x, part, k, j0, j1 - span, factor, base);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t shift = base + r * kVectorWords, own = span - shift;  // read in place, then from the heads
      Ops::copy(tails + r * span, x + r * part + j1 - span + shift, own);
      Ops::copy(tails + r * span + own, next_heads + r * span, shift);
    }
    Ops::columns_to(tails, span, x + j1 - span, part, k, span, false, factor);
  }

  W* skew_scratch_of(int thread) const { return skew_scratch_.get() + static_cast<std::size_t>(thread) * skew_words_; }

  /// The top stages across the 2^k rows (`run` words apart) of x, on columns [j0, j1); then,
  /// if `fused`, the dyadic middle and the same stages again; then, if `scale`, the scale.
  void sweep(W* x, std::size_t run, const Split& sp, std::size_t j0, std::size_t j1, bool fused, bool scale) const {
    if (sp.gather) return gathered(x, run, sp, j0, j1, fused, scale);
    // The middle in registers wherever S is laid out as x: a full-length spectrum (the
    // outermost sweep covers all 2^n words) or none.
    if (fused && spectrum_lies_as_x(run << sp.k) &&
        Ops::columns_middle(x, run, sp.k, j0, j1, middle_.spectrum, middle_.op, middle_.factor,
                            middle_.pending != nullptr))
      return;
    if (fused) {
      if (middle_.pending != nullptr) Ops::columns(middle_.pending, run, sp.k, j0, j1);
      Ops::columns(x, run, sp.k, j0, j1);
      combine_rows(x + j0, run, run, sp.k, j0, j1 - j0);
    }
    if (scale && scale_ != W(1)) Ops::columns_scaled(x, run, sp.k, j0, j1, scale_);
    else Ops::columns(x, run, sp.k, j0, j1);
  }

  /// The dyadic middle on 2^k rows of `cols` words, `stride` apart from `base`: row r holds
  /// x's words r·run + j0 onwards.
  void combine_rows(W* base, std::size_t stride, std::size_t run, int k, std::size_t j0, std::size_t cols) const {
    for (std::size_t r = 0; r < (std::size_t{1} << k); ++r)
      combine_range(base + r * stride, cols, middle_.op, middle_.spectrum, r * run + j0, middle_.spectrum_mask,
                    middle_.factor);
  }

  /// sweep() through this thread's buffers, chunk by chunk of chunk_columns() (whole chunks
  /// in [j0, j1)), as a software pipeline: a chunk's first k/2 stages read its rows from x
  /// into a buffer, and its other stages write them back from there, streamed past the
  /// caches; the reads of one chunk alternate, group of rows by group, with the writes of
  /// the chunk before. x is read and written once, in runs of a chunk's width, and the
  /// buffer stays in cache. On the AMD EPYC Zen 4 VM the top sweep of 2^28 floats took
  /// 132 ms (3.2 passes) when it copied each chunk in, did its stages and copied it out,
  /// and ~100 ms this way (docs/benchmarks.md).
  void gathered(W* x, std::size_t run, const Split& sp, std::size_t j0, std::size_t j1, bool fused,
                bool scale) const {
    const std::size_t cols = chunk_columns(run, sp);
    const int ka = sp.k / 2, kb = sp.k - ka;
    const std::size_t a_rows = std::size_t{1} << ka, b_rows = std::size_t{1} << kb;
    W* const first = buffers_.get() + static_cast<std::size_t>(omp_get_thread_num()) * buffer_words();
    const auto buffer = [&](std::size_t c) { return first + (c % 2) * (cols << sp.k); };
    const auto column = [&](std::size_t c) { return j0 + c * cols; };
    // Group g of the reads: rows g·2^ka … (g+1)·2^ka − 1 of chunk c of `from` into `to`, through
    // the first ka stages; group i of the writes: rows i + q·2^ka (the other kb).
    const auto read_group = [&](const W* from, W* to, std::size_t c, std::size_t g) {
      Ops::columns_to(from + g * a_rows * run + column(c), run, to + g * a_rows * cols, cols, ka, cols, false, W(1));
    };
    const auto read = [&](std::size_t c, std::size_t g) { read_group(x, buffer(c), c, g); };
    const auto other_stages = [&](W* b) {
      for (std::size_t i = 0; i < a_rows; ++i) Ops::columns(b + i * cols, a_rows * cols, kb, 0, cols);
    };
    const auto write = [&](std::size_t c, std::size_t i) {
      Ops::columns_to(buffer(c) + i * cols, a_rows * cols, x + i * run + column(c), a_rows * run, kb, cols, true,
                      scale ? scale_ : W(1));
    };
    // Fused: the other stages, the middle, and the first stages again, in the buffer. A
    // pending spectrum's chunk goes through all the stages in a buffer of its own first.
    const auto middle = [&](std::size_t c) {
      W* b = buffer(c);
      other_stages(b);
      if (middle_.pending != nullptr) {
        W* const s = first + 2 * (cols << sp.k);
        for (std::size_t g = 0; g < b_rows; ++g) read_group(middle_.pending, s, c, g);
        other_stages(s);
        for (std::size_t r = 0; r < (std::size_t{1} << sp.k); ++r)
          combine_range(b + r * cols, cols, DyadicOp::multiply, s + r * cols, 0, cols - 1, middle_.factor);
      } else {
        combine_rows(b, cols, run, sp.k, column(c), cols);
      }
      for (std::size_t g = 0; g < b_rows; ++g) Ops::columns(b + g * a_rows * cols, cols, ka, 0, cols);
    };
    const std::size_t chunks = (j1 - j0) / cols;
    for (std::size_t c = 0; c <= chunks; ++c) {
      if (fused && c > 0) middle(c - 1);
      for (std::size_t t = 0; t < std::max(a_rows, b_rows); ++t) {
        if (c < chunks && t < b_rows) read(c, t);
        if (c > 0 && t < a_rows) write(c - 1, t);
      }
    }
    hwy::FlushStream();
  }

  const W* in_;
  W* x_;
  int n_;
  Middle<W> middle_;
  W scale_;
  const Geometry* geometry_;
  std::size_t gather_bytes_ = 0;
  std::size_t l1_way_bytes_ = 1, l1_ways_ = 2;  ///< from the Geometry (constructor)
  int part_radix_ = 0;  ///< log2 of Geometry::part_sweep_rows, at most the radix; 0: radix_for_rows
  std::size_t l2_bytes_ = 0;  ///< Geometry::l2_bytes
  int leaf_ = 0, lo_ = 0, team_ = 1;
  bool whole_l1_ = false;  ///< whether a leaf may be all of L1, twice leaf_ (leaf_of; plan_walk sets it)
  bool prefetch_ = false;  ///< whether blocks prefetch the next one (Geometry::prefetch_from_bytes)
  bool lead_ = false;  ///< whether first sweeps prefetch a page ahead (Geometry::lead_from_bytes)
  std::size_t block_words_ = 1;
  int limit_ = 0;  ///< wht_bounded: inputs must be below 2^limit_ in magnitude
  const Route* route_ = nullptr;  ///< wht_rows: the order its rows go into in registers
  bool skip_outermost_sweep_ = false;  ///< run_but_outermost_sweep()
  int skew_leaf_ = 0;  ///< log2 of the rotated leaves' words where the blocks skew theirs (skewed_leaf)
  int skew_unit_ = 0;  ///< log2 of the words of the units rotated whole, under a skewed outermost sweep (plan_skew)
  struct AlignedDelete {
    void operator()(W* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<W[], AlignedDelete> buffers_;
  std::unique_ptr<W[], AlignedDelete> skew_scratch_;  ///< where the outermost sweep skews (skews())
  std::size_t skew_words_ = 0;  ///< a thread's share of skew_scratch_
  TeamBarrier barrier_;  ///< where a team's threads meet between steps (team_transform)
};

}  // namespace fastconv::cpu::FASTCONV_ISA
