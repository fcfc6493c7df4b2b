// fastconv bench wht|dyadic — times the library on random data over a range of sizes: the
// median of repeated runs (std::chrono::steady_clock), as a table or as JSON lines.
//
// What is timed: WhtPlan<T>::execute (unnormalised, in place, natural order unless --order
// says otherwise; the input is restored outside the timed region before each run), fastconv::convolve into a separate
// output (inputs kept) and DyadicSystem<T>::apply into a separate output (the system, i.e.
// W·g, is built once, untimed). One untimed warm-up run
// precedes the timed ones.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>

#include "common.hpp"
#include "core/memory.hpp"
#include "paper_tables.hpp"

namespace fastconv::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxLog2n = 40;
constexpr int kMinAdaptiveRuns = 5;
constexpr std::chrono::milliseconds kAdaptiveTarget{200};
constexpr std::size_t kMaxAdaptiveRuns = 1'000'000;

enum class Kind { wht, dyadic };

struct BenchArgs {
  Kind kind = Kind::wht;
  std::vector<std::string> dtypes = {"float32"};
  std::string log2n = "10:20";
  std::size_t batch = 1;
  int repeats = 0;  ///< 0: adaptive
  bool json = false;
  std::string order = "hadamard";  ///< wht only
  ComputeOptions compute;
};

struct SizeRange {
  int first, last;
};

/// One bound of --log2n: an integer in [0, kMaxLog2n].
int parse_log2n(std::string_view text, const std::string& whole) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == end && value > kMaxLog2n))
    usage_error("--log2n " + whole + ": " + std::string(text) + " is too large: sizes go up to 2^" +
                std::to_string(kMaxLog2n));
  if (text.empty() || ec != std::errc() || ptr != end || value < 0)
    usage_error("--log2n: '" + whole + "' is not a size or a range of sizes: use K (2^K points) or A:B " +
                "(2^A … 2^B), with 0 <= A <= B <= " + std::to_string(kMaxLog2n));
  return value;
}

SizeRange parse_range(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    const int k = parse_log2n(text, text);
    return {k, k};
  }
  const SizeRange range{parse_log2n(std::string_view(text).substr(0, colon), text),
                        parse_log2n(std::string_view(text).substr(colon + 1), text)};
  if (range.first > range.last)
    usage_error("--log2n " + text + ": the range is empty: its first size must not exceed its last (e.g. " +
                std::to_string(range.last) + ":" + std::to_string(range.first) + ")");
  return range;
}

std::vector<DType> parse_dtypes(const std::vector<std::string>& names) {
  std::vector<DType> dtypes;
  for (const auto& name : names) {
    const auto d = parse_dtype(name);
    if (!d)
      usage_error("--dtype: unknown type '" + name +
                  "': use float32, float64, int32, int64, float16 or bfloat16 (or a comma-separated list)");
    if (std::find(dtypes.begin(), dtypes.end(), *d) == dtypes.end()) dtypes.push_back(*d);
  }
  return dtypes;
}

/// The host threads the backend computes with: the cpu backend's --threads, or OpenMP's default
/// for 0; one for the textbook loop; none for a device backend (its device computes, whatever
/// --threads says), printed as null in JSON and "-" in the table.
std::optional<int> threads_used(const Backend& backend, int requested) {
  if (backend.name() == "reference") return 1;
  if (backend.name() != "cpu") return std::nullopt;
  return requested > 0 ? requested : omp_get_max_threads();
}

struct Timing {
  double median_ms = 0, min_ms = 0;
  std::size_t repeats = 0;
};

