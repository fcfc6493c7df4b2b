// The cpu backend: the kernels of the instruction set chosen at run time (isa.hpp), plus the
// output order and the fused dyadic convolution engine.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"
#include "cpu/backends.hpp"
#include "cpu/isa.hpp"
#include "cpu/order.hpp"

namespace fastconv::cpu {
namespace {

/// Rows up to this size are spread over threads one row per task.
constexpr int kRowParallelLog2 = 15;

/// Big buffers are costly to get fresh: every page is faulted in and zeroed on first touch
/// (measured here: 128 MiB take 80–180 ms, more than the convolution that needs them). The
/// cpu backend therefore keeps the two most recently released big buffers (together at most
/// kKeepBytes) for the next spectrum, reordering scratch or row of float scratch: a 16-bit row
/// in Paley or sequency order takes two at once (its float copy and the reordering's scratch).
class BufferPool {
 public:
  static constexpr std::size_t kKeepBytes = std::size_t{1} << 30;

  static BufferPool& instance() {
    static BufferPool pool;
    return pool;
  }

  /// `bytes` (a multiple of 2 MiB), 2 MiB-aligned, backed by huge pages where offered.
  void* take(std::size_t bytes) {
    {
      const std::lock_guard lock(mutex_);
      for (Kept& k : kept_)
        if (k.p != nullptr && k.bytes == bytes) return std::exchange(k, Kept{}).p;
    }
    detail::require_memory(bytes, "the cpu backend's work buffer (a spectrum or reordering scratch)");
    return allocate_aligned(bytes);  // 2 MiB-aligned, huge pages advised
  }

  /// Keeps p, the newest, and the newest one kept before it if both fit kKeepBytes.
  void give(void* p, std::size_t bytes) noexcept {
    if (bytes > kKeepBytes) return std::free(p);
    const std::lock_guard lock(mutex_);
    Kept older = kept_[0].p != nullptr ? kept_[0] : kept_[1];
    const Kept evicted = kept_[0].p != nullptr ? kept_[1] : Kept{};
    std::free(evicted.p);
    if (older.bytes + bytes > kKeepBytes) {
      std::free(older.p);
      older = Kept{};
    }
    kept_[0] = Kept{p, bytes};
    kept_[1] = older;
  }

  ~BufferPool() {
    for (const Kept& k : kept_) std::free(k.p);
  }

  static constexpr std::size_t kHugePage = detail::kHugePageBytes;

 private:
  struct Kept {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  std::mutex mutex_;
  Kept kept_[2];  ///< the newest first
};

/// `words` words from allocate_aligned; from 128 KiB (where malloc turns to mmap and fresh
/// pages) on, from the BufferPool, rounded up to 2 MiB.
template <class W>
class WordBuffer {
 public:
  explicit WordBuffer(std::size_t words) {
    const std::size_t bytes = words * sizeof(W);
    if (bytes >= (std::size_t{128} << 10)) {
      bytes_ = (bytes + BufferPool::kHugePage - 1) / BufferPool::kHugePage * BufferPool::kHugePage;
      data_ = static_cast<W*>(BufferPool::instance().take(bytes_));
    } else {
      data_ = static_cast<W*>(allocate_aligned(bytes));
    }
  }
  ~WordBuffer() {
    if (bytes_ > 0) BufferPool::instance().give(data_, bytes_);
    else std::free(data_);
  }
  WordBuffer(const WordBuffer&) = delete;
  WordBuffer& operator=(const WordBuffer&) = delete;
  [[nodiscard]] W* data() const noexcept { return data_; }

