// fastconv bench gajic — the layout of seed 001's Table 2 (Gajić & Stanković 2011): one dyadic
// convolution of two random binary vectors of 2^n float32 values, per n, on the seed's
// reference CPU algorithm (the textbook loop), the fast `cpu` backend, and the OpenCL
// `gajic2011` (seed 001's Algorithm 1) and `fast` variants, the OpenCL ones split, as in the
// seed, into computation (kernels) and memory (transfer) time.
//
// What is timed: fastconv::convolve(f, g, out, backend) into a separate output, the inputs
// kept; f, g and out are 4096-byte aligned (2 MiB aligned with transparent huge pages
// requested from 2 MiB up), so that on a CPU device the opencl backend works in `out` in place
// and its "transfer" is a map and an unmap. Each backend and size gets one untimed warm-up call
// (it compiles the OpenCL kernels), then `--repeats` timed calls; every figure is the median of
// those calls. Total = the call's wall time (std::chrono::steady_clock); compute and transfer =
// the call's kernel and copy time from the device's profiling events (Backend::timings(), reset
// before each call).
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>

#include "common.hpp"

namespace fastconv::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMinLog2n = 1, kMaxLog2n = 30;
constexpr const char* kDefaultSizes = "4,8,10,16,18,20,23,24,25";
constexpr std::uint64_t kSeed = 2011;

struct GajicArgs {
  std::string log2n = kDefaultSizes;
  int repeats = 10;
  std::string device;
  int reference_max_n = 25;
  bool json = false;
};

/// "4,8,10" -> {4, 8, 10}: each an integer in [kMinLog2n, kMaxLog2n].
std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::string_view rest = text;
  for (;;) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int value = 0;
    const char* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || value < kMinLog2n || value > kMaxLog2n)
      usage_error("--log2n " + text + ": '" + std::string(item) + "' is not a size: use a comma-separated list of n (2^n points), " +
                  "integers from " + std::to_string(kMinLog2n) + " to " + std::to_string(kMaxLog2n) + ", e.g. " +
                  kDefaultSizes);
    sizes.push_back(value);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return sizes;
}

/// `count` floats, 4096-byte aligned, or 2 MiB aligned with transparent huge pages requested
/// from 2 MiB up (as bench/bench_common.hpp does for the cpu benchmarks).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t count) : count_(count) {
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    const std::size_t bytes = count * sizeof(float);
    const std::size_t align = bytes >= huge_page ? huge_page : 4096;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    data_.reset(static_cast<float*>(std::aligned_alloc(align, rounded)));
    if (!data_) throw std::bad_alloc();
    if (align == huge_page) madvise(data_.get(), rounded, MADV_HUGEPAGE);
  }
  std::span<float> span() const { return {data_.get(), count_}; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> data_;
  std::size_t count_;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/// One backend at one size: medians over the timed calls.
struct Measurement {
  double total_ms = 0, min_ms = 0;     ///< wall time of a call
  double compute_ms = 0, transfer_ms = 0;  ///< device backends: from the profiling events
  std::uint64_t launches = 0, transfers = 0;  ///< per call (device backends)
  std::size_t repeats = 0;
};

/// Times `repeats` calls of convolve(f, g, out, backend) after one untimed warm-up.
Measurement measure(const Backend& backend, std::span<const float> f, std::span<const float> g, std::span<float> out,
                    int repeats) {
  convolve(f, g, out, backend);  // warm-up: compiles kernels, faults pages in
  std::vector<double> total, compute, transfer;
  Measurement m;
  for (int r = 0; r < repeats; ++r) {
    backend.reset_timings();
    const auto start = Clock::now();
    convolve(f, g, out, backend);
    total.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    const DeviceTimings t = backend.timings();
    compute.push_back(t.compute_ms);
    transfer.push_back(t.transfer_ms);
    m.launches = t.launches;
    m.transfers = t.transfers;
  }
  m.total_ms = median(total);
  m.min_ms = *std::min_element(total.begin(), total.end());
  m.compute_ms = median(compute);
  m.transfer_ms = median(transfer);
  m.repeats = total.size();
  return m;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 6);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

/// A time in ms with about three significant digits, without exponents.
std::string ms_text(double ms) {
  if (!std::isfinite(ms)) return "-";
  char buf[64];
  if (ms >= 100 || ms == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", ms);
  } else {
    const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(ms))), 1, 6);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, ms);
  }
  return buf;
}

/// A backend to time, and what it reports.
struct Column {
  Backend backend;
  int threads;  ///< JSON "threads": 1 (textbook), OpenMP threads (cpu), compute units (opencl)
  bool device;  ///< compute/transfer split available
};

/// The compute units of the OpenCL device `backend` runs on (its description names the device
/// id), or 1 if it cannot be told.
int compute_units(const Backend& backend) {
  const std::string description = backend.description();
  for (const Device& d : devices())
    if (d.backend == "opencl" && description.find("device " + d.id + " of " + d.platform) != std::string::npos)
      return std::max(1, d.compute_units);
  return 1;
}

void print_json(const Column& c, int log2n, const Measurement& m) {
  std::printf("{\"op\":\"dyadic\",\"backend\":%s,\"variant\":%s,\"dtype\":\"float32\",\"log2n\":%d,\"batch\":1,"
              "\"threads\":%d,\"median_ms\":%s,\"min_ms\":%s,\"repeats\":%zu",
              json_string(c.backend.name()).c_str(), json_string(c.backend.variant()).c_str(), log2n, c.threads,
              json_number(m.total_ms).c_str(), json_number(m.min_ms).c_str(), m.repeats);
  if (c.device)
    std::printf(",\"compute_ms\":%s,\"transfer_ms\":%s,\"launches\":%llu,\"transfers\":%llu",
                json_number(m.compute_ms).c_str(), json_number(m.transfer_ms).c_str(),
                static_cast<unsigned long long>(m.launches), static_cast<unsigned long long>(m.transfers));
  std::printf(",\"description\":%s}\n", json_string(c.backend.description()).c_str());
  std::fflush(stdout);
}