/// Times `run()` `repeats` times (0: at least kMinAdaptiveRuns, until kAdaptiveTarget has
/// passed) after one warm-up run; `reset()` runs untimed before each run.
template <class Reset, class Run>
Timing time_runs(int repeats, Reset&& reset, Run&& run) {
  reset();
  run();
  std::vector<double> ms;
  const auto begin = Clock::now();
  const auto more = [&] {
    if (repeats > 0) return ms.size() < static_cast<std::size_t>(repeats);
    return ms.size() < kMinAdaptiveRuns || (Clock::now() - begin < kAdaptiveTarget && ms.size() < kMaxAdaptiveRuns);
  };
  while (more()) {
    reset();
    const auto start = Clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t mid = ms.size() / 2;
  return {ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2, ms.front(), ms.size()};
}

/// Random test data: floats uniform in [-1, 1), integers uniform in {-1, 0, 1} (so an int32
/// WHT of up to 2^30 points stays in its own 32-bit ring).
template <class T>
std::vector<T> random_data(std::size_t count, std::mt19937_64& rng) {
  std::vector<T> data(count);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(-1, 1);
    for (auto& v : data) v = dist(rng);
  } else {
    std::uniform_int_distribution<int> dist(-1, 1);
    for (auto& v : data) v = static_cast<T>(dist(rng));
  }
  return data;
}

/// One measurement, as printed.
struct Record {
  std::string op;
  DType dtype;
  int log2n;
  Timing timing;
  double bytes;  ///< what the operation must at least read and write
};

struct Context {
  const BenchArgs& args;
  Backend backend;
  std::optional<int> threads;
  bool header_printed = false;
};

std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

void print(Context& ctx, const Record& r) {
  const double elements = static_cast<double>(ctx.args.batch) * std::ldexp(1.0, r.log2n);
  const double ns = r.timing.median_ms * 1e6;
  const double per_ns = ns > 0 ? elements / ns : std::numeric_limits<double>::infinity();
  const double gb_per_s = ns > 0 ? r.bytes / ns : std::numeric_limits<double>::infinity();
  const std::string backend(ctx.backend.name()), variant(ctx.backend.variant()), dtype(to_string(r.dtype));
  if (ctx.args.json) {
    const std::string threads = ctx.threads ? std::to_string(*ctx.threads) : "null";
    std::printf("{\"op\":%s,\"backend\":%s,\"variant\":%s,\"dtype\":%s,\"log2n\":%d,\"batch\":%zu,\"threads\":%s,"
                "\"median_ms\":%s,\"min_ms\":%s,\"repeats\":%zu,\"elements_per_ns\":%s,\"gb_per_s\":%s}\n",
                json_string(r.op).c_str(), json_string(backend).c_str(), json_string(variant).c_str(),
                json_string(dtype).c_str(), r.log2n, ctx.args.batch, threads.c_str(), number(r.timing.median_ms).c_str(),
                number(r.timing.min_ms).c_str(), r.timing.repeats, number(per_ns).c_str(), number(gb_per_s).c_str());
  } else {
    if (!ctx.header_printed)
      std::printf("%-13s %-9s %-9s %-7s %5s %6s %7s %12s %12s %7s %9s %8s\n", "op", "backend", "variant", "dtype", "log2n",
                  "batch", "threads", "median ms", "min ms", "runs", "elem/ns", "GB/s");
    ctx.header_printed = true;
    const std::string threads = ctx.threads ? std::to_string(*ctx.threads) : "-";
    std::printf("%-13s %-9s %-9s %-7s %5d %6zu %7s %12.6f %12.6f %7zu %9.3f %8.2f\n", r.op.c_str(), backend.c_str(),
                variant.c_str(), dtype.c_str(), r.log2n, ctx.args.batch, threads.c_str(), r.timing.median_ms,
                r.timing.min_ms, r.timing.repeats, per_ns, gb_per_s);
  }
  std::fflush(stdout);
}

template <class T>
void bench_wht(Context& ctx, Order order, int log2n, std::mt19937_64& rng) {
  const std::size_t n = std::size_t{1} << log2n, rows = ctx.args.batch;
  const WhtPlan<T> plan(log2n, {.order = order}, ctx.backend);
  const std::vector<T> input = random_data<T>(rows * n, rng);
  const AlignedBuffer<T> data(input.size());
  const Timing t = time_runs(
      ctx.args.repeats, [&] { std::copy(input.begin(), input.end(), data.span().begin()); },
      [&] { plan.execute(data.span(), rows, n); });
  const std::string op = order == Order::hadamard ? "wht" : "wht-" + std::string(to_string(order));
  print(ctx, {op, dtype_of<T>, log2n, t, 2.0 * sizeof(T) * static_cast<double>(rows * n)});
}

