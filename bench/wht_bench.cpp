// Google Benchmark: the cpu backend on 1 and 2 threads (--fastconv_threads) side by side with the
// reference backend (seed 004's Algorithm 0, the textbook loop) in one run, for every element
// type, single transforms and batches (float16 and bfloat16 too), dyadic convolution and
// DyadicSystem (float, double, int32, int64). Names say what runs:
//
//   wht/<type>/<backend>/threads:<t>/log2n:<n>                 one in-place transform
//   wht/float/cpu/threads:1/log2n:<n>/order:<order>            the same, sequency or Paley order
//   wht_batch/<type>/<backend>/threads:<t>/rows:<r>/log2n:<n>  r contiguous rows of 2^n
//   wht_batch/.../log2n:<n>/order:<order>                      the same, sequency or Paley order
//   convolve/<type>/<backend>/threads:<t>/log2n:<n>            fastconv::convolve, inputs kept
//   dyadic_system/<type>/<backend>/threads:<t>/log2n:<n>       DyadicSystem::apply (cached W·h)
//   wht_memory/float/cpu/threads:1/log2n:<n>/memory:<m>        one in-place transform of a
//                                                              std::vector or a fastconv::AlignedVector
//
// so `--benchmark_filter=wht/float/cpu` picks a series. Sizes are gated: see `--help` and
// docs/benchmarks.md. Each case reports items (elements) and bytes processed per second.
#include "bench_common.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using fastconv::Backend;

constexpr std::string_view usage =
    "fastconv options (also as environment variables FASTCONV_BENCH_MIN_LOG2N, ...):\n"
    "  --fastconv_min_log2n=N            smallest size 2^N (default 4)\n"
    "  --fastconv_max_log2n=N            largest size 2^N (default 24; the full range is 28, ~4 GiB\n"
    "                                    for double/int64: the input is kept beside the data)\n"
    "  --fastconv_reference_max_log2n=N  largest size for the reference backend (default 20)\n"
    "  --fastconv_threads=A,B,...        the cpu backend's thread counts (default 1,2)\n\n";

std::string tag(const Backend& b, int threads) {
  return std::string(b.name()) + "/threads:" + std::to_string(threads);
}

std::string label(const Backend& b) { return std::string(b.name()) + ":" + std::string(b.variant()); }

/// One in-place transform (rows == 1) or a batch of `rows` contiguous rows of 2^log2n.
template <class T>
void add_wht(int log2n, std::size_t rows, const Backend& backend, int threads,
             fastconv::Order order = fastconv::Order::hadamard) {
  std::string name = (rows == 1 ? "wht/" : "wht_batch/") + std::string(bench::type_name<T>()) + "/" +
                     tag(backend, threads);
  if (rows > 1) name += "/rows:" + std::to_string(rows);
  name += "/log2n:" + std::to_string(log2n);
  if (order != fastconv::Order::hadamard) name += "/order:" + std::string(fastconv::to_string(order));
  const int total_log2n = log2n + std::countr_zero(rows);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const fastconv::WhtPlan<T> plan(log2n, {order}, backend);
    const std::size_t size = plan.size() * rows;
    const auto input = bench::random_buffer<T>(size);
    const bench::Buffer<T> data(size);
    if (rows == 1)
      bench::time_in_place(state, threads, data.span(), input.cspan(), [&] { plan.execute(data.span()); });
    else
      bench::time_in_place(state, threads, data.span(), input.cspan(), [&] { plan.execute(data.span(), rows, plan.size()); });
    bench::set_throughput(state, size, sizeof(T));
    state.SetLabel(label(backend));
  })->UseManualTime()->Unit(bench::unit_for(total_log2n));
}

template <class T>
void add_wht_sizes(const bench::SizeOptions& o) {
  for (int n = o.min_log2n; n <= o.max_log2n; ++n) {
    for (int threads : o.threads) add_wht<T>(n, 1, Backend::cpu(threads), threads);
    if constexpr (std::is_same_v<T, float>)
      for (fastconv::Order order : {fastconv::Order::sequency, fastconv::Order::paley})
        add_wht<T>(n, 1, Backend::cpu(1), 1, order);
    if (n <= o.reference_max_log2n) add_wht<T>(n, 1, Backend::reference(), 1);
  }
}

template <class T>
void add_batches(const bench::SizeOptions& o) {
  struct Shape {
    std::size_t rows;
    int log2n;
  };
  // Issue 3's shapes (2^22 words, but 16 × 2^20 = 2^24), short rows (2^2 … 2^8: Hadamard
  // rotations, S-box columns, …) of 2^22 words, each to compare with one transform of its total
  // size, and 64 × 2^10 (2^16 words), small enough for --quick runs. A shape beyond
  // --fastconv_max_log2n in total is left out.
  for (const Shape s : {Shape{4096, 10}, Shape{256, 14}, Shape{16, 20}, Shape{64, 10}, Shape{1 << 20, 2},
                        Shape{1 << 18, 4}, Shape{1 << 16, 6}, Shape{1 << 15, 7}, Shape{1 << 14, 8}}) {
    if (s.log2n + std::countr_zero(s.rows) > o.max_log2n || s.log2n < o.min_log2n) continue;
    for (int threads : o.threads) add_wht<T>(s.log2n, s.rows, Backend::cpu(threads), threads);
    if (std::is_same_v<T, float> && s.log2n <= 8)
      for (fastconv::Order order : {fastconv::Order::sequency, fastconv::Order::paley})
        add_wht<T>(s.log2n, s.rows, Backend::cpu(1), 1, order);
  }
}