 private:
  W* data_ = nullptr;
  std::size_t bytes_ = 0;  ///< nonzero: pooled
};

/// Scratch of up to this many bytes is kept, one buffer per thread and owner, for the thread's
/// next call: a fresh 64 KiB buffer for each call cost 16-bit rows of 2^9 … 2^12 floats 1.4–1.7×
/// the time of the float transform, and malloc and free were 40 % of a sequency-order transform
/// of 2^4 floats (docs/benchmarks.md).
constexpr std::size_t kKeptBytes = std::size_t{64} << 10;

/// Float scratch of up to this many words for 16-bit rows comes from the kept buffer.
constexpr std::size_t kKeptWords = kKeptBytes / sizeof(float);
static_assert(kKeptWords >= (std::size_t{1} << kHalvesScratchLog2));

/// This thread's kept buffer of kKeptBytes for Owner, 64-byte aligned: one per owner, so that
/// a kernel that keeps its data in its own (the 16-bit rows) can call another that keeps its
/// scratch in its own (CpuWht<float>) without the two sharing memory.
template <class W, class Owner>
W* kept_buffer() {
  thread_local const auto words = detail::allocate_words<W>(kKeptBytes / sizeof(W));
  return words.get();
}

/// Room for `words` words for one call on this thread: Owner's kept buffer where that is large
/// enough, else a WordBuffer of its own.
template <class W, class Owner>
class CallScratch {
 public:
  explicit CallScratch(std::size_t words)
      : owned_(words * sizeof(W) > kKeptBytes ? std::make_unique<WordBuffer<W>>(words) : nullptr),
        data_(owned_ ? owned_->data() : kept_buffer<W, Owner>()) {}
  [[nodiscard]] W* data() const noexcept { return data_; }

 private:
  std::unique_ptr<WordBuffer<W>> owned_;
  W* data_;
};

/// The owner of the 16-bit kernels' kept float scratch (CpuWht16, CpuOrderedWht16).
struct HalvesScratch;

/// Below this many words in all (log2), a batch is transformed on one thread; from it on, a
/// single row is shared by a team of two (Pipeline's kMinWordsPerThread per thread).
constexpr int kTeamLog2 = 15;

/// The team for `rows` rows of 2^log2n words shared out by rows, on `threads` (0: OpenMP's
/// default): one thread below 2^kTeamLog2 words in all, and never more threads than rows.
inline int row_team(std::size_t rows, int log2n, int threads) {
  const int want = threads > 0 ? threads : omp_get_max_threads();
  return (rows << log2n) >= (std::size_t{1} << kTeamLog2)
             ? static_cast<int>(std::clamp<std::size_t>(rows, 1, static_cast<std::size_t>(want)))
             : 1;
}

/// f(first, last) on `count` words split into one contiguous share per thread of `threads`
/// (0: OpenMP's default).
template <class F>
void for_word_shares(std::size_t count, int threads, F&& f) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  const auto shares = static_cast<std::ptrdiff_t>(team);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::ptrdiff_t t = 0; t < shares; ++t) {
    const std::size_t first = count / static_cast<std::size_t>(team) * static_cast<std::size_t>(t);
    f(first, t + 1 == shares ? count : first + count / static_cast<std::size_t>(team));
  }
}

/// f(first, count) on contiguous shares of `rows` rows, one per thread of row_team().
template <class F>
void for_row_shares(std::size_t rows, int log2n, int threads, F&& f) {
  const auto team = static_cast<std::size_t>(row_team(rows, log2n, threads));
  if (team == 1) return f(std::size_t{0}, rows);  // no region at all: it costs even when idle
  const auto shares = static_cast<std::ptrdiff_t>(team);
#pragma omp parallel for num_threads(static_cast<int>(team)) schedule(static, 1)
  for (std::ptrdiff_t t = 0; t < shares; ++t) {
    const std::size_t first = rows * static_cast<std::size_t>(t) / team;
    f(first, rows * static_cast<std::size_t>(t + 1) / team - first);
  }
}

template <class W>
class CpuWht final : public detail::WhtKernel {
 public:
  CpuWht(int log2n, Order order, int threads, const IsaKernels& isa)
      : log2n_(log2n),
        order_(order),
        threads_(threads),
        kernels_(isa.of<W>()),
        in_registers_(order != Order::hadamard && kernels_.orders_rows(log2n, order)) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    W* base = static_cast<W*>(data);
    if (rows == 1 && order_ == Order::hadamard) {  // transform_row's case, without its set-up
      kernels_.wht(base, base, log2n_, threads_, scale, Geometry::of_this_cpu());
      return;
    }
    const auto n_rows = static_cast<std::ptrdiff_t>(rows);
    const std::size_t size = std::size_t{1} << log2n_;
    if (batched(rows, stride) || packable(rows, stride)) {
      for_shares(rows, [&](std::size_t first, std::size_t count) { transform_share(base, stride, first, count, scale); });
      return;
    }
    if (rows > 1 && log2n_ <= kRowParallelLog2) {
      const int team = threads_ > 0 ? threads_ : omp_get_max_threads();
#pragma omp parallel num_threads(team) if (team > 1 && (rows << log2n_) >= (std::size_t{1} << kTeamLog2))
      {
        const std::optional<Scratch> scratch = scratch_for(size);
        // nowait: the region's end waits for the team; a barrier of the loop's own would cost
        // a second futex_wake system call in libgomp (passes.hpp's TeamBarrier).
#pragma omp for schedule(static) nowait
        for (std::ptrdiff_t r = 0; r < n_rows; ++r) transform_row(base + r * stride, 1, scale, data_of(scratch));
      }
      return;
    }
    const std::optional<Scratch> scratch = scratch_for(size);
    for (std::ptrdiff_t r = 0; r < n_rows; ++r) transform_row(base + r * stride, threads_, scale, data_of(scratch));
  }

