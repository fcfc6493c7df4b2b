// src/cpu/passes.hpp — how the cpu backend walks memory: the codelets of codelets.hpp
// arranged into as few passes over a large array as the caches allow (included only by
// kernels_isa.cpp, once per instruction set).
//
// A transform of 2^n words runs as
//   1. the block pass: every contiguous block of 2^b words (b from Geometry::block_bytes,
//      about half of L2) gets its stages 0 … b−1, done leaf by leaf in L1 first;
//   2. strip passes over the remaining high bits, usually one: a strip is 2^H rows of w
//      contiguous words (w·size = Geometry::strip_bytes), the rows 2^lo words apart. With
//      H ≤ the codelets' radix the rows are transformed where they lie; otherwise the strip
//      is gathered into a contiguous per-thread buffer (no cache-set conflicts between rows
//      a power of two apart), transformed there, and scattered back.
// A dyadic convolution out = f·W(S ⊙ W·x) fuses into the same walk: the block pass copies x
// into out, the last strip pass transforms its strip, multiplies it by the spectrum and
// transforms it back before scattering, and a final block pass finishes the inverse — three
// passes over memory instead of seven. The scale of a normalised transform is applied in
// whichever pass writes last.
//
// Parallelism: one OpenMP team per call; each pass is an `omp for` over independent blocks or
// strips.
#pragma once

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#include "cpu/codelets.hpp"

namespace fastconv::cpu::FASTCONV_ISA {

/// What the middle of a dyadic convolution does to the spectrum: nothing (a plain
/// transform), or combine() it with S and transform back.
template <class W>
struct Middle {
  bool active = false;
  DyadicOp op = DyadicOp::multiply;
  const W* spectrum = nullptr;
  std::size_t spectrum_mask = 0;  ///< S index = global index & mask (a zero-padded operand)
  W factor = W(1);
};

template <class Ops>
class Pipeline {
 public:
  using W = typename Ops::Word;

  /// out ← scale · W·in (in may equal out).
  static void wht(const W* in, W* out, int log2n, int threads, double scale, const Geometry& g) {
    Pipeline(in, out, log2n, threads, g, Middle<W>{}, factor_of(scale)).run();
  }

  /// out ← scale · W(op(W·in, S)), S of 2^spectrum_log2n words standing for its zero-padded
  /// operand (in may equal out).
  static void dyadic(const W* in, W* out, int log2n, DyadicOp op, const W* spectrum, int spectrum_log2n,
                     double scale, int threads, const Geometry& g) {
    Middle<W> middle{true, op, spectrum, (std::size_t{1} << spectrum_log2n) - 1, factor_of(scale)};
    Pipeline(in, out, log2n, threads, g, middle, W(1)).run();
  }

 private:
  static constexpr std::size_t kMinWordsPerThread = std::size_t{1} << 14;

  Pipeline(const W* in, W* out, int n, int threads, const Geometry& g, Middle<W> middle, W scale)
      : in_(in), x_(out), n_(n), middle_(middle), scale_(scale) {
    leaf_ = bits_of(g.leaf_bytes);
    const int block = std::max(bits_of(g.block_bytes), leaf_);
    block_words_ = std::size_t{1} << block;
    const std::size_t words = std::size_t{1} << n;
    const int want = threads > 0 ? threads : omp_get_max_threads();
    team_ = static_cast<int>(std::clamp<std::size_t>(words / kMinWordsPerThread, 1, static_cast<std::size_t>(want)));
    // Low bits: one block, or fewer bits so that every thread gets a block.
    lo_ = std::min(block, n - static_cast<int>(std::bit_width(static_cast<unsigned>(team_ - 1))));
    if (team_ == 1) lo_ = std::min(block, n);
    width_ = std::max<std::size_t>(g.strip_bytes / sizeof(W), 1);
    strip_bits_ = std::max(bits_of(g.buffer_bytes) - std::countr_zero(width_), 1);
  }

  static int bits_of(std::size_t bytes) {
    return std::bit_width(std::max<std::size_t>(bytes / sizeof(W), 1)) - 1;
  }

  static W factor_of(double scale) {
    if constexpr (std::is_floating_point_v<W>) return static_cast<W>(scale);
    else return W(1);  // integer rings: the front end divides exactly
  }

