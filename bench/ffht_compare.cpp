// fastconv against FFHT (FALCONN-LIB/FFHT) and the textbook loop in one Google Benchmark run.
//
// Built and run by bench/compare_ffht.sh, which fetches FFHT's sources at benchmark time
// (never committed) and links them in with -DFASTCONV_HAVE_FFHT; without FFHT the same
// program times fastconv and the textbook loop only. Names say what runs:
//
//   wht/<impl>/<type>/threads:<t>/log2n:<n>       one unnormalised natural-order transform, in place
//   convolve/<impl>/float/threads:1/log2n:<n>      dyadic convolution h ⊛ x, inputs preserved
//   system/<impl>/float/threads:1/log2n:<n>        the same with W·h computed once (DyadicSystem)
//   pass/memory/float/threads:<t>/log2n:<n>        one in-place read+write pass over the array
//                                                  (x ← 2x − x, OpenMP): the memory-bound yardstick
//
// impl: ffht (FFHT's fht_float/fht_double; its convolution = 3 transforms + a multiply loop,
// its system = 2 transforms + a multiply), fastconv (Backend::cpu(t)), textbook
// (Backend::reference(), seed 004's Algorithm 0). Every case gets the same 2 MiB-aligned
// buffers and the same timing loop (bench_common.hpp).
#include "bench_common.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <string>

#ifdef FASTCONV_HAVE_FFHT
extern "C" int fht_float(float* buf, int log_n);
extern "C" int fht_double(double* buf, int log_n);
extern "C" int fht_float_oop(float* in, float* out, int log_n);
#endif