 private:
  /// Whether a batch goes to the kernels' wht_rows as it lies: short rows back to back, and a
  /// single Paley or sequency row that wht_rows orders in its registers. (Row by row, rows
  /// of 2^4 floats took 1.2 ns a word against 0.23 for rows of 2^10.)
  bool batched(std::size_t rows, std::size_t stride) const {
    return (rows > 1 || in_registers_) && log2n_ <= kRowParallelLog2 && stride == (std::size_t{1} << log2n_);
  }

  /// Whether short rows with gaps go through a buffer a run at a time: where the two copies
  /// cost less than a walk and a reordering per row. (2^20 floats with a 16-word gap after
  /// each row, one thread: rows of 2^1, 2^4 and 2^6 in natural order 9.5 → 3.5, 1.21 → 0.46
  /// and 0.38 → 0.29 ms, but 2^8 and 2^12 0.22 → 0.28 and 0.20 → 0.31 ms; at 2^1 … 2^12
  /// sequency 74 … 2.4× faster, Paley 3.9 … 1.5×.)
  bool packable(std::size_t rows, std::size_t stride) const {
    return rows > 1 && stride != (std::size_t{1} << log2n_) && log2n_ <= kTableLog2 &&
           (order_ != Order::hadamard || log2n_ <= kPackedNaturalLog2);
  }

  /// Rows [first, first + count) of a batch that is batched() or packable(), on this thread:
  /// transformed by wht_rows and, unless it orders them in its registers, reordered a table's
  /// run of rows at a time (natural order back to back: the whole share at once), so that
  /// each run is reordered while it is in L1; copied through a buffer first where the rows
  /// have gaps. With limit ≥ 0 (integers), as wht_rows: it stops at the first run with a word
  /// of 2^limit or more in magnitude, or once `stop` is set, and returns how many rows it had
  /// done (their run left as it was).
  std::size_t transform_share(W* base, std::size_t stride, std::size_t first, std::size_t count, double scale,
                              int limit = -1, const std::atomic<bool>* stop = nullptr) const {
    const std::size_t size = std::size_t{1} << log2n_;
    const bool gaps = stride != size, reorders = order_ != Order::hadamard && !in_registers_;
    const std::size_t step =
        gaps || reorders ? std::min(count, std::max<std::size_t>(1, kTableWords >> log2n_)) : count;
    const std::unique_ptr<WordBuffer<W>> buffer = gaps ? std::make_unique<WordBuffer<W>>(step * size) : nullptr;
    const std::optional<Scratch> scratch = reorders ? scratch_for(std::max(size, kTableWords)) : std::nullopt;
    const Order order = in_registers_ ? order_ : Order::hadamard;
    for (std::size_t r = first; r < first + count; r += step) {
      const std::size_t n = std::min(step, first + count - r);
      W* run = gaps ? buffer->data() : base + r * size;
      if (gaps)
        for (std::size_t i = 0; i < n; ++i) std::copy_n(base + (r + i) * stride, size, run + i * size);
      if ((stop != nullptr && stop->load(std::memory_order_relaxed)) ||
          !kernels_.wht_rows(run, n, log2n_, scale, limit, Geometry::of_this_cpu(), order))
        return r - first;
      if (reorders) reorder_rows(run, n, data_of(scratch));
      if (gaps)
        for (std::size_t i = 0; i < n; ++i) std::copy_n(run + i * size, size, base + (r + i) * stride);
    }
    return count;
  }