  /// Stages s0 … m−1 of a contiguous array of 2^m words: L1-sized leaves first.
  void stages(W* x, int m, int s0) const {
    if (s0 >= m) return;
    if (m > leaf_ && s0 < leaf_) {
      const std::size_t n = std::size_t{1} << m, leaf = std::size_t{1} << leaf_;
      for (std::size_t b = 0; b < n; b += leaf) stages(x + b, leaf_, s0);
      s0 = leaf_;
    }
    int s = s0 == 0 ? Ops::first_sweep(x, m) : s0;
    while (s < m) {
      const int k = chunk(m - s);
      const std::size_t h = std::size_t{1} << s, n = std::size_t{1} << m;
      for (std::size_t base = 0; base < n; base += h << k) Ops::columns(x + base, h, k, 0, h);
      s += k;
    }
  }

  /// How many of the `left` stages the next sweep takes: the radix, but never leaving a
  /// lone stage behind when two balanced sweeps do the same work.
  static int chunk(int left) {
    const int r = Ops::kRadixLog2;
    if (left <= r) return left;
    if (left == r + 1) return (left + 1) / 2;
    return r;
  }

  void scale_words(W* x, std::size_t count) const {
    if (scale_ == W(1)) return;
    for (std::size_t k = 0; k < count; ++k) x[k] *= scale_;
  }

  void run() {
    const std::size_t words = std::size_t{1} << n_;
    if (lo_ == n_) {  // one block: everything in cache
      if (in_ != x_) Ops::copy(x_, in_, words);
      stages(x_, n_, 0);
      if (middle_.active) {
        combine_range(x_, words, middle_.op, middle_.spectrum, 0, middle_.spectrum_mask, middle_.factor);
        stages(x_, n_, 0);
      }
      scale_words(x_, words);
      return;
    }
    // Strip passes over bits lo_ … n_−1, as evenly split as the buffer allows.
    const int high = n_ - lo_;
    const int passes = (high + strip_bits_ - 1) / strip_bits_;
    // A dyadic convolution fuses its middle into a single strip pass; with more, it runs as
    // forward transform, element-wise pass, inverse transform.
    const bool fuse = middle_.active && passes == 1;
    // One gather buffer per thread, for the widest gathered strip.
    for (int p = 0, lo = lo_; p < passes; ++p) {
      const int bits = strip_bits_of(p, passes);
      if (bits > Ops::kRadixLog2) buffer_words_ = std::max(buffer_words_, gather_width(lo, bits) << bits);
      lo += bits;
    }
    if (buffer_words_ > 0) buffers_.reset(new (std::align_val_t{64}) W[buffer_words_ * team_]);
#pragma omp parallel num_threads(team_) if (team_ > 1)
    {
      block_pass(in_, true);
      int lo = lo_;
      for (int p = 0; p < passes; ++p) {
        const int bits = strip_bits_of(p, passes);
        strip_pass(lo, bits, fuse, !middle_.active && p + 1 == passes);
        lo += bits;
      }
      if (middle_.active) {
        if (!fuse) {
#pragma omp for schedule(static)
          for (std::ptrdiff_t c = 0; c < chunks(words); ++c)
            combine_range(x_ + c * kChunk, std::min(kChunk, words), middle_.op, middle_.spectrum, c * kChunk,
                          middle_.spectrum_mask, middle_.factor);
          int hi = n_;
          for (int p = passes; p > 0; --p) {  // inverse strip passes, high bits first
            const int bits = strip_bits_of(p - 1, passes);
            strip_pass(hi - bits, bits, false, false);
            hi -= bits;
          }
        }
        block_pass(x_, false);
      }
    }
  }

  static constexpr std::size_t kChunk = std::size_t{1} << 12;
  static std::ptrdiff_t chunks(std::size_t words) {
    return static_cast<std::ptrdiff_t>(std::max<std::size_t>(words / kChunk, 1));
  }

  /// The number of bits strip pass p of `passes` covers (the same split as run()'s loop).
  int strip_bits_of(int p, int passes) const {
    int lo = lo_;
    int bits = 0;
    for (int q = 0; q <= p; ++q) {
      bits = (n_ - lo) / (passes - q) + ((n_ - lo) % (passes - q) != 0);
      lo += bits;
    }
    return bits;
  }

  /// Asks for the rows of strip task t to be brought into cache while this one is computed:
  /// hardware prefetchers do not follow hundreds of short rows.
  void prefetch_strip(std::ptrdiff_t t, std::size_t per_group, std::size_t run, std::size_t rows,
                      std::size_t w) const {
    const std::size_t g = static_cast<std::size_t>(t) / per_group, j0 = (static_cast<std::size_t>(t) % per_group) * w;
    const char* x = reinterpret_cast<const char*>(x_ + g * run * rows + j0);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t b = 0; b < w * sizeof(W); b += 64) __builtin_prefetch(x + r * run * sizeof(W) + b, 1);
  }

