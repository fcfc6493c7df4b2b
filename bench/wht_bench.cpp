// Google Benchmark: the cpu backend (one thread) side by side with the reference backend
// (seed 004's Algorithm 0, the textbook loop) in one run; backend:0 is the reference,
// backend:1 the cpu backend. docs/benchmarks.md records the medians and their ratios.
#include <benchmark/benchmark.h>

#include <fastconv/fastconv.hpp>

#include <random>
#include <vector>

namespace {

template <class T>
std::vector<T> random_data(std::size_t n) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> d(-100, 100);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(d(rng));
  return v;
}

fastconv::Backend backend_of(int index) {
  return index == 0 ? fastconv::Backend::reference() : fastconv::Backend::cpu(1);
}

template <class T>
void BM_wht(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const fastconv::Backend backend = backend_of(static_cast<int>(state.range(1)));
  auto x = random_data<T>(std::size_t{1} << n);
  const fastconv::WhtPlan<T> plan(n, {}, backend);
  for (auto _ : state) {
    plan.execute(x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
    if constexpr (std::is_integral_v<T>) std::fill(x.begin(), x.end(), T{1});  // keep values small
  }
  state.SetLabel(std::string(backend.name()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(x.size() * sizeof(T)));
}

template <class T>
void BM_convolve(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const fastconv::Backend backend = backend_of(static_cast<int>(state.range(1)));
  const auto f = random_data<T>(std::size_t{1} << n), g = random_data<T>(std::size_t{1} << n);
  for (auto _ : state) benchmark::DoNotOptimize(fastconv::convolve(f, g, backend));
  state.SetLabel(std::string(backend.name()));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int n : {10, 16, 20, 24})
    for (int backend : {0, 1}) b->Args({n, backend});
  b->ArgNames({"log2n", "backend"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_wht<float>)->Apply(sizes);
BENCHMARK(BM_wht<double>)->Apply(sizes);
BENCHMARK(BM_wht<std::int32_t>)->Apply(sizes);
BENCHMARK(BM_wht<std::int64_t>)->Apply(sizes);
BENCHMARK(BM_convolve<float>)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