  /// `count` rows back to back from `at`, transformed in natural order, into the plan's order
  /// (`s`: room for max(size, kTableWords) words), a run of up to 2^kTableLog2 words (or
  /// one longer row) at a time, while it is in L1. Where the kernels do rows of this length in
  /// vectors (tiles transposed in registers; one lane permutation per vector for rows no longer
  /// than a vector), through them; other rows up to 2^kTableLog2 words through a table made on
  /// the first batch: word i of a run comes from word table_[i] of it (its row's
  /// natural_index), with no work per row. (Rows of 2^4 … 2^12 floats, on AVX-512: through
  /// the kernels' vectors 0.11–0.28 ns a word, through the table 0.6; row by row through
  /// scalar tiled permutations, before either, 1.4–7.4.)
  void reorder_rows(W* at, std::size_t count, W* s) const {
    if (order_ == Order::hadamard) return;
    const std::size_t size = std::size_t{1} << log2n_, words = count * size;
    const std::size_t run_words = std::max(size, kTableWords);
    const bool table = log2n_ <= kTableLog2 && !kernels_.reorders_in_vectors(log2n_);
    if (table) {
      std::call_once(table_made_, [&] {
        table_.resize(kTableWords);
        for (std::size_t i = 0; i < kTableWords; ++i)
          table_[i] = static_cast<std::uint16_t>((i & ~(size - 1)) | natural_index(i & (size - 1), log2n_, order_));
      });
    }
    for (std::size_t run = 0; run < words; run += run_words) {
      W* x = at + run;
      const std::size_t n = std::min(run_words, words - run);  // a multiple of the row size
      if (table) {
        const std::uint16_t* from = table_.data();
        for (std::size_t i = 0; i < n; ++i) s[i] = x[from[i]];
      } else {
        kernels_.reorder(x, s, n / size, log2n_, order_, 1);
      }
      std::copy(s, s + n, x);
    }
  }

  template <class F>
  void for_shares(std::size_t rows, F&& f) const {
    for_row_shares(rows, log2n_, threads_, f);
  }

  /// Scratch for a call's Paley or sequency rows, kept by this thread where it is small.
  using Scratch = CallScratch<W, CpuWht>;

  std::optional<Scratch> scratch_for(std::size_t size) const {
    if (order_ == Order::hadamard) return std::nullopt;
    return std::optional<Scratch>(std::in_place, size);
  }

  static W* data_of(const std::optional<Scratch>& scratch) { return scratch ? scratch->data() : nullptr; }