namespace {

using fastconv::Backend;

constexpr std::string_view usage =
    "fastconv options (also as environment variables FASTCONV_BENCH_MIN_LOG2N, ...):\n"
    "  --fastconv_min_log2n=N            smallest transform 2^N (default 10)\n"
    "  --fastconv_max_log2n=N            largest transform 2^N (default 28: 2 GiB of data for double,\n"
    "                                    and as much again for the input kept beside it)\n"
    "  --fastconv_reference_max_log2n=N  largest size for the textbook loop (default 24)\n"
    "  --fastconv_dyadic_log2n=A,B,...   dyadic convolution sizes (default 20,22,25; the textbook\n"
    "                                    convolution runs once at the largest)\n\n";

std::string label(const Backend& b) { return std::string(b.name()) + ":" + std::string(b.variant()); }

std::string name_of(std::string_view op, std::string_view impl, std::string_view type, int threads, int log2n) {
  return std::string(op) + "/" + std::string(impl) + "/" + std::string(type) + "/threads:" + std::to_string(threads) +
         "/log2n:" + std::to_string(log2n);
}

/// `make(log2n)` returns the transform (a callable on std::span<T>); it runs before timing,
/// so a plan's set-up is not counted.
template <class T, class Make>
void add_wht(std::string_view impl, int threads, int log2n, std::string label, Make make) {
  benchmark::RegisterBenchmark(name_of("wht", impl, bench::type_name<T>(), threads, log2n).c_str(),
                               [=](benchmark::State& state) {
                                 const auto transform = make(log2n);
                                 const std::size_t size = std::size_t{1} << log2n;
                                 const auto input = bench::random_buffer<T>(size);
                                 const bench::Buffer<T> data(size);
                                 bench::time_in_place(state, threads, data.span(), input.cspan(),
                                                      [&] { transform(data.span()); });
                                 bench::set_throughput(state, size, sizeof(T));
                                 state.SetLabel(label);
                               })
      ->UseManualTime()
      ->Unit(bench::unit_for(log2n));
}

/// One in-place read+write pass over 2^log2n floats on `threads` threads: what a transform
/// that streams its array through memory k times costs at least k of.
void add_memory_pass(int threads, int log2n) {
  benchmark::RegisterBenchmark(name_of("pass", "memory", "float", threads, log2n).c_str(),
                               [=](benchmark::State& state) {
                                 const std::size_t size = std::size_t{1} << log2n;
                                 const auto input = bench::random_buffer<float>(size);
                                 const bench::Buffer<float> data(size);
                                 bench::time_in_place(state, threads, data.span(), input.cspan(), [&] {
                                   float* x = data.data();
                                   const auto n = static_cast<std::ptrdiff_t>(size);
#pragma omp parallel for num_threads(threads) schedule(static)
                                   for (std::ptrdiff_t i = 0; i < n; ++i) x[i] = 2.0f * x[i] - x[i];
                                 });
                                 bench::set_throughput(state, size, sizeof(float));
                                 state.SetLabel("in-place pass");
                               })
      ->UseManualTime()
      ->Unit(bench::unit_for(log2n));
}

template <class T>
auto fastconv_wht(Backend backend) {
  return [backend](int log2n) {
    return [plan = fastconv::WhtPlan<T>(log2n, {}, backend)](std::span<T> data) { plan.execute(data); };
  };
}

/// `make(log2n, h)` returns y(x, out), which writes h ⊛ x into out; x and h are preserved.
template <class Make>
benchmark::internal::Benchmark* add_dyadic(std::string_view op, std::string_view impl, int log2n, std::string label,
                                           Make make) {
  return benchmark::RegisterBenchmark(name_of(op, impl, "float", 1, log2n).c_str(),
                                      [=](benchmark::State& state) {
                                        const std::size_t size = std::size_t{1} << log2n;
                                        const auto h = bench::random_buffer<float>(size, 1);
                                        const auto x = bench::random_buffer<float>(size, 2);
                                        const bench::Buffer<float> out(size);
                                        const auto apply = make(log2n, h.cspan());
                                        for (auto _ : state) {
                                          apply(x.cspan(), out.span());
                                          benchmark::DoNotOptimize(out.data());
                                          benchmark::ClobberMemory();
                                        }
                                        bench::set_throughput(state, size, sizeof(float));
                                        state.SetLabel(label);
                                      })
      ->UseRealTime()
      ->Unit(bench::unit_for(log2n));
}

auto fastconv_convolve(Backend backend) {
  return [backend](int, std::span<const float> h) {
    return [h, backend](std::span<const float> x, std::span<float> out) { bench::convolve(h, x, out, backend); };
  };
}

auto fastconv_system(Backend backend) {
  return [backend](int, std::span<const float> h) {
    return [system = fastconv::DyadicSystem<float>(h, backend)](std::span<const float> x, std::span<float> out) {
      system.apply(x, out);
    };
  };
}

#ifdef FASTCONV_HAVE_FFHT
template <class T>
auto ffht_wht() {
  return [](int log2n) {
    return [log2n](std::span<T> data) {
      if constexpr (std::is_same_v<T, float>) fht_float(data.data(), log2n);
      else fht_double(data.data(), log2n);
    };
  };
}

// FFHT's out-of-place call copies its input first (fast_copy) and never writes to it.
void ffht_copy_transform(std::span<const float> in, std::span<float> out, int log2n) {
  fht_float_oop(const_cast<float*>(in.data()), out.data(), log2n);
}

/// h ⊛ x = N⁻¹·W((W·h) ⊙ (W·x)) with three FFHT transforms and one multiply loop.
auto ffht_convolve() {
  return [](int log2n, std::span<const float> h) {
    return [h, log2n, scratch = bench::Buffer<float>(h.size())](std::span<const float> x, std::span<float> out) {
      const float scale = std::ldexp(1.0f, -log2n);
      float* const s = scratch.data();
      ffht_copy_transform(h, out, log2n);
      ffht_copy_transform(x, scratch.span(), log2n);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] *= s[i] * scale;
      fht_float(out.data(), log2n);
    };
  };
}

/// The same with N⁻¹·W·h computed once: two transforms and a multiply per call.
auto ffht_system() {
  return [](int log2n, std::span<const float> h) {
    bench::Buffer<float> spectrum(h.size());
    ffht_copy_transform(h, spectrum.span(), log2n);
    for (float& e : spectrum.span()) e = std::ldexp(e, -log2n);
    return [log2n, spectrum = std::move(spectrum)](std::span<const float> x, std::span<float> out) {
      const float* const s = spectrum.data();
      ffht_copy_transform(x, out, log2n);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] *= s[i];
      fht_float(out.data(), log2n);
    };
  };
}

