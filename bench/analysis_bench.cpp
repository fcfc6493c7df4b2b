// fastconv_analysis_bench — the Boolean-function and S-box analyses (issue 6's targets) beside
// the algorithms of sboxU's C++ core (bench/sbox_baselines.hpp), in one Google Benchmark run.
//
//   sbox_table/<table>/<impl>/n:<n>   LAT, DDT, BCT of a random n-bit permutation, AES's LAT;
//                                     <impl> is fastconv or sboxu_algorithm
//   sbox_summary/fastconv/n:<n>       SBox::summary() of a random n-bit permutation (n = 16 with
//                                     --fastconv_sbox_summary=16); reports peak_rss_mib
//   boolean_walsh_nl/fastconv/n:<n>   the Walsh spectrum and nonlinearity of a random function
//                                     of n variables (--fastconv_boolean_max_n=32 for n = 32:
//                                     16.5 GiB); reports peak_rss_mib
//
// Before timing, every baseline is checked against fastconv on the same S-box (the run stops
// if they differ), so the two columns compute the same tables.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <string_view>

#include <fastconv/fastconv.hpp>

#include "bench_common.hpp"
#include "sbox_baselines.hpp"

namespace {

std::vector<std::uint32_t> random_permutation(int n, unsigned seed) {
  std::vector<std::uint32_t> lut(std::size_t{1} << n);
  std::iota(lut.begin(), lut.end(), 0u);
  std::shuffle(lut.begin(), lut.end(), std::mt19937(seed));
  return lut;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;  // ru_maxrss is in KiB on Linux
}

template <class T>
bool same_table(const fastconv::Table<T>& ours, const bench::baseline::Rows& theirs) {
  for (std::size_t a = 0; a < ours.rows; ++a)
    for (std::size_t b = 0; b < ours.cols; ++b)
      if (ours(a, b) != theirs[a][b]) return false;
  return true;
}

/// Stops the run if a baseline and fastconv disagree anywhere on `s`.
void check_baselines(const std::vector<std::uint32_t>& lut, const char* name) {
  const fastconv::SBox s(lut);
  const bool ok = same_table(s.lat(), bench::baseline::lat(lut, s.output_bits())) &&
                  same_table(s.ddt(), bench::baseline::ddt(lut, s.output_bits())) &&
                  same_table(s.bct(), bench::baseline::bct(lut));
  if (!ok) {
    std::fprintf(stderr, "error: the sboxU-algorithm baselines and fastconv disagree on %s\n", name);
    std::exit(1);
  }
}

enum class Table { lat, ddt, bct };

void table_case(benchmark::State& state, Table table, bool ours, std::vector<std::uint32_t> lut) {
  const fastconv::SBox s(lut);
  const int m = s.output_bits();
  for (auto _ : state) {
    switch (table) {
      case Table::lat:
        if (ours) benchmark::DoNotOptimize(s.lat());
        else benchmark::DoNotOptimize(bench::baseline::lat(lut, m));
        break;
      case Table::ddt:
        if (ours) benchmark::DoNotOptimize(s.ddt());
        else benchmark::DoNotOptimize(bench::baseline::ddt(lut, m));
        break;
      case Table::bct:
        if (ours) benchmark::DoNotOptimize(s.bct());
        else benchmark::DoNotOptimize(bench::baseline::bct(lut));
        break;
    }
  }
  state.counters["entries"] = static_cast<double>(lut.size()) * static_cast<double>(std::size_t{1} << m);
}

void summary_case(benchmark::State& state, int n) {
  const fastconv::SBox s(random_permutation(n, 16));
  for (auto _ : state) benchmark::DoNotOptimize(s.summary());
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

void boolean_case(benchmark::State& state, int n) {
  std::vector<std::uint64_t> words(n < 6 ? 1 : std::size_t{1} << (n - 6));
  std::mt19937_64 random(32);
  for (auto& w : words) w = random();
  if (n < 6) words[0] &= (std::uint64_t{1} << (1 << n)) - 1;
  const auto f = fastconv::BooleanFunction::from_words(words, n);
  words = {};
  for (auto _ : state) benchmark::DoNotOptimize(f.nonlinearity());
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

}  // namespace

int main(int argc, char** argv) {
  const auto sizes = bench::parse_size_options(
      argc, argv, {.min_log2n = 8, .max_log2n = 12, .reference_max_log2n = 12, .dyadic_log2n = {}},
      "fastconv_analysis_bench [--fastconv_min_log2n=8] [--fastconv_max_log2n=12] (random permutations for the tables)");
  int summary_n = 12, boolean_max_n = 28;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--fastconv_sbox_summary=")) summary_n = bench::parse_int(arg.substr(24), "--fastconv_sbox_summary");
    else if (arg.starts_with("--fastconv_boolean_max_n=")) boolean_max_n = bench::parse_int(arg.substr(25), "--fastconv_boolean_max_n");
    else continue;
    std::copy(argv + i + 1, argv + argc, argv + i);
    --argc;
    --i;
  }
  check_baselines(random_permutation(8, 8), "a random 8-bit permutation");
  const fastconv::SBox aes_sbox = *fastconv::named_sbox("aes");
  const std::vector<std::uint32_t> aes(aes_sbox.lut().begin(), aes_sbox.lut().end());
  check_baselines(aes, "AES");

  for (const bool ours : {true, false}) {
    const std::string impl = ours ? "fastconv" : "sboxu_algorithm";
    benchmark::RegisterBenchmark(("sbox_table/lat/" + impl + "/aes").c_str(), table_case, Table::lat, ours, aes)
        ->Unit(benchmark::kMicrosecond);
    for (int n = sizes.min_log2n; n <= sizes.max_log2n; n += 2)
      for (const auto& [table, name] : {std::pair{Table::lat, "lat"}, {Table::ddt, "ddt"}, {Table::bct, "bct"}})
        benchmark::RegisterBenchmark(("sbox_table/" + std::string(name) + "/" + impl + "/n:" + std::to_string(n)).c_str(),
                                     table_case, table, ours, random_permutation(n, static_cast<unsigned>(n)))
            ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark(("sbox_summary/fastconv/n:" + std::to_string(summary_n)).c_str(), summary_case, summary_n)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  for (int n = 20; n <= boolean_max_n; n += 4)
    benchmark::RegisterBenchmark(("boolean_walsh_nl/fastconv/n:" + std::to_string(n)).c_str(), boolean_case, n)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(n >= 28 ? 1 : 5);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