  Bounded execute_bounded(void* data, std::size_t rows, std::size_t stride, int limit_log2) const override {
    if constexpr (std::is_same_v<W, std::uint32_t> || std::is_same_v<W, std::uint64_t>) {
      W* base = static_cast<W*>(data);
      if (rows == 1 && order_ == Order::hadamard)  // as execute(): transform_row's case, directly
        return kernels_.wht_bounded(base, base, log2n_, threads_, limit_log2, Geometry::of_this_cpu())
                   ? Bounded::done
                   : Bounded::exceeded;
      const auto n_rows = static_cast<std::ptrdiff_t>(rows);
      const std::size_t size = std::size_t{1} << log2n_;
      if (batched(rows, stride) || packable(rows, stride)) {
        const auto undo = [&](std::size_t first, std::size_t count) {  // as below, a share's rows at a time
          transform_share(base, stride, first, count, 1.0);
          for (std::size_t r = first; r < first + count; ++r) divide_out(base + r * stride, size, log2n_);
        };
        if (row_team(rows, log2n_, threads_) == 1) {  // one share: no list of shares to keep
          const std::size_t n = transform_share(base, stride, 0, rows, 1.0, limit_log2);
          if (n == rows) return Bounded::done;
          undo(0, n);
          return Bounded::exceeded;
        }
        std::atomic<bool> exceeded{false};
        std::vector<std::pair<std::size_t, std::size_t>> done;  // rows transformed, from the start of each share
        std::mutex mutex;
        for_shares(rows, [&](std::size_t first, std::size_t count) {
          const std::size_t n = transform_share(base, stride, first, count, 1.0, limit_log2, &exceeded);
          if (n < count) exceeded.store(true, std::memory_order_relaxed);
          const std::lock_guard lock(mutex);
          if (n > 0) done.emplace_back(first, n);
        });
        if (!exceeded.load()) return Bounded::done;
        for (const auto& [first, count] : done) undo(first, count);
        return Bounded::exceeded;
      }
      std::vector<char> done(rows, 0);
      std::atomic<bool> exceeded{false};
      auto row_task = [&](std::ptrdiff_t r, int threads, W* scratch) {
        if (exceeded.load(std::memory_order_relaxed)) return;
        if (transform_row(base + r * stride, threads, 1.0, scratch, limit_log2)) done[r] = 1;
        else exceeded.store(true, std::memory_order_relaxed);
      };
      if (rows > 1 && log2n_ <= kRowParallelLog2) {
        const int team = threads_ > 0 ? threads_ : omp_get_max_threads();
#pragma omp parallel num_threads(team) if (team > 1 && (rows << log2n_) >= (std::size_t{1} << kTeamLog2))
        {
          const std::optional<Scratch> scratch = scratch_for(size);
#pragma omp for schedule(static) nowait  // the region's end waits (as in execute)
          for (std::ptrdiff_t r = 0; r < n_rows; ++r) row_task(r, 1, data_of(scratch));
        }
      } else {
        const std::optional<Scratch> scratch = scratch_for(size);
        for (std::ptrdiff_t r = 0; r < n_rows; ++r) row_task(r, threads_, data_of(scratch));
      }
      if (!exceeded.load()) return Bounded::done;
      // Restore the rows already transformed. Their inputs were below 2^limit_log2 ≤ 2^(bits−n)
      // in magnitude; every order's matrix is symmetric with W·W = 2^n·I, so transforming
      // again gives 2^n·x exactly in the ring, and an arithmetic shift gives x back.
      const std::optional<Scratch> scratch = scratch_for(size);
      for (std::ptrdiff_t r = 0; r < n_rows; ++r) {
        if (done[r] == 0) continue;
        W* row = base + r * stride;
        transform_row(row, threads_, 1.0, data_of(scratch));
        divide_out(row, size, log2n_);
      }
      return Bounded::exceeded;
    } else {
      return Bounded::unsupported;
    }
  }

  /// Natural order in place. Paley and sequency: where the kernels can, the reordering in the
  /// transform's top sweep (WordKernels::ordered; beyond the caches only for a row aligned to a
  /// vector, which its streamed stores need); otherwise arrays in cache are transformed into the
  /// scratch and reordered back into the row in one pass, and larger ones transformed in place,
  /// reordered into the scratch (aligned, so that the reordering's scattered stores can stream
  /// past the caches) and copied back. (2^22 … 2^26 floats, that way: 2.0–2.1× a natural-order
  /// transform's time, against 2.7–3.0× out of place first; fused and streamed, 1.5–1.9×;
  /// 2^12 … 2^20: 1.4–1.9×.) With limit ≥ 0 (integer words), the kernels' bound check: false,
  /// and the row as it was, if it fails.
  bool transform_row(W* row, int threads, double scale, W* scratch, int limit = -1) const {
    const Geometry& g = Geometry::of_this_cpu();
    const auto transform = [&](W* out) {  // row → out in natural order, on `threads` as it is then
      if (limit < 0) {
        kernels_.wht(row, out, log2n_, threads, scale, g);
        return true;
      }
      return kernels_.wht_bounded(row, out, log2n_, threads, limit, g);
    };
    if (order_ == Order::hadamard) return transform(row);
    threads = ordered_team(threads);
    switch (kernels_.ordered(row, row, scratch, log2n_, order_, scale, threads, limit, g)) {
      case Fused::done: return true;
      case Fused::exceeded: return false;
      case Fused::declined: break;
    }
    if (!in_place_first()) {
      if (!transform(scratch)) return false;
      kernels_.reorder(scratch, row, 1, log2n_, order_, threads);
      return true;
    }
    if (!transform(row)) return false;
    reorder_through(row, scratch, threads);
    return true;
  }

  /// The team for a Paley or sequency row: one thread below kParallelReorderBytes.
  int ordered_team(int threads) const { return (sizeof(W) << log2n_) < kParallelReorderBytes ? 1 : threads; }

  /// transform_row's choice: whether a Paley or sequency row is transformed in place first.
  bool in_place_first() const { return (sizeof(W) << log2n_) >= kStreamedReorderBytes; }

