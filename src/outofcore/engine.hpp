// src/outofcore/engine.hpp — the passes of the out-of-core transforms (fastconv/out_of_core.hpp):
// file regions, tile geometry, the row pass (low bits) and the column pass (high bits).
//
// Words W are what the kernels compute in (float, double, or an integer ring); a file holds
// either words (the intermediate results) or elements T (the input and the output), and the
// sources and sinks below convert between the two in the tile buffers, in place.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "core/backend_impl.hpp"
#include "core/exact.hpp"
#include "core/files.hpp"
#include "core/finite.hpp"
#include "fastconv/out_of_core.hpp"

namespace fastconv::detail::ooc {

/// Counts the bytes moved and reports progress, pass by pass, into the run's report.
class Meter {
 public:
  Meter(const OutOfCoreOptions& options, int passes);
  void begin_pass(std::uint64_t bytes_total);
  void add_read(std::uint64_t bytes) noexcept { report_.bytes_read += bytes, done_ += bytes; }
  void add_written(std::uint64_t bytes) noexcept { report_.bytes_written += bytes, done_ += bytes; }
  /// Reports progress (after each tile).
  void tile_done() const;
  /// More passes than planned (an integer result needing a wider ring, a spectrum in a file).
  void plan_another_pass(int passes = 1) noexcept { planned_ += passes; }
  /// The report, with the time since construction.
  OutOfCoreReport& finish();
  OutOfCoreReport& report() noexcept { return report_; }

 private:
  using Clock = std::chrono::steady_clock;
  const OutOfCoreOptions& options_;
  OutOfCoreReport report_;
  int planned_;
  std::uint64_t done_ = 0, total_ = 0;
  Clock::time_point start_ = Clock::now(), pass_start_ = start_;
};

/// Values of type V at element positions of a file, from byte `base` on.
template <class V, class File>
class Region {
 public:
  Region(File& file, std::uint64_t base, Meter& meter) : file_(&file), base_(base), meter_(&meter) {}
  static constexpr std::size_t item = sizeof(V);

  void load(std::uint64_t first, V* out, std::size_t count) const {
    file_->read_at(base_ + first * item, out, count * item);
    meter_->add_read(count * item);
  }
  void store(std::uint64_t first, const V* values, std::size_t count) const
    requires std::same_as<File, AtomicFile>
  {
    file_->write_at(base_ + first * item, {reinterpret_cast<const char*>(values), count * item});
    meter_->add_written(count * item);
  }

 private:
  File* file_;
  std::uint64_t base_;
  Meter* meter_;
};

template <class W>
using WordFile = Region<W, AtomicFile>;

/// ‖x‖₁ and max |x| of the integer input read so far (the bounds of exact results).
struct IntegerStats {
  u128 l1 = 0;
  std::uint64_t max = 0;
};

/// Element T as word W: floats converted, integers sign-extended into the ring.
template <class W, class T>
W to_word(T value) noexcept {
  if constexpr (std::is_floating_point_v<W>) return static_cast<W>(value);
  else return static_cast<W>(static_cast<i128>(value));
}

/// The input file: loads elements T as words W, rejecting NaN and infinity with the element's
/// index and gathering the integer statistics.
template <class T, class W>
class InputSource {
 public:
  InputSource(const InputFile& file, std::uint64_t offset, Meter& meter) : region_(file, offset, meter), name_(file.name()) {}
  static constexpr std::size_t item = sizeof(T);

  void load(std::uint64_t first, W* words, std::size_t count) {
    T* values = reinterpret_cast<T*>(words);  // T is no wider than W: read into the front, widen backwards
    region_.load(first, values, count);
    const std::span<const T> read(values, count);
    reject_non_finite(read, first, name_);
    if constexpr (std::is_integral_v<T>) {
      const Norms piece = norms(read);
      stats_.l1 = stats_.l1 + piece.l1 < piece.l1 ? ~u128{0} : stats_.l1 + piece.l1;  // saturating
      stats_.max = std::max(stats_.max, piece.max);
    }
    if constexpr (sizeof(T) != sizeof(W))
      for (std::size_t i = count; i-- > 0;) {
        T value;
        std::memcpy(&value, reinterpret_cast<const char*>(words) + i * sizeof(T), sizeof(T));
        const W word = to_word<W>(value);
        std::memcpy(reinterpret_cast<char*>(words) + i * sizeof(W), &word, sizeof(W));
      }
  }
  [[nodiscard]] const IntegerStats& stats() const noexcept { return stats_; }

