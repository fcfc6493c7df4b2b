// Out-of-core dyadic convolution and autocorrelation (fastconv/out_of_core.hpp): three passes over
// the longer operand, the other's spectrum in memory or, when it does not fit, in a temporary
// file made by two passes of its own.
#include <cmath>

#include "fastconv/dyadic.hpp"
#include "outofcore/engine.hpp"

namespace fastconv::detail::ooc {
namespace {

/// An operand: where its values are, and the open file.
struct Operand {
  const FileArray& array;
  const InputFile& file;
  int log2n;
};

/// One convolution (`shorter` set) or autocorrelation (`shorter` null) of files.
struct DyadicJob {
  Operand longer;
  const Operand* shorter;
  const FileOutput& target;
  AtomicFile* output;  ///< set once the passes begin
  const OutOfCoreOptions& ooc;
  Meter& meter;
  std::uint64_t budget;
  [[nodiscard]] int n() const noexcept { return longer.log2n; }
  [[nodiscard]] std::string_view op() const noexcept {
    return shorter ? "dyadic convolution" : "dyadic autocorrelation";
  }
};

/// The shorter operand's spectrum W·g (natural order, unnormalised) at its own 2^m points: in
/// memory, or in a temporary file when it would take more than a quarter of the budget.
template <class W>
struct OtherSpectrum {
  std::vector<W> words;
  std::unique_ptr<AtomicFile> file;
  IntegerStats stats;
  int log2n = 0;

  /// (A spectrum of one or two words is kept in memory whatever the budget: it has no tiling,
  /// which needs two tiles, and plan_geometry's columns would be empty.)
  static bool fits_memory(const DyadicJob& job) { return fits_memory(job, job.budget); }
  static bool fits_memory(const DyadicJob& job, std::uint64_t budget) {
    return job.shorter == nullptr || job.shorter->log2n <= 1 || bytes(job) <= tile_share(budget) / 4;
  }
  /// The bytes it takes in memory.
  static std::uint64_t bytes(const DyadicJob& job) {
    return job.shorter ? std::uint64_t{sizeof(W)} << job.shorter->log2n : 0;
  }