template <class T>
void bench_dyadic(Context& ctx, int log2n, std::mt19937_64& rng) {
  const std::size_t n = std::size_t{1} << log2n, rows = ctx.args.batch;
  const AlignedBuffer<T> f(random_data<T>(rows * n, rng)), g_buffer(random_data<T>(n, rng));
  const std::span<const T> g = g_buffer.span();
  const auto row = [&](std::size_t r) { return std::span<const T>(f.span().data() + r * n, n); };
  const double bytes = 3.0 * sizeof(T) * static_cast<double>(rows * n);

  const AlignedBuffer<T> buffer(rows * n);
  const std::span<T> out = buffer.span();
  const Timing conv = time_runs(
      ctx.args.repeats, [] {},
      [&] {
        for (std::size_t r = 0; r < rows; ++r) convolve(row(r), g, std::span<T>(out.data() + r * n, n), ctx.backend);
      });
  print(ctx, {"dyadic", dtype_of<T>, log2n, conv, bytes});

  const DyadicSystem<T> system(g, ctx.backend);
  const Timing sys = time_runs(
      ctx.args.repeats, [] {},
      [&] {
        for (std::size_t r = 0; r < rows; ++r) system.apply(row(r), std::span<T>(out.data() + r * n, n));
      });
  print(ctx, {"dyadic-system", dtype_of<T>, log2n, sys, bytes});
}

/// Refuses, before the first row is printed, a largest size whose buffers cannot fit in the
/// memory this process may use (detail::available_memory_bytes). Otherwise the table's smaller
/// sizes would print first and the largest end in std::bad_alloc's bare "out of memory", or in
/// the kernel's OOM killer part-way through its buffers' first touch. The buffers counted are
/// the tool's own: wht, the input and the array restored from it; dyadic, F and its output, G
/// (built through a temporary of its size) and the two spectra (DyadicSystem's, and
/// convolve's). The library checks its own work buffers as it allocates them.
void require_bench_memory(const BenchArgs& args, const std::vector<DType>& dtypes, const SizeRange& range) {
  const std::uint64_t n = std::uint64_t{1} << range.last, rows = args.batch;  // rows · n · 16 fits (run_bench)
  const std::uint64_t words = args.kind == Kind::wht ? 2 * rows * n : 2 * rows * n + 4 * n;
  for (const DType dtype : dtypes) {
    const std::string what = std::string(args.kind == Kind::wht ? "bench wht" : "bench dyadic") + " at 2^" +
                             std::to_string(range.last) + " " + std::string(to_string(dtype)) + " points" +
                             (rows > 1 ? " in " + std::to_string(rows) + " rows" : "");
    advising_on_out_of_memory(": use a smaller --log2n or --batch",
                              [&] { detail::require_elements(words, size_of(dtype), what); });
  }
}

int run_bench(const BenchArgs& args) {
  const std::vector<DType> dtypes = parse_dtypes(args.dtypes);
  if (args.kind == Kind::dyadic)  // before the first row is printed
    for (const DType dtype : dtypes)
      if (dtype == DType::float16 || dtype == DType::bfloat16) refuse_storage_type(dtype, "--dtype: ");
  const SizeRange range = parse_range(args.log2n);
  const std::optional<Order> order = parse_order(args.order);
  if (!order) usage_error("--order: unknown order '" + args.order + "': use hadamard, sequency or paley");
  if (args.batch > (std::numeric_limits<std::size_t>::max() >> range.last) / 16)
    usage_error("--batch " + std::to_string(args.batch) + " with --log2n " + args.log2n + ": " +
                std::to_string(args.batch) + " rows of 2^" + std::to_string(range.last) +
                " points are more elements than memory can address");
  require_bench_memory(args, dtypes, range);
  Context ctx{args, args.compute.make_backend(), 0};
  ctx.threads = threads_used(ctx.backend, args.compute.threads);

  std::mt19937_64 rng(2011);
  for (const DType dtype : dtypes) {
    for (int log2n = range.first; log2n <= range.last; ++log2n) {
      if (args.kind == Kind::wht)
        with_transform_type(dtype, [&]<class T>() { bench_wht<T>(ctx, *order, log2n, rng); });
      else
        with_type(dtype, [&]<class T>() { bench_dyadic<T>(ctx, log2n, rng); });
    }
  }
  if (std::ferror(stdout)) throw Error(ErrorCode::io, "<stdout>: write failed");
  return 0;
}