 private:
  Region<T, const InputFile> region_;
  std::string name_;
  IntegerStats stats_;
};

/// The output file: stores words W as elements T = finish(word, position) (scaling done,
/// ranges checked), converted in place in the tile buffer.
template <class T, class W, class Finish>
class ResultSink {
 public:
  ResultSink(AtomicFile& file, std::uint64_t offset, Meter& meter, Finish finish)
      : region_(file, offset, meter), finish_(std::move(finish)) {}
  static constexpr std::size_t item = sizeof(T);

  void store(std::uint64_t first, W* words, std::size_t count) const {
    if constexpr (!std::is_same_v<T, W>)
      for (std::size_t i = 0; i < count; ++i) {  // forwards: T is no wider than W
        const T value = finish_(words[i], first + i);
        std::memcpy(reinterpret_cast<char*>(words) + i * sizeof(T), &value, sizeof(T));
      }
    region_.store(first, reinterpret_cast<const T*>(words), count);
  }

 private:
  WordFile<T> region_;
  Finish finish_;
};

/// How the index bits of N = 2^n points split between the passes: pass 1 transforms rows of 2^l
/// contiguous elements, pass 2 columns of 2^h elements (h = n − l), in tiles of `tile` words
/// (2^h rows × L columns).
struct Geometry {
  int n = 0, l = 0, h = 0;
  std::size_t tile = 0;
  [[nodiscard]] std::uint64_t size() const noexcept { return std::uint64_t{1} << n; }
  [[nodiscard]] std::size_t rows() const noexcept { return std::size_t{1} << h; }
  [[nodiscard]] std::size_t columns() const noexcept { return tile >> h; }
  [[nodiscard]] std::size_t row_length() const noexcept { return std::size_t{1} << l; }
};

/// The split for tiles of 2^t words (n ≤ 2t; t is capped at n − 1): h = n − t makes pass 2's runs longest (natural
/// order); `balanced` keeps h near t/2, so that an ordered pass 2 writes runs of 2^h elements
/// about as long as the L-element runs it reads.
Geometry plan_geometry(int n, int t, bool balanced);

/// The memory budget in bytes: the caller's, or available_memory_bytes().
std::uint64_t memory_budget(const OutOfCoreOptions& options);
/// The part of a budget left for tiles, after what the process allocates besides them.
constexpr std::uint64_t tile_share(std::uint64_t budget) noexcept { return budget - budget / 8; }
/// The smallest budget whose tile_share is at least `share` bytes.
std::uint64_t budget_with_share(std::uint64_t share) noexcept;
/// The smallest budget in which `buffers` tiles of 2^⌈n/2⌉ `word_bytes`-byte words (the smallest
/// tiles of a 2^n-element job) fit beside `reserved` bytes.
std::uint64_t smallest_budget(std::uint64_t reserved, std::size_t word_bytes, int buffers, int n) noexcept;
/// log2 of the words per tile when `buffers` tile buffers of `word_bytes`-byte words share the
/// tiles' part of `budget` less `reserved` bytes (a spectrum kept in memory); an invalid_argument
/// Error if tiles of 2^⌈n/2⌉ words do not fit (`what` names the operation), which names
/// `minimum` as the least budget that does (0: smallest_budget's).
int tile_log2(std::uint64_t budget, std::uint64_t reserved, std::size_t word_bytes, int buffers, int n,
              std::string_view what, std::uint64_t minimum = 0);

/// Where the output run of column j_lo of an ordered transform begins (its h-bit transform is
/// one contiguous run of the output), and whether it holds that transform reversed.
struct OrderedRun {
  std::uint64_t first = 0;
  bool reversed = false;
};
OrderedRun ordered_run(std::uint64_t j_lo, const Geometry& g, Order order);

int resolve_threads(int threads) noexcept;

/// out[c·rows + r] = in[r·cols + c], in cache-sized blocks.
template <class W>
void transpose(const W* __restrict in, W* __restrict out, std::size_t rows, std::size_t cols, int threads) {
  constexpr std::size_t B = 32;
  const auto row_blocks = static_cast<std::ptrdiff_t>((rows + B - 1) / B);
  const auto col_blocks = static_cast<std::ptrdiff_t>((cols + B - 1) / B);
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
  for (std::ptrdiff_t rb = 0; rb < row_blocks; ++rb)
    for (std::ptrdiff_t cb = 0; cb < col_blocks; ++cb) {
      const std::size_t r0 = static_cast<std::size_t>(rb) * B, c0 = static_cast<std::size_t>(cb) * B;
      const std::size_t r1 = std::min(rows, r0 + B), c1 = std::min(cols, c0 + B);
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
    }
}

/// Tile buffers of words, uninitialised: the kernels overwrite them.
template <class W>
std::unique_ptr<W[]> tile_buffer(std::size_t words) {
  return std::unique_ptr<W[]>(new W[words]);
}

/// Pass 1 (and a dyadic convolution's pass 3): contiguous tiles of whole rows of 2^l elements,
/// transformed over the low bits and scaled by `scale`, from `source` into `sink`.
template <class W, class Source, class Sink>
void row_pass(Source& source, Sink& sink, const Geometry& g, const WhtKernel& low, double scale, W* tile,
              Meter& meter) {
  meter.begin_pass(g.size() * (Source::item + Sink::item));
  for (std::uint64_t first = 0; first < g.size(); first += g.tile) {
    source.load(first, tile, g.tile);
    low.execute(tile, g.tile >> g.l, g.row_length(), scale);
    sink.store(first, tile, g.tile);
    meter.tile_done();
  }
}

/// Pass 2: tiles of 2^h rows × L columns (one read per row, 2^l elements apart), transposed so
/// that each column is contiguous, handed to `middle(columns, c0)` (which transforms them over
/// the high bits), and stored in `order`: natural order transposed back, row by row; sequency
/// and Paley orders one output run per column. Ordered output moves values between tiles, so
/// its sink must not be its source's file. `middle_bytes`: what `middle` reads through the
/// meter over the whole pass (a convolution's spectrum file), counted in the pass's progress.
template <class W, class Source, class Sink, class Middle>
void column_pass(Source& source, Sink& sink, const Geometry& g, Order order, W* tile, W* scratch, int threads,
                 Meter& meter, Middle&& middle, std::uint64_t middle_bytes = 0) {
  const std::size_t rows = g.rows(), cols = g.columns();
  meter.begin_pass(g.size() * (Source::item + Sink::item) + middle_bytes);
  for (std::uint64_t c0 = 0; c0 < g.row_length(); c0 += cols) {
    for (std::size_t r = 0; r < rows; ++r) source.load((std::uint64_t{r} << g.l) + c0, tile + r * cols, cols);
    transpose(tile, scratch, rows, cols, threads);
    middle(scratch, c0);
    if (order == Order::hadamard) {
      transpose(scratch, tile, cols, rows, threads);
      for (std::size_t r = 0; r < rows; ++r) sink.store((std::uint64_t{r} << g.l) + c0, tile + r * cols, cols);
    } else {
      for (std::size_t c = 0; c < cols; ++c) {
        W* run = scratch + c * rows;
        const OrderedRun where = ordered_run(c0 + c, g, order);
        if (where.reversed) std::reverse(run, run + rows);
        sink.store(where.first, run, rows);
      }
    }
    meter.tile_done();
  }
}

/// The temporary file of intermediate words beside `output` (removed when destroyed).
std::unique_ptr<AtomicFile> scratch_file(const std::filesystem::path& output, std::string_view what);

/// An io Error unless `file` holds `array`'s values.
void require_values(const InputFile& file, const FileArray& array);

/// Calls body.template operator()<T>() for the C++ type of `dtype`.
template <class Body>
decltype(auto) with_transform_element(DType dtype, Body&& body) {
  switch (dtype) {
    case DType::float32: return body.template operator()<float>();
    case DType::float64: return body.template operator()<double>();
    case DType::int32: return body.template operator()<std::int32_t>();
    case DType::int64: return body.template operator()<std::int64_t>();
    case DType::float16: return body.template operator()<float16>();
    case DType::bfloat16: break;
  }
  return body.template operator()<bfloat16>();
}

/// The whole of `array` in memory (NaN and infinity rejected).
template <class T>
std::vector<T> read_values(const InputFile& file, const FileArray& array) {
  std::vector<T> values(array.count);
  file.read_at(array.offset, values.data(), values.size() * sizeof(T));
  reject_non_finite(std::span<const T>(values), 0, file.name());
  return values;
}

/// Writes `prefix` and `values` to `output` atomically.
template <class T>
void write_values(const FileOutput& output, std::span<const T> values) {
  AtomicFile file(output.path);
  file.write(output.prefix);
  file.write({reinterpret_cast<const char*>(values.data()), values.size_bytes()});
  file.commit();
}

}  // namespace fastconv::detail::ooc