  /// The least budget the job runs in: with the spectrum in memory (two tiles beside it), or
  /// in a file (three tiles) where a budget that small keeps it there.
  static std::uint64_t least_budget(const DyadicJob& job) {
    const int n = job.n();
    if (fits_memory(job, 0)) return smallest_budget(bytes(job), sizeof(W), 2, n);
    const std::uint64_t in_memory =
        std::max(smallest_budget(bytes(job), sizeof(W), 2, n), budget_with_share(4 * bytes(job)));
    const std::uint64_t in_file = smallest_budget(0, sizeof(W), 3, n);
    return fits_memory(job, in_file) ? in_memory : std::min(in_memory, in_file);
  }
};

/// Output word W as element T: integers hold N·C exactly, divided with a shift and range-checked.
template <class T, class W>
auto finisher(int n, std::string_view op) {
  if constexpr (std::is_integral_v<T>) {
    return [n, op](W word, std::uint64_t k) {
      const i128 value = signed_value(word) >> n;
      if (!fits<T>(value)) throw_overflow<T>(op, "element " + std::to_string(k), value);
      return static_cast<T>(value);
    };
  } else {
    return [](W word, std::uint64_t) { return word; };
  }
}

template <class T, class W>
OtherSpectrum<W> other_spectrum(const DyadicJob& job, W* tile, W* scratch, int t) {
  OtherSpectrum<W> s;
  if (job.shorter == nullptr) return s;
  const Operand& g = *job.shorter;
  const BackendImpl& backend = job.ooc.backend.impl();
  s.log2n = g.log2n;
  InputSource<T, W> source(g.file, g.array.offset, job.meter);
  if (OtherSpectrum<W>::fits_memory(job)) {
    s.words.resize(g.array.count);
    source.load(0, s.words.data(), s.words.size());
    backend.make_wht(g.log2n, word_of<W>, Order::hadamard)->execute(s.words.data(), 1, s.words.size(), 1.0);
  } else {
    const Geometry geometry = plan_geometry(g.log2n, t, false);
    s.file = scratch_file(job.target.path, "spectrum");
    WordFile<W> words(*s.file, 0, job.meter);
    row_pass(source, words, geometry, *backend.make_wht(geometry.l, word_of<W>, Order::hadamard), 1.0, tile,
             job.meter);
    const auto high = backend.make_wht(geometry.h, word_of<W>, Order::hadamard);
    column_pass(words, words, geometry, Order::hadamard, tile, scratch, resolve_threads(job.ooc.threads), job.meter,
                [&](W* columns, std::uint64_t) { high->execute(columns, geometry.columns(), geometry.rows(), 1.0); });
  }
  s.stats = source.stats();
  return s;
}

/// The ring a result needs, from the operands' statistics (an overflow Error if none does).
template <class T>
Ring ring_for(const DyadicJob& job, const IntegerStats& f, const IntegerStats& g) {
  const u128 bound = convolution_bound(f.l1, f.max, g.l1, g.max);
  const Ring ring = choose_ring(bound, job.n());
  if (ring == Ring::none) throw_too_wide(job.op(), type_name<T>(), bound, job.n());
  return ring;
}

/// The three passes in words W; false, after pass 1, when the result needs a wider ring than W.
template <class T, class W>
bool run_in(const DyadicJob& job) {
  const bool spectrum_in_memory = OtherSpectrum<W>::fits_memory(job);
  const std::uint64_t reserved = spectrum_in_memory ? OtherSpectrum<W>::bytes(job) : 0;
  const int t = tile_log2(job.budget, reserved, sizeof(W), spectrum_in_memory ? 2 : 3, job.n(), job.op(),
                          OtherSpectrum<W>::least_budget(job));
  const Geometry g = plan_geometry(job.n(), t, false);
  auto& report = job.meter.report();
  report.tile_elements = g.tile, report.low_bits = g.l, report.high_bits = g.h;
  auto tile = tile_buffer<W>(g.tile), scratch = tile_buffer<W>(g.tile);
  auto other_tile = spectrum_in_memory ? nullptr : tile_buffer<W>(g.tile);
  const int threads = resolve_threads(job.ooc.threads);
  const OtherSpectrum<W> other = other_spectrum<T>(job, tile.get(), scratch.get(), t);

  const std::uint64_t prefix = job.target.prefix.size();
  const bool in_output = sizeof(W) == sizeof(T);
  const auto work_file = in_output ? nullptr : scratch_file(job.target.path, "work");
  WordFile<W> work(in_output ? *job.output : *work_file, in_output ? prefix : 0, job.meter);
  const BackendImpl& backend = job.ooc.backend.impl();
  const auto low = backend.make_wht(g.l, word_of<W>, Order::hadamard);
  InputSource<T, W> source(job.longer.file, job.longer.array.offset, job.meter);
  row_pass(source, work, g, *low, 1.0, tile.get(), job.meter);

  if constexpr (std::is_integral_v<T>) {
    const Ring ring = ring_for<T>(job, source.stats(), job.shorter ? other.stats : source.stats());
    if (ring == Ring::u128 && !std::is_same_v<W, u128>) return false;
  }

  const auto high = backend.make_wht(g.h, word_of<W>, Order::hadamard);
  const std::size_t rows = g.rows(), cols = g.columns();
  const std::uint64_t other_mask = (std::uint64_t{1} << other.log2n) - 1;
  const WordFile<W> other_words(other.file ? *other.file : *job.output, 0, job.meter);
  const auto multiply = [&](W* columns, std::uint64_t c0) {
    if (job.shorter == nullptr) {
      for (std::size_t i = 0; i < g.tile; ++i) columns[i] *= columns[i];
    } else if (spectrum_in_memory) {  // the spectrum of the zero-padded operand repeats: index mod 2^m
      for (std::size_t c = 0; c < cols; ++c)
        for (std::size_t r = 0; r < rows; ++r)
          columns[c * rows + r] *= other.words[((std::uint64_t{r} << g.l) | (c0 + c)) & other_mask];
    } else {  // here m ≥ l: each row's L columns are contiguous in the spectrum file
      for (std::size_t r = 0; r < rows; ++r)
        other_words.load(((std::uint64_t{r} << g.l) + c0) & other_mask, other_tile.get() + r * cols, cols);
      for (std::size_t c = 0; c < cols; ++c)
        for (std::size_t r = 0; r < rows; ++r) columns[c * rows + r] *= other_tile[r * cols + c];
    }
  };
  // The spectrum file is read once over the pass, a tile per tile (its progress counts it).
  const std::uint64_t spectrum_bytes = job.shorter != nullptr && !spectrum_in_memory ? g.size() * sizeof(W) : 0;
  column_pass(
      work, work, g, Order::hadamard, tile.get(), scratch.get(), threads, job.meter,
      [&](W* columns, std::uint64_t c0) {
        high->execute(columns, cols, rows, 1.0);
        multiply(columns, c0);
        high->execute(columns, cols, rows, 1.0);
      },
      spectrum_bytes);

  const auto finish = finisher<T, W>(job.n(), job.op());
  ResultSink<T, W, decltype(finish)> sink(*job.output, prefix, job.meter, finish);
  const double scale = std::is_floating_point_v<W> ? std::ldexp(1.0, -job.n()) : 1.0;
  row_pass(work, sink, g, *low, scale, tile.get(), job.meter);
  return true;
}

/// Floats in themselves; integers in Z/2^64, or from the start again in Z/2^128 when the bound
/// pass 1 gathers requires it.
template <class T>
void run(const DyadicJob& job) {
  if constexpr (std::is_integral_v<T>) {
    if (run_in<T, std::uint64_t>(job)) return;
    job.meter.plan_another_pass(job.meter.report().passes);  // those done are done again
    run_in<T, u128>(job);
  } else {
    run_in<T, T>(job);
  }
}

/// Both operands held in memory with the result and the ring words.
template <class T>
bool fits_in_memory(const DyadicJob& job) {
  const std::uint64_t elements = job.longer.array.count * 2 + (job.shorter ? job.shorter->array.count : 0);
  return elements * sizeof(T) + job.longer.array.count * sizeof(u128) <= tile_share(job.budget);
}

template <class T>
void run_in_memory(const DyadicJob& job) {
  const std::vector<T> f = read_values<T>(job.longer.file, job.longer.array);
  std::vector<T> out(f.size());
  if (job.shorter) {
    const std::vector<T> g = read_values<T>(job.shorter->file, job.shorter->array);
    convolve(f, g, std::span<T>(out), job.ooc.backend);
  } else {
    autocorrelate(f, std::span<T>(out), job.ooc.backend);
  }
  write_values(job.target, std::span<const T>(out));
}

/// The word type of the first try (the passes planned).
template <class T>
using first_word_t = std::conditional_t<std::is_integral_v<T>, std::uint64_t, T>;

template <Element T>
OutOfCoreReport dyadic_of(const FileArray& f, const FileArray* g, const FileOutput& target,
                          const OutOfCoreOptions& ooc) {
  const bool f_longer = g == nullptr || f.count >= g->count;
  const FileArray& longer = f_longer ? f : *g;
  const FileArray* shorter = g == nullptr ? nullptr : f_longer ? g : &f;
  const std::string what = g ? "convolve: " : "autocorrelate: ";
  const InputFile longer_file(longer.path);
  const Operand big{longer, longer_file, log2_exact(longer.count, what + longer.path.string())};
  require_values(longer_file, longer);
  std::optional<InputFile> shorter_file;
  std::optional<Operand> small;
  if (shorter) {
    shorter_file.emplace(shorter->path);
    small.emplace(Operand{*shorter, *shorter_file, log2_exact(shorter->count, what + shorter->path.string())});
    require_values(*shorter_file, *shorter);
  }
  Meter meter(ooc, 3);
  DyadicJob job{big, small ? &*small : nullptr, target, nullptr, ooc, meter, memory_budget(ooc)};
  meter.report().memory_bytes = job.budget;
  if (job.n() <= 1 || fits_in_memory<T>(job)) {  // (one or two values have no tiling: plan_geometry)
    const std::uint64_t elements = longer.count * 2 + (shorter ? shorter->count : 0);
    meter.begin_pass(elements * sizeof(T));
    run_in_memory<T>(job);
    meter.add_read((elements - longer.count) * sizeof(T));
    meter.add_written(longer.count * sizeof(T));
    meter.tile_done();
    meter.report().in_memory = true;
    return meter.finish();
  }
  if (!OtherSpectrum<first_word_t<T>>::fits_memory(job)) meter.plan_another_pass(2);
  AtomicFile output(target.path);
  output.write(target.prefix);
  job.output = &output;
  run<T>(job);
  output.commit();
  return meter.finish();
}

/// dyadic_of on the element type both operands have.
OutOfCoreReport dyadic(const FileArray& f, const FileArray* g, const FileOutput& target, const OutOfCoreOptions& ooc) {
  if (g && g->dtype != f.dtype)
    throw Error(ErrorCode::invalid_argument, "convolve: " + f.path.string() + " holds " +
                                                 std::string(to_string(f.dtype)) + " values and " + g->path.string() +
                                                 " holds " + std::string(to_string(g->dtype)) +
                                                 ": give both operands the same dtype");
  return with_transform_element(f.dtype, [&]<class T>() -> OutOfCoreReport {
    if constexpr (HalfFloat<T>)
      throw Error(ErrorCode::invalid_argument, std::string(to_string(f.dtype)) +
                                                   " is a storage type of the WHT only: the dyadic operations take "
                                                   "float32, float64, int32 or int64");
    else return dyadic_of<T>(f, g, target, ooc);
  });
}

}  // namespace
}  // namespace fastconv::detail::ooc

namespace fastconv {

OutOfCoreReport convolve_files(const FileArray& f, const FileArray& g, const FileOutput& output,
                               const OutOfCoreOptions& ooc) {
  return detail::ooc::dyadic(f, &g, output, ooc);
}

OutOfCoreReport autocorrelate_file(const FileArray& f, const FileOutput& output, const OutOfCoreOptions& ooc) {
  return detail::ooc::dyadic(f, nullptr, output, ooc);
}

}  // namespace fastconv