void add_options(CLI::App* cmd, const std::shared_ptr<BenchArgs>& args) {
  cmd->add_option("--dtype", args->dtypes,
                  "Element types to time: float32, float64, int32, int64 (wht also float16, bfloat16); repeat "
                  "the option or give a "
                  "comma-separated list (default: float32)")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--log2n", args->log2n,
                  "Sizes: K for 2^K points, or A:B for 2^A ... 2^B, 0 <= A <= B <= " + std::to_string(kMaxLog2n) +
                      " (default: 10:20)");
  cmd->add_option("--batch", args->batch, "Rows per timed call, each of 2^log2n points (default: 1)")
      ->check(whole_number_at_least(1));
  cmd->add_option("--repeats", args->repeats,
                  "Timed runs per measurement (default: at least 5, and more until 0.2 s have passed)")
      ->check(whole_number_at_least(1));
  cmd->add_flag("--json", args->json, "One JSON object per line instead of a table");
  args->compute.add_backend_options(*cmd);
}

}  // namespace

void add_bench_command(CLI::App& app, Action& action) {
  CLI::App* bench = app.add_subcommand("bench", "Time the WHT and dyadic convolution on random data, over a range of sizes");
  bench->require_subcommand(1);
  bench->footer(
      "Each measurement is the median of repeated runs (std::chrono::steady_clock) after one untimed\n"
      "warm-up. Data: floats uniform in [-1, 1), integers in {-1, 0, 1}, in 4096-byte aligned buffers (2 MiB\n"
      "aligned, with transparent huge pages, from 2 MiB on; on a CPU OpenCL device they are used in place).\n"
      "elem/ns = batch * 2^log2n / median;\n"
      "GB/s = the bytes an operation must at least read and write / median (wht: 2 * elements * size,\n"
      "dyadic: 3 * elements * size). threads = the host threads the backend computes with (1 for reference, - or null for opencl and cuda).\n"
      "Columns (and JSON keys): op, backend, variant, dtype, log2n, batch, threads, median_ms, min_ms,\n"
      "repeats, elements_per_ns, gb_per_s.");

  auto wht_args = std::make_shared<BenchArgs>();
  CLI::App* w = bench->add_subcommand("wht", "Time WhtPlan::execute: unnormalised, in place, natural order (op 'wht') or --order");
  add_options(w, wht_args);
  w->add_option("--order", wht_args->order,
                "Output order: hadamard (natural, default; op 'wht'), sequency (Walsh; op 'wht-sequency'), paley "
                "(dyadic; op 'wht-paley')");
  w->footer(
      "Example: fastconv bench wht --dtype float32,int32 --log2n 10:16 --batch 64 --json\n"
      "         fastconv bench wht --order sequency --log2n 16:24");
  w->callback([wht_args, &action] { action = [wht_args] { return run_bench(*wht_args); }; });

  auto dyadic_args = std::make_shared<BenchArgs>();
  dyadic_args->kind = Kind::dyadic;
  CLI::App* d = bench->add_subcommand(
      "dyadic", "Time dyadic convolution: fastconv::convolve (op 'dyadic') and DyadicSystem::apply (op 'dyadic-system')");
  add_options(d, dyadic_args);
  d->footer(
      "Each of the batch rows of F is convolved with one G of 2^log2n points. 'dyadic' calls convolve(f, g, out)\n"
      "(three transforms, into a separate output); 'dyadic-system' calls DyadicSystem::apply(f, out) on a\n"
      "system built once from g (two transforms).\n"
      "Example: fastconv bench dyadic --backend reference --log2n 4:16");
  d->callback([dyadic_args, &action] { action = [dyadic_args] { return run_bench(*dyadic_args); }; });

  add_bench_gajic_command(*bench, action);

  add_bench_bikov_command(*bench, action);
}

}  // namespace fastconv::cli