int run_gajic(const GajicArgs& args) {
  const std::vector<int> sizes = parse_sizes(args.log2n);
  // Every backend first: no OpenCL device is a device Error (exit 1) before anything is timed.
  const Column textbook{Backend::reference(), 1, false};
  const Column cpu{Backend::cpu(), omp_get_max_threads(), false};
  Column gajic{Backend::opencl("gajic2011", args.device), 1, true};
  Column fast{Backend::opencl("fast", args.device), 1, true};
  gajic.threads = fast.threads = compute_units(fast.backend);

  if (!args.json) {
    std::printf("OpenCL device: %s; cpu backend: %s. Dyadic convolution of two random 0/1 float32 vectors of 2^n "
                "points, median of %d runs, ms.\n\n",
                fast.backend.description().c_str(), cpu.backend.description().c_str(), args.repeats);
    std::printf("| n | textbook (ms) | cpu (ms) | gajic2011 compute | gajic2011 transfer | fast compute | fast transfer "
                "| fast total | gajic2011 total / fast total |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::fflush(stdout);
  }

  std::mt19937_64 rng(kSeed);
  std::bernoulli_distribution bit(0.5);
  for (const int log2n : sizes) {
    const std::size_t n = std::size_t{1} << log2n;
    const AlignedBuffer f(n), g(n), out(n);
    for (float& v : f.span()) v = bit(rng) ? 1.0f : 0.0f;
    for (float& v : g.span()) v = bit(rng) ? 1.0f : 0.0f;
    std::fill(out.span().begin(), out.span().end(), 0.0f);
    const std::span<const float> fs = f.span(), gs = g.span();

    const bool with_textbook = log2n <= args.reference_max_n;
    Measurement book;
    if (with_textbook) book = measure(textbook.backend, fs, gs, out.span(), args.repeats);
    const Measurement c = measure(cpu.backend, fs, gs, out.span(), args.repeats);
    const Measurement gm = measure(gajic.backend, fs, gs, out.span(), args.repeats);
    const Measurement fm = measure(fast.backend, fs, gs, out.span(), args.repeats);

    if (args.json) {
      if (with_textbook) print_json(textbook, log2n, book);
      print_json(cpu, log2n, c);
      print_json(gajic, log2n, gm);
      print_json(fast, log2n, fm);
    } else {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2f×", fm.total_ms > 0 ? gm.total_ms / fm.total_ms : NAN);
      std::printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", log2n,
                  with_textbook ? ms_text(book.total_ms).c_str() : "-", ms_text(c.total_ms).c_str(),
                  ms_text(gm.compute_ms).c_str(), ms_text(gm.transfer_ms).c_str(), ms_text(fm.compute_ms).c_str(),
                  ms_text(fm.transfer_ms).c_str(), ms_text(fm.total_ms).c_str(), ratio);
      std::fflush(stdout);
    }
  }
  if (std::ferror(stdout)) throw Error(ErrorCode::io, "<stdout>: write failed");
  return 0;
}

}  // namespace

void add_bench_gajic_command(CLI::App& bench, Action& action) {
  auto args = std::make_shared<GajicArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "gajic", "Seed 001's Table 2: dyadic convolution on the textbook loop, cpu, and OpenCL gajic2011 and fast");
  cmd->add_option("--log2n", args->log2n,
                  "Sizes n (2^n points), a comma-separated list of integers from " + std::to_string(kMinLog2n) + " to " +
                      std::to_string(kMaxLog2n) + " (default: " + kDefaultSizes + ", the seed's)");
  cmd->add_option("--repeats", args->repeats, "Timed calls per backend and size; figures are their median (default: 10)")
      ->check(whole_number_at_least(1));
  cmd->add_option("--device", args->device,
                  "OpenCL device as PLATFORM:DEVICE (default: the environment variable FASTCONV_OPENCL_DEVICE, else the "
                  "first GPU, else the first device; 'fastconv info' lists them)");
  cmd->add_option("--reference-max-n", args->reference_max_n,
                  "Largest n the textbook loop runs at; above it its column says '-' (default: 25)")
      ->check(whole_number_at_least(0));
  cmd->add_flag("--json", args->json, "One JSON object per line (one per backend and size) instead of the table");
  cmd->footer(
      "Times fastconv::convolve(f, g, out) of two random 0/1 float32 vectors (fixed seed) into a 4096-byte aligned\n"
      "output, after one untimed warm-up call per backend and size: the textbook loop (Backend::reference(), the\n"
      "seed's referent CPU algorithm), the cpu backend, and the opencl backend's gajic2011 (seed 001's Algorithm 1)\n"
      "and fast variants. Every figure is a median in ms. total = wall time of the call; compute and transfer =\n"
      "kernel and copy time from the device's profiling events (on a CPU device the output is used in place:\n"
      "transfer is a map and unmap, plus the copy of g). Needs an OpenCL device (exit 1 without one).\n"
      "JSON keys: op, backend, variant, dtype, log2n, batch, threads (compute units for opencl), median_ms (total),\n"
      "min_ms, repeats, and for opencl compute_ms, transfer_ms, launches, transfers; then description.\n"
      "Plot: fastconv bench gajic --json > gajic.json && python3 bench/gajic_plot.py gajic.json");
  cmd->callback([args, &action] { action = [args] { return run_gajic(*args); }; });
}

}  // namespace fastconv::cli
