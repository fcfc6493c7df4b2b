// The out-of-core WHT (fastconv/out_of_core.hpp): two passes, or a third when an integer result
// needs a wider ring than the element's own.
#include "core/accumulation.hpp"
#include "core/normalization.hpp"
#include "outofcore/engine.hpp"

namespace fastconv::detail::ooc {
namespace {

/// One WHT of a file: what every pass needs.
struct WhtJob {
  const FileArray& input;
  const InputFile& file;
  const FileOutput& target;
  AtomicFile& output;
  WhtOptions options;
  const OutOfCoreOptions& ooc;
  Meter& meter;
  std::uint64_t budget;
  int n;
};

/// Word W of pass 2 as output element T: the integers' exact normalisation and range check,
/// the 16-bit floats' rounding.
template <class T, class W>
auto finisher(int n, Normalization normalization) {
  if constexpr (std::is_integral_v<T>) {
    return [shift = normalization_shift(n, normalization), normalization](W word, std::uint64_t k) {
      return checked_wht_quotient<T>(signed_value(word), shift, normalization,
                                     [k] { return "element " + std::to_string(k); });
    };
  } else {
    return [](W word, std::uint64_t) { return static_cast<T>(word); };
  }
}

/// Passes 1 and 2 in words W. With `fit_required` (an integer element's own ring), returns
/// false before pass 2 if pass 1's bound does not prove every result fits the ring.
template <class T, class W>
bool transform_in(const WhtJob& job, bool fit_required) {
  const int t = tile_log2(job.budget, 0, sizeof(W), 2, job.n, "a WHT");
  const Geometry g = plan_geometry(job.n, t, job.options.order != Order::hadamard);
  auto& report = job.meter.report();
  report.tile_elements = g.tile, report.low_bits = g.l, report.high_bits = g.h;
  auto tile = tile_buffer<W>(g.tile), scratch = tile_buffer<W>(g.tile);

  // Intermediate words live in the output's own bytes when they have the element's size and
  // pass 2 writes each value where it read it (natural order); otherwise in a temporary file.
  const std::uint64_t prefix = job.target.prefix.size();
  const bool in_output = sizeof(W) == sizeof(T) && job.options.order == Order::hadamard;
  const auto work_file = in_output ? nullptr : scratch_file(job.target.path, "work");
  WordFile<W> work(in_output ? job.output : *work_file, in_output ? prefix : 0, job.meter);

  const BackendImpl& backend = job.ooc.backend.impl();
  InputSource<T, W> source(job.file, job.input.offset, job.meter);
  row_pass(source, work, g, *backend.make_wht(g.l, word_of<W>, Order::hadamard), 1.0, tile.get(), job.meter);
  if constexpr (std::is_integral_v<T>)
    if (fit_required && !below_power_of_two(source.stats().max, job.n, std::numeric_limits<T>::digits)) return false;

  const auto finish = finisher<T, W>(job.n, job.options.normalization);
  ResultSink<T, W, decltype(finish)> sink(job.output, prefix, job.meter, finish);
  const auto high = backend.make_wht(g.h, word_of<W>, job.options.order);
  const double scale = std::is_floating_point_v<W> ? normalization_scale(job.n, job.options.normalization) : 1.0;
  column_pass(work, sink, g, job.options.order, tile.get(), scratch.get(), resolve_threads(job.ooc.threads),
              job.meter, [&](W* columns, std::uint64_t) { high->execute(columns, g.columns(), g.rows(), scale); });
  return true;
}

/// Integers: the element's own ring when pass 1 proves the result fits it, else from the
/// start again in a ring wide enough for any result (as WhtPlan: uint64 for int32 up to 2^31
/// points, else uint128), the range checked as pass 2 stores.
template <class T>
void transform(const WhtJob& job) {
  if constexpr (std::is_integral_v<T>) {
    if (transform_in<T, ring_of<T>>(job, true)) return;
    job.meter.plan_another_pass();
    if (std::is_same_v<T, std::int32_t> && job.n <= 31) transform_in<T, std::uint64_t>(job, false);
    else transform_in<T, u128>(job, false);
  } else if constexpr (HalfFloat<T>) {
    transform_in<T, float>(job, false);
  } else {
    transform_in<T, T>(job, false);
  }
}

/// The bytes an in-memory WHT takes per element: the values and the widest words.
template <class T>
constexpr std::size_t in_memory_bytes() {
  return sizeof(T) + (std::is_integral_v<T> ? sizeof(u128) : sizeof(float) > sizeof(T) ? sizeof(float) : 0);
}

template <TransformElement T>
OutOfCoreReport wht_of(const FileArray& input, const FileOutput& target, WhtOptions options,
                       const OutOfCoreOptions& ooc) {
  const int n = log2_exact(input.count, input.path.string() + ": the array");
  if constexpr (std::is_integral_v<T>) require_exact_normalization<T>(n, options.normalization);
  if (accumulates_in_double<T> && options.accumulation == Accumulation::float64)
    throw Error(ErrorCode::unsupported, "out-of-core WHT: float64 accumulation is not supported (the tiles are "
                                        "transformed in the file's own type): convert the data to float64 instead");
  const InputFile file(input.path);
  require_values(file, input);
  Meter meter(ooc, 2);
  const std::uint64_t budget = memory_budget(ooc);
  meter.report().memory_bytes = budget;
  const std::uint64_t bytes = input.count * sizeof(T);
  // One or two values are transformed in memory whatever the budget: the tiling needs two tiles
  // of at least one row and column (plan_geometry), and a budget of a few bytes had looped.
  if (n <= 1 || input.count * in_memory_bytes<T>() <= tile_share(budget)) {
    meter.begin_pass(2 * bytes);
    std::vector<T> values = read_values<T>(file, input);
    meter.add_read(bytes);
    WhtPlan<T>(n, options, ooc.backend).execute(std::span<T>(values));
    write_values(target, std::span<const T>(values));
    meter.add_written(bytes);
    meter.tile_done();
    meter.report().in_memory = true;
    return meter.finish();
  }
  AtomicFile output(target.path);
  output.write(target.prefix);
  transform<T>({input, file, target, output, options, ooc, meter, budget, n});
  output.commit();
  return meter.finish();
}

}  // namespace
}  // namespace fastconv::detail::ooc

namespace fastconv {

OutOfCoreReport wht_file(const FileArray& input, const FileOutput& output, WhtOptions options,
                         const OutOfCoreOptions& ooc) {
  return detail::ooc::with_transform_element(
      input.dtype, [&]<class T>() { return detail::ooc::wht_of<T>(input, output, options, ooc); });
}

}  // namespace fastconv