  /// row ← row in the plan's order, through `scratch` (a whole row's room), on `threads`.
  void reorder_through(W* row, W* scratch, int threads) const {
    kernels_.reorder(row, scratch, 1, log2n_, order_, threads);
    for_word_shares(std::size_t{1} << log2n_, threads, [&](std::size_t first, std::size_t last) {
      std::copy(scratch + first, scratch + last, row + first);
    });
  }

  static constexpr int kTableLog2 = 12;
  static constexpr int kPackedNaturalLog2 = 6;  ///< natural-order rows with gaps packed up to this
  static constexpr std::size_t kTableWords = std::size_t{1} << kTableLog2;

  int log2n_;
  Order order_;
  int threads_;
  const WordKernels<W>& kernels_;
  bool in_registers_;  ///< wht_rows puts rows into order_ in its registers (short Paley/sequency rows)
  mutable std::once_flag table_made_;
  mutable std::vector<std::uint16_t> table_;  ///< reorder_rows: where word i of a run comes from
};

template <class W>
class CpuSpectrum final : public detail::Spectrum {
 public:
  explicit CpuSpectrum(int log2n) : storage_((std::size_t{1} << log2n) + pad_words()) { this->log2n = log2n; }
  /// The spectrum's words, half an L1 way past the buffer's start. Big buffers are
  /// 2 MiB-aligned, and so, often, are the arrays a spectrum multiplies: at the same offset
  /// S[i] and x[i] would share an L1 set, and the fused sweeps load both. On the AMD EPYC
  /// Zen 4 VM the offset took in-cache convolutions of 2^15 and 2^18 floats 1.20× and 1.06×
  /// faster, and changed no size for the worse (docs/benchmarks.md).
  [[nodiscard]] W* values() const noexcept { return storage_.data() + pad_words(); }

 private:
  static std::size_t pad_words() { return Geometry::of_this_cpu().l1_way_bytes / 2 / sizeof(W); }
  WordBuffer<W> storage_;
};

/// Dyadic convolution in three passes over memory (passes.hpp): transform, multiply and the
/// inverse transform fused.
template <class W>
class CpuDyadic final : public detail::DyadicKernel {
 public:
  CpuDyadic(int log2n, int threads, const IsaKernels& isa)
      : log2n_(log2n), threads_(threads), kernels_(isa.of<W>()) {}

  std::unique_ptr<detail::Spectrum> spectrum(const void* h) const override {
    auto s = std::make_unique<CpuSpectrum<W>>(log2n_);
    kernels_.wht(static_cast<const W*>(h), s->values(), log2n_, threads_, 1.0, Geometry::of_this_cpu());
    return s;
  }

  void apply(const detail::Spectrum& s, const void* x, void* out, double scale) const override {
    run(x, out, DyadicOp::multiply, &s, scale);
  }

  /// g's spectrum into a scratch spectrum, without the sweep that the fused middle does.
  void convolve(const void* f, const void* g, void* out, double scale) const override {
    const CpuSpectrum<W> s(log2n_);
    kernels_.convolve(static_cast<const W*>(f), static_cast<const W*>(g), static_cast<W*>(out), s.values(), log2n_,
                      scale, threads_, Geometry::of_this_cpu());
  }

  void autocorrelate(const void* x, void* out, double scale) const override {
    run(x, out, DyadicOp::square, nullptr, scale);
  }

  void deconvolve(const detail::Spectrum& s, const void* y, void* out, double scale) const override {
    if constexpr (!std::is_floating_point_v<W>) {
      throw Error(ErrorCode::unsupported, "deconvolution in integer rings is done exactly by the caller");
    } else {
      const W* values = values_of(s);
      if (const std::ptrdiff_t k = detail::first_zero(values, s.log2n, s.zero_threshold); k >= 0)
        detail::throw_singular(static_cast<std::size_t>(k), std::abs(static_cast<double>(values[k])),
                               s.zero_threshold);
      run(y, out, DyadicOp::divide, &s, scale);
    }
  }

 private:
  void run(const void* x, void* out, DyadicOp op, const detail::Spectrum* s, double scale) const {
    kernels_.dyadic(static_cast<const W*>(x), static_cast<W*>(out), log2n_, op, s ? values_of(*s) : nullptr,
                    s ? s->log2n : 0, scale, threads_, Geometry::of_this_cpu());
  }

  static const W* values_of(const detail::Spectrum& s) {
    return static_cast<const CpuSpectrum<W>&>(s).values();
  }

