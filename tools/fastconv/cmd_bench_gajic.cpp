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

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>

#include "paper_tables.hpp"

namespace fastconv::cli {
namespace {

constexpr const char* kGajicDefaultSizes = "4,8,10,16,18,20,23,24,25";
constexpr std::uint64_t kSeed = 2011;

struct GajicArgs {
  std::string log2n = kGajicDefaultSizes;
  int repeats = 10;
  std::string device;
  std::string backend = "opencl";  ///< the device backend of the gajic2011 and fast columns
  int reference_max_n = 25;
  bool json = false;
};

/// A backend to time, and what it reports.
struct Column {
  Backend backend;
  int threads;  ///< JSON "threads": 1 (textbook), OpenMP threads (cpu), compute units (opencl)
  bool device;  ///< compute/transfer split available
};

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
  const std::vector<int> sizes = parse_sizes("--log2n", args.log2n, kPaperMinLog2n, kPaperMaxLog2n, kGajicDefaultSizes);
  // Every backend first: no OpenCL device is a device Error (exit 1) before anything is timed.
  const Column textbook{Backend::reference(), 1, false};
  const Column cpu{Backend::cpu(), omp_get_max_threads(), false};
  if (args.backend != "opencl" && args.backend != "cuda")
    usage_error("--backend " + args.backend + ": bench gajic compares a device backend's variants: use opencl or cuda");
  Column gajic{Backend::from_name(args.backend, 0, "gajic2011", args.device), 1, true};
  Column fast{Backend::from_name(args.backend, 0, "fast", args.device), 1, true};
  gajic.threads = fast.threads = compute_units(fast.backend);

  if (!args.json) {
    std::printf("%s device: %s; cpu backend: %s. Dyadic convolution of two random 0/1 float32 vectors of 2^n "
                "points, median of %d runs, ms.\n\n",
                args.backend == "cuda" ? "CUDA" : "OpenCL", fast.backend.description().c_str(),
                cpu.backend.description().c_str(), args.repeats);
    std::printf("| n | textbook (ms) | cpu (ms) | gajic2011 compute | gajic2011 transfer | fast compute | fast transfer "
                "| fast total | gajic2011 total / fast total |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::fflush(stdout);
  }

  std::mt19937_64 rng(kSeed);
  std::bernoulli_distribution bit(0.5);
  for (const int log2n : sizes) {
    const std::size_t n = std::size_t{1} << log2n;
    const AlignedBuffer<float> f(n), g(n), out(n);
    for (float& v : f.span()) v = bit(rng) ? 1.0f : 0.0f;
    for (float& v : g.span()) v = bit(rng) ? 1.0f : 0.0f;
    std::fill(out.span().begin(), out.span().end(), 0.0f);
    const std::span<const float> fs = f.span(), gs = g.span();

    const bool with_textbook = log2n <= args.reference_max_n;
    Measurement book;
    const auto time = [&](const Backend& b) {
      return measure(b, args.repeats, [&] { convolve(fs, gs, out.span(), b); });
    };
    if (with_textbook) book = time(textbook.backend);
    const Measurement c = time(cpu.backend);
    const Measurement gm = time(gajic.backend);
    const Measurement fm = time(fast.backend);

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
                  "Sizes n (2^n points), a comma-separated list of integers from " + std::to_string(kPaperMinLog2n) + " to " +
                      std::to_string(kPaperMaxLog2n) + " (default: " + kGajicDefaultSizes + ", the seed's)");
  cmd->add_option("--repeats", args->repeats, "Timed calls per backend and size; figures are their median (default: 10)")
      ->check(whole_number_at_least(1));
  cmd->add_option("--backend", args->backend,
                  "Device backend whose gajic2011 and fast variants are timed: opencl (default) or cuda");
  cmd->add_option("--device", args->device,
                  "Device: PLATFORM:DEVICE for opencl (default: FASTCONV_OPENCL_DEVICE, else the first GPU, else the first "
                  "device), N for cuda (default: FASTCONV_CUDA_DEVICE, else 0); 'fastconv info' lists them");
  cmd->add_option("--reference-max-n", args->reference_max_n,
                  "Largest n the textbook loop runs at; above it its column says '-' (default: 25)")
      ->check(whole_number_at_least(0));
  cmd->add_flag("--json", args->json, "One JSON object per line (one per backend and size) instead of the table");
  cmd->footer(
      "Times fastconv::convolve(f, g, out) of two random 0/1 float32 vectors (fixed seed), all three 4096-byte\n"
      "aligned, after one untimed warm-up call per backend and size: the textbook loop (Backend::reference(), the\n"
      "seed's referent CPU algorithm), the cpu backend, and the opencl backend's gajic2011 (seed 001's Algorithm 1)\n"
      "and fast variants. Every figure is a median in ms. total = wall time of the call; compute and transfer =\n"
      "kernel and copy time from the device's profiling events (on a CPU device the output is used in place and\n"
      "transfer is a map and unmap, plus for gajic2011 the copy of g; fast reads f and g where they lie).\n"
      "Needs a device of --backend (exit 1 without one).\n"
      "JSON keys: op, backend, variant, dtype, log2n, batch, threads (compute units for opencl), median_ms (total),\n"
      "min_ms, repeats, and for opencl compute_ms, transfer_ms, launches, transfers; then description.\n"
      "Plot: fastconv bench gajic --json > gajic.json && python3 bench/gajic_plot.py gajic.json");
  cmd->callback([args, &action] { action = [args] { return run_gajic(*args); }; });
}

}  // namespace fastconv::cli