  /// Row width of a gathered strip of 2^bits rows 2^lo words apart: at least the minimum strip
  /// width (whole cache lines), at most the row.
  std::size_t gather_width(int lo, int bits) const {
    const std::size_t leaf = std::size_t{1} << leaf_;
    // A strip that fits one L1 leaf has all its stages done there; else an L2 block's worth.
    const std::size_t w = (leaf >> bits) >= width_ ? leaf >> bits : std::max(width_, block_words_ >> bits);
    return std::min(w, std::size_t{1} << lo);
  }

  /// Stages 0 … lo_−1 of every block (copying `src` in first when it is not the output).
  void block_pass(const W* src, bool first) const {
    const std::size_t block = std::size_t{1} << lo_;
    const auto blocks = static_cast<std::ptrdiff_t>(std::size_t{1} << (n_ - lo_));
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < blocks; ++b) {
      W* x = x_ + b * block;
      if (first && src != x_) Ops::copy(x, src + b * block, block);
      stages(x, lo_, 0);
      if (!first) scale_words(x, block);
    }
  }

  /// Stages lo … lo+bits−1 (rows 2^lo words apart), then — if `fused` — the dyadic middle
  /// and the same stages again, then — if `last` — the scale.
  void strip_pass(int lo, int bits, bool fused, bool last) const {
    const std::size_t run = std::size_t{1} << lo;  // row stride = contiguous words per row
    const std::size_t rows = std::size_t{1} << bits;
    const std::size_t groups = std::size_t{1} << (n_ - lo - bits);
    if (bits <= Ops::kRadixLog2) {
      // Few rows: transform the strips where they lie, `cols` columns at a time.
      std::size_t cols = std::min(run, std::max<std::size_t>(width_, (std::size_t{1} << lo_) >> bits));
      while (cols > width_ && groups * (run / cols) < 4 * static_cast<std::size_t>(team_)) cols /= 2;
      const std::size_t per_group = run / cols;
      const auto tasks = static_cast<std::ptrdiff_t>(groups * per_group);
#pragma omp for schedule(static)
      for (std::ptrdiff_t t = 0; t < tasks; ++t) {
        const std::size_t g = static_cast<std::size_t>(t) / per_group, j0 = (static_cast<std::size_t>(t) % per_group) * cols;
        W* x = x_ + g * run * rows;
        Ops::columns(x, run, bits, j0, j0 + cols);
        if (fused) {
          for (std::size_t r = 0; r < rows; ++r)
            combine_range(x + r * run + j0, cols, middle_.op, middle_.spectrum, g * run * rows + r * run + j0,
                          middle_.spectrum_mask, middle_.factor);
          Ops::columns(x, run, bits, j0, j0 + cols);
        }
        if (last)
          for (std::size_t r = 0; r < rows; ++r) scale_words(x + r * run + j0, cols);
      }
      return;
    }
    // Many rows: gather each strip into a contiguous buffer.
    const std::size_t w = gather_width(lo, bits);
    const int w_log2 = std::countr_zero(w);
    const std::size_t per_group = run / w;
    const auto tasks = static_cast<std::ptrdiff_t>(groups * per_group);
    W* buffer = buffers_.get() + static_cast<std::size_t>(omp_get_thread_num()) * buffer_words_;
#pragma omp for schedule(static)
    for (std::ptrdiff_t t = 0; t < tasks; ++t) {
      const std::size_t g = static_cast<std::size_t>(t) / per_group, j0 = (static_cast<std::size_t>(t) % per_group) * w;
      W* x = x_ + g * run * rows + j0;
      if (t + 1 < tasks) prefetch_strip(t + 1, per_group, run, rows, w);
      for (std::size_t r = 0; r < rows; ++r) Ops::copy(buffer + r * w, x + r * run, w);
      stages(buffer, w_log2 + bits, w_log2);
      if (fused) {
        for (std::size_t r = 0; r < rows; ++r)
          combine_range(buffer + r * w, w, middle_.op, middle_.spectrum, g * run * rows + r * run + j0,
                        middle_.spectrum_mask, middle_.factor);
        stages(buffer, w_log2 + bits, w_log2);
      }
      if (last) scale_words(buffer, rows * w);
      for (std::size_t r = 0; r < rows; ++r) Ops::copy(x + r * run, buffer + r * w, w);
    }
  }

  const W* in_;
  W* x_;
  int n_;
  Middle<W> middle_;
  W scale_;
  struct AlignedDelete {
    void operator()(W* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<W[], AlignedDelete> buffers_;
  std::size_t buffer_words_ = 0;
  std::size_t block_words_ = 1;
  int leaf_ = 0, lo_ = 0, team_ = 1, strip_bits_ = 1;
  std::size_t width_ = 1;
};

}  // namespace fastconv::cpu::FASTCONV_ISA