/// One in-place transform of the data of a std::vector<float> (where malloc puts it: from
/// 128 KiB on 16 bytes past a cache line) or of a fastconv::AlignedVector<float>, side by side.
/// The label gives the data's offset from a 64-byte line.
template <class Vector>
void add_wht_memory(int log2n, const char* memory) {
  const std::string name = "wht_memory/float/cpu/threads:1/log2n:" + std::to_string(log2n) + "/memory:" + memory;
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const fastconv::WhtPlan<float> plan(log2n, {}, Backend::cpu(1));
    const auto input = bench::random_buffer<float>(plan.size());
    Vector data(plan.size());
    bench::time_in_place(state, 1, std::span<float>(data), input.cspan(), [&] { plan.execute(std::span<float>(data)); });
    bench::set_throughput(state, plan.size(), sizeof(float));
    state.SetLabel("offset " + std::to_string(reinterpret_cast<std::uintptr_t>(data.data()) % 64) + " B");
  })->UseManualTime()->Unit(bench::unit_for(log2n));
}

void add_memory(const bench::SizeOptions& o) {
  for (int n = std::max(o.min_log2n, 10); n <= o.max_log2n; ++n) {
    add_wht_memory<std::vector<float>>(n, "std::vector");
    add_wht_memory<fastconv::AlignedVector<float>>(n, "AlignedVector");
  }
}

/// fastconv::convolve(f, g) with f and g preserved.
template <class T>
void add_convolve(int log2n, const Backend& backend, int threads) {
  const std::string name = "convolve/" + std::string(bench::type_name<T>()) + "/" + tag(backend, threads) +
                           "/log2n:" + std::to_string(log2n);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const std::size_t size = std::size_t{1} << log2n;
    const auto f = bench::random_buffer<T>(size, 1), g = bench::random_buffer<T>(size, 2);
    const bench::Buffer<T> out(size);
    for (auto _ : state) benchmark::DoNotOptimize(bench::convolve(f.cspan(), g.cspan(), out.span(), backend));
    bench::set_throughput(state, size, sizeof(T));
    state.SetLabel(label(backend) + ", " + std::string(bench::convolve_label<T>()));
  })->UseRealTime()->Unit(bench::unit_for(log2n));
}

/// DyadicSystem<T>::apply into a separate output: two transforms, the spectrum cached.
template <class T>
void add_dyadic_system(int log2n, const Backend& backend, int threads) {
  const std::string name = "dyadic_system/" + std::string(bench::type_name<T>()) + "/" + tag(backend, threads) +
                           "/log2n:" + std::to_string(log2n);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const std::size_t size = std::size_t{1} << log2n;
    const auto h = bench::random_buffer<T>(size, 1), x = bench::random_buffer<T>(size, 2);
    const bench::Buffer<T> out(size);
    const fastconv::DyadicSystem<T> system(h.cspan(), backend);
    for (auto _ : state) {
      system.apply(x.cspan(), out.span());
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    bench::set_throughput(state, size, sizeof(T));
    state.SetLabel(label(backend));
  })->UseRealTime()->Unit(bench::unit_for(log2n));
}

template <class T>
void add_dyadic(const bench::SizeOptions& o) {
  for (int n = std::max(o.min_log2n, 10); n <= std::min(o.max_log2n, 25); ++n) {
    for (int threads : o.threads) {
      add_convolve<T>(n, Backend::cpu(threads), threads);
      add_dyadic_system<T>(n, Backend::cpu(threads), threads);
    }
    if (n <= o.reference_max_log2n) {
      add_convolve<T>(n, Backend::reference(), 1);
      add_dyadic_system<T>(n, Backend::reference(), 1);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto sizes = bench::parse_size_options(argc, argv, {.min_log2n = 4, .max_log2n = 24, .reference_max_log2n = 20, .dyadic_log2n = {}}, usage);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_wht_sizes<float>(sizes);
  add_wht_sizes<double>(sizes);
  add_wht_sizes<std::int32_t>(sizes);
  add_wht_sizes<std::int64_t>(sizes);
  add_wht_sizes<fastconv::float16>(sizes);
  add_wht_sizes<fastconv::bfloat16>(sizes);
  add_batches<float>(sizes);
  add_batches<double>(sizes);
  add_batches<std::int32_t>(sizes);
  add_batches<std::int64_t>(sizes);
  add_batches<fastconv::float16>(sizes);
  add_batches<fastconv::bfloat16>(sizes);
  add_dyadic<float>(sizes);
  add_dyadic<double>(sizes);
  add_dyadic<std::int32_t>(sizes);
  add_dyadic<std::int64_t>(sizes);
  add_memory(sizes);
  benchmark::AddCustomContext("fastconv_cpu", Backend::cpu(1).description());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