  int log2n_;
  int threads_;
  const WordKernels<W>& kernels_;
};

/// Rows of 2^log2n words that a team of `threads` would share, since there are fewer rows than
/// threads and the rows are long enough for a float transform's team (Pipeline's
/// kMinWordsPerThread per thread).
inline bool team_shared(std::size_t rows, int log2n, int threads) {
  const int want = threads > 0 ? threads : omp_get_max_threads();
  return row_team(rows, log2n, threads) < want && log2n >= kTeamLog2;
}

/// The WHT of 16-bit floats H (float16, bfloat16) in natural order, computed in float, each
/// word widened as the first sweep reads it and each result rounded once as the last one
/// stores it (IsaKernels::wht_rows_f16 and wht_rows_bf16): rows that fit the cache shared out
/// among the threads by rows, through scratch that stays in cache. Longer rows, and rows a team
/// would share, go the whole walk into a float row of scratch and are rounded back from there
/// (IsaKernels::wht_f16, wht_bf16). Either way no pass of its own widens the input, as the
/// front end's float copies of blocks of rows do (core/wht16.hpp; against that way, on the AMD
/// EPYC Zen 4 VM: docs/benchmarks.md).
template <class H>
class CpuWht16 final : public detail::WhtKernel {
 public:
  struct Kernels {
    void (*rows)(H*, std::size_t, std::size_t, int, double, float*, const Geometry&, Order);
    void (*whole)(const H*, H*, float*, int, int, double, const Geometry&);
    int in_registers_log2;  ///< rows this short need no scratch
  };

  /// Paley or sequency `order` only for rows that kernels.rows orders in its registers (no
  /// longer than 2^in_registers_log2, so never through `whole`, which does natural order).
  CpuWht16(int log2n, Order order, int threads, const Kernels& kernels)
      : log2n_(log2n),
        order_(order),
        threads_(threads),
        kernels_(kernels),
        scratch_words_(log2n <= kernels.in_registers_log2
                           ? 0
                           : std::max(std::size_t{1} << log2n, std::size_t{1} << kHalvesScratchLog2)) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    const Geometry& g = Geometry::of_this_cpu();
    const std::size_t size = std::size_t{1} << log2n_;
    H* const x = static_cast<H*>(data);
    if (size * sizeof(float) > g.block_bytes || team_shared(rows, log2n_, threads_)) {
      const WordBuffer<float> scratch(size);
      for (std::size_t r = 0; r < rows; ++r)
        kernels_.whole(x + r * stride, x + r * stride, scratch.data(), log2n_, threads_, scale, g);
      return;
    }
    for_row_shares(rows, log2n_, threads_, [&](std::size_t first, std::size_t count) {
      const CallScratch<float, HalvesScratch> scratch(scratch_words_);
      kernels_.rows(x + first * stride, count, stride, log2n_, scale, scratch.data(), g, order_);
    });
  }

 private:
  int log2n_;
  Order order_;
  int threads_;
  Kernels kernels_;
  std::size_t scratch_words_;  ///< 0: rows short enough for the registers
};

/// The WHT of 16-bit floats H in Paley or sequency order, through float scratch: rows that fit
/// the cache shared out among the threads by rows, a run of them at a time widened into the
/// thread's kept scratch (in cache), transformed and reordered there by the float kernel on one
/// thread, and rounded back; longer rows, and rows a team shares, one at a time through a row
/// of scratch from the backend's pool, by the team. (Before, the front end widened blocks of
/// rows into a fresh, zero-filled buffer per call: core/converting_wht.hpp.)
template <class H>
class CpuOrderedWht16 final : public detail::WhtKernel {
 public:
  using Widen = void (*)(const H*, float*, std::size_t);
  using Narrow = void (*)(const float*, H*, std::size_t);

