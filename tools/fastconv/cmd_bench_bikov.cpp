// fastconv bench bikov — the layout of seed 004's Tables 2-3 (Bikov & Bouyukliev 2018): the
// Walsh spectrum of a random Boolean function of n = 7 … 18 variables from its polarity truth
// table (±1, int32), on the seed's sequential Algorithm 0 (the textbook loop), the fast `cpu`
// backend, and every variant of a device backend (`cuda` by default: bikov-a1 … a6 are seed
// 004's Algorithms 1-6; `opencl` has gajic2011 and fast).
//
// What is timed: WhtPlan<int32_t>::execute on one 4096-byte aligned array, restored before
// each call (untimed), after one untimed warm-up; figures are medians in ms. For device
// variants the table gives the call's wall time and, in parentheses, its kernel time from the
// device's events.
#include <omp.h>

#include <cstdio>
#include <random>

#include "paper_tables.hpp"

namespace fastconv::cli {
namespace {

constexpr const char* kBikovDefaultSizes = "7,8,9,10,11,12,13,14,15,16,17,18";

struct BikovArgs {
  std::string log2n = kBikovDefaultSizes;
  int repeats = 10;
  std::string backend = "cuda";
  std::string device;
  bool json = false;
};

void print_json(const Backend& b, int threads, int log2n, const Measurement& m, bool device) {
  std::printf("{\"op\":\"wht\",\"backend\":%s,\"variant\":%s,\"dtype\":\"int32\",\"log2n\":%d,\"batch\":1,\"threads\":%d,"
              "\"median_ms\":%s,\"min_ms\":%s,\"repeats\":%zu",
              json_string(b.name()).c_str(), json_string(b.variant()).c_str(), log2n, threads,
              json_number(m.total_ms).c_str(), json_number(m.min_ms).c_str(), m.repeats);
  if (device)
    std::printf(",\"compute_ms\":%s,\"transfer_ms\":%s,\"launches\":%llu", json_number(m.compute_ms).c_str(),
                json_number(m.transfer_ms).c_str(), static_cast<unsigned long long>(m.launches));
  std::printf(",\"description\":%s}\n", json_string(b.description()).c_str());
}

int run_bikov(const BikovArgs& args) {
  const std::vector<int> sizes = parse_sizes("--log2n", args.log2n, kPaperMinLog2n, kPaperMaxLog2n, kBikovDefaultSizes);
  if (args.backend != "opencl" && args.backend != "cuda")
    usage_error("--backend " + args.backend + ": bench bikov compares a device backend's variants: use cuda or opencl");
  const Backend textbook = Backend::reference(), cpu = Backend::cpu();
  std::vector<Backend> variants;  // every one opened first: no device is exit 1 before any timing
  for (const std::string& v : Backend::variants_of(args.backend))
    variants.push_back(Backend::from_name(args.backend, 0, v, args.device));
  const int units = compute_units(variants.back());

  if (!args.json) {
    std::printf("Device: %s; cpu backend: %s. Walsh spectrum of a random Boolean function of n variables "
                "(polarity truth table, int32), median of %d runs, ms; device variants: total (kernels).\n\n",
                variants.back().description().c_str(), cpu.description().c_str(), args.repeats);
    std::printf("| n | textbook (A0) | cpu |");
    for (const Backend& b : variants) std::printf(" %s |", std::string(b.variant()).c_str());
    std::printf("\n|---:|---:|---:|");
    for (std::size_t i = 0; i < variants.size(); ++i) std::printf("---:|");
    std::printf("\n");
    std::fflush(stdout);
  }

  std::mt19937_64 rng(2018);
  for (const int log2n : sizes) {
    const std::size_t n = std::size_t{1} << log2n;
    std::vector<std::int32_t> ptt(n);
    for (auto& v : ptt) v = (rng() & 1) ? -1 : 1;  // (−1)^f(x)
    const AlignedBuffer<std::int32_t> data(n);
    const auto time = [&](const Backend& b) {
      const WhtPlan<std::int32_t> plan(log2n, {}, b);
      return measure(
          b, args.repeats, [&] { plan.execute(data.span()); },
          [&] { std::copy(ptt.begin(), ptt.end(), data.span().begin()); });
    };
    const Measurement book = time(textbook), c = time(cpu);
    std::vector<Measurement> device;
    for (const Backend& b : variants) {
      try {
        device.push_back(time(b));
      } catch (const Error& e) {
        if (e.code() == ErrorCode::device) throw;
        device.push_back({NAN, NAN, NAN, NAN, 0, 0, 0});  // beyond the variant's limit (bikov-a5/a6: 2^20)
      }
    }
    if (args.json) {
      print_json(textbook, 1, log2n, book, false);
      print_json(cpu, omp_get_max_threads(), log2n, c, false);
      for (std::size_t i = 0; i < variants.size(); ++i)
        if (device[i].repeats > 0) print_json(variants[i], units, log2n, device[i], true);
    } else {
      std::printf("| %d | %s | %s |", log2n, ms_text(book.total_ms).c_str(), ms_text(c.total_ms).c_str());
      for (const Measurement& m : device)
        std::printf(" %s (%s) |", ms_text(m.total_ms).c_str(), ms_text(m.compute_ms).c_str());
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  if (std::ferror(stdout)) throw Error(ErrorCode::io, "<stdout>: write failed");
  return 0;
}

}  // namespace

void add_bench_bikov_command(CLI::App& bench, Action& action) {
  auto args = std::make_shared<BikovArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "bikov", "Seed 004's Tables 2-3: Walsh spectra of Boolean functions on Algorithm 0, cpu and every device variant");
  cmd->add_option("--log2n", args->log2n,
                  "Sizes n (Boolean functions of n variables), a comma-separated list from " + std::to_string(kPaperMinLog2n) +
                      " to " + std::to_string(kPaperMaxLog2n) + " (default: 7 … 18, the seed's)");
  cmd->add_option("--repeats", args->repeats, "Timed calls per backend and size; figures are their median (default: 10)")
      ->check(whole_number_at_least(1));
  cmd->add_option("--backend", args->backend, "Device backend whose variants are timed: cuda (default) or opencl");
  cmd->add_option("--device", args->device, "Device of --backend (see 'fastconv info')");
  cmd->add_flag("--json", args->json, "One JSON object per line (one per backend, variant and size) instead of the table");
  cmd->footer(
      "Times WhtPlan<int32_t>::execute on the polarity truth table (±1) of a random Boolean function (fixed seed),\n"
      "restored before every call, after one untimed warm-up: Backend::reference() (seed 004's Algorithm 0), the cpu\n"
      "backend and every variant of --backend. Device columns: total (kernels), medians in ms. A variant beyond its\n"
      "size limit prints '-'. Needs a device of --backend (exit 1 without one).");
  cmd->callback([args, &action] { action = [args] { return run_bikov(*args); }; });
}

}  // namespace fastconv::cli