/// FFHT and fastconv must compute the same thing before their times mean anything:
/// compares both transforms (exact: small integers) and convolutions at 2^10.
bool ffht_agrees_with_fastconv() {
  constexpr int log2n = 10;
  const auto a = bench::random_buffer<float>(1 << log2n, 1), b = bench::random_buffer<float>(1 << log2n, 2);
  const auto wide = bench::random_buffer<double>(1 << log2n, 3);
  std::vector<float> ours(a.cspan().begin(), a.cspan().end()), theirs = ours;
  std::vector<double> ours_d(wide.cspan().begin(), wide.cspan().end()), theirs_d = ours_d;
  fastconv::wht(ours, {}, Backend::reference());
  fastconv::wht(ours_d, {}, Backend::reference());
  if (fht_float(theirs.data(), log2n) != 0 || fht_double(theirs_d.data(), log2n) != 0) return false;
  const std::vector<float> conv = fastconv::convolve(a.cspan(), b.cspan(), Backend::reference());
  std::vector<float> conv_ffht(conv.size());
  ffht_convolve()(log2n, a.cspan())(b.cspan(), conv_ffht);
  // The convolutions round differently (sums reach ~10^10): compare within float's error bound.
  bool conv_close = true;
  for (std::size_t i = 0; i < conv.size(); ++i) conv_close = conv_close && std::abs(conv[i] - conv_ffht[i]) <= 0.05f;
  return ours == theirs && ours_d == theirs_d && conv_close;
}
#endif

void register_all(const bench::SizeOptions& o) {
  for (int n = o.min_log2n; n <= o.max_log2n; ++n) {
#ifdef FASTCONV_HAVE_FFHT
    add_wht<float>("ffht", 1, n, "FFHT", ffht_wht<float>());
    add_wht<double>("ffht", 1, n, "FFHT", ffht_wht<double>());
#endif
    const Backend one = Backend::cpu(1), two = Backend::cpu(2), reference = Backend::reference();
    add_wht<float>("fastconv", 1, n, label(one), fastconv_wht<float>(one));
    add_wht<double>("fastconv", 1, n, label(one), fastconv_wht<double>(one));
    add_wht<std::int32_t>("fastconv", 1, n, label(one), fastconv_wht<std::int32_t>(one));
    add_wht<std::int64_t>("fastconv", 1, n, label(one), fastconv_wht<std::int64_t>(one));
    add_wht<float>("fastconv", 2, n, label(two), fastconv_wht<float>(two));
    if (n >= 20) {
      add_memory_pass(1, n);
      add_memory_pass(2, n);
    }
    if (n <= o.reference_max_log2n) {
      add_wht<float>("textbook", 1, n, label(reference), fastconv_wht<float>(reference));
      add_wht<std::int64_t>("textbook", 1, n, label(reference), fastconv_wht<std::int64_t>(reference));
    }
  }
  for (int n : o.dyadic_log2n) {
    const Backend one = Backend::cpu(1);
#ifdef FASTCONV_HAVE_FFHT
    add_dyadic("convolve", "ffht", n, "FFHT: 3 transforms + multiply", ffht_convolve());
    add_dyadic("system", "ffht", n, "FFHT: 2 transforms + multiply", ffht_system());
#endif
    add_dyadic("convolve", "fastconv", n, label(one) + ", " + std::string(bench::convolve_label<float>()),
               fastconv_convolve(one));
    add_dyadic("system", "fastconv", n, label(one), fastconv_system(one));
  }
  if (!o.dyadic_log2n.empty()) {
    // The textbook convolution takes seconds at n = 25: one call is enough for a ratio.
    const Backend reference = Backend::reference();
    add_dyadic("convolve", "textbook", std::ranges::max(o.dyadic_log2n), label(reference),
               fastconv_convolve(reference))
        ->Iterations(1)
        ->Repetitions(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto sizes = bench::parse_size_options(
      argc, argv, {.min_log2n = 10, .max_log2n = 28, .reference_max_log2n = 24, .dyadic_log2n = {20, 22, 25}}, usage);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#ifdef FASTCONV_HAVE_FFHT
  if (!ffht_agrees_with_fastconv()) {
    std::fputs("error: FFHT's results differ from fastconv's reference backend at 2^10\n", stderr);
    return 1;
  }
  benchmark::AddCustomContext("ffht", "linked");
#else
  benchmark::AddCustomContext("ffht", "not available");
#endif
  benchmark::AddCustomContext("fastconv_cpu", Backend::cpu(1).description());
  register_all(sizes);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