  CpuOrderedWht16(int log2n, Order order, int threads, const IsaKernels& isa, Widen widen, Narrow narrow)
      : log2n_(log2n),
        threads_(threads),
        in_cache_(log2n, order, 1, isa),
        by_team_(log2n, order, threads, isa),
        widen_(widen),
        narrow_(narrow) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    const std::size_t size = std::size_t{1} << log2n_;
    H* const x = static_cast<H*>(data);
    if (size * sizeof(float) > Geometry::of_this_cpu().block_bytes || team_shared(rows, log2n_, threads_)) {
      const WordBuffer<float> scratch(size);
      float* const wide = scratch.data();
      for (std::size_t r = 0; r < rows; ++r) {
        H* const row = x + r * stride;
        for_word_shares(size, threads_,
                        [&](std::size_t first, std::size_t last) { widen_(row + first, wide + first, last - first); });
        by_team_.execute(wide, 1, size, scale);
        for_word_shares(size, threads_,
                        [&](std::size_t first, std::size_t last) { narrow_(wide + first, row + first, last - first); });
      }
      return;
    }
    // Rows back to back convert as one run of up to the kept scratch's size.
    const std::size_t run = stride == size ? std::max<std::size_t>(1, kKeptWords >> log2n_) : 1;
    for_row_shares(rows, log2n_, threads_, [&](std::size_t first, std::size_t count) {
      const CallScratch<float, HalvesScratch> kept(size);
      float* const scratch = kept.data();
      for (std::size_t r = first; r < first + count; r += run) {
        const std::size_t n = std::min(run, first + count - r);
        widen_(x + r * stride, scratch, n * size);
        in_cache_.execute(scratch, n, size, scale);
        narrow_(scratch, x + r * stride, n * size);
      }
    });
  }

 private:
  int log2n_;
  int threads_;
  CpuWht<float> in_cache_;  ///< one thread
  CpuWht<float> by_team_;   ///< the backend's threads
  Widen widen_;
  Narrow narrow_;
};

class CpuBackend final : public detail::BackendImpl {
 public:
  CpuBackend(int threads, const IsaKernels& isa) : threads_(threads), isa_(isa) {}

  std::string_view name() const noexcept override { return "cpu"; }
  std::string description() const override {
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
    return "cpu: " + std::string(isa_.name) + " variant (" + std::string(isa_.description) + " vectors), " +
           std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  }
  std::string_view variant() const noexcept override { return isa_.name; }
  std::vector<std::string> variants() const override { return supported_isa_names(); }
  int threads() const noexcept override { return threads_; }
  std::unique_ptr<detail::WhtKernel> make_wht(int log2n, detail::Word word, Order order) const override {
    return detail::make_for_word<CpuWht>(word, log2n, order, threads_, isa_);
  }
  std::unique_ptr<detail::DyadicKernel> make_dyadic(int log2n, detail::Word word) const override {
    return detail::make_for_word<CpuDyadic, detail::DyadicKernel>(word, log2n, threads_, isa_);
  }
  std::unique_ptr<detail::WhtKernel> make_wht16(int log2n, detail::Word16 word, Order order) const override {
    if (isa_.wht_rows_f16 == nullptr) return nullptr;  // the front end widens
    // Paley and sequency rows that the float kernels order in their registers take the
    // natural-order kernels' single sweep; others go through float scratch.
    if (order != Order::hadamard &&
        !(log2n <= isa_.halves_in_registers_log2 && isa_.f32.orders_rows(log2n, order))) {
      if (word == detail::Word16::f16)
        return std::make_unique<CpuOrderedWht16<float16>>(log2n, order, threads_, isa_, isa_.widen_f16, isa_.narrow_f16);
      return std::make_unique<CpuOrderedWht16<bfloat16>>(log2n, order, threads_, isa_, isa_.widen_bf16, isa_.narrow_bf16);
    }
    if (word == detail::Word16::f16)
      return std::make_unique<CpuWht16<float16>>(
          log2n, order, threads_,
          CpuWht16<float16>::Kernels{isa_.wht_rows_f16, isa_.wht_f16, isa_.halves_in_registers_log2});
    return std::make_unique<CpuWht16<bfloat16>>(
        log2n, order, threads_,
        CpuWht16<bfloat16>::Kernels{isa_.wht_rows_bf16, isa_.wht_bf16, isa_.halves_in_registers_log2});
  }
  Conversions16 conversions16() const override {
    return {isa_.widen_f16, isa_.narrow_f16, isa_.widen_bf16, isa_.narrow_bf16};
  }

 private:
  int threads_;
  const IsaKernels& isa_;
};

}  // namespace

std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads, const IsaKernels& isa) {
  return std::make_shared<CpuBackend>(threads, isa);
}

std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads) {
  return make_cpu_backend(threads, best_isa());
}

}  // namespace fastconv::cpu
