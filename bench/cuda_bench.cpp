// fastconv_cuda_bench — the cuda backend on arrays in device memory (issue 5): the transform and
// dyadic convolution against the HBM bound, and `fast` against every seed variant, on one GPU.
//
// Everything runs through fastconv's public API on device pointers (WhtPlan::execute_device,
// fastconv::convolve on DeviceArrays, DyadicSystem::apply_device), so no host copy is timed.
//
// The bound. The device-to-device copy rate B is measured first, in the same run (cudaMemcpyAsync
// of 1 GiB, bytes read plus bytes written). A transform of N elements of s bytes in P passes over
// device memory moves at least 2·P·N·s bytes; its bound is that over B. P is the fewest passes
// the transform can take: a pass transforms rows of at most 2^15 elements held in one block, so
// P = ceil(log2 N / 15) (1 up to 2^15, 2 up to 2^30). "GB/s" is 2·N·s over the time (the one-pass
// traffic, as for a copy); "% bound" is the bound's time over the measured time. Dyadic
// convolution moves at least 9·N·s bytes (x and h: three passes each way of x, one of h and the
// fused pass's reads of h's spectrum), DyadicSystem::apply 6·N·s (x's three passes).
//
// Timing: each figure is the median of calls between two cudaEvents on one stream, after two
// untimed calls (bench::median_ms). The transforms are orthonormal (the scale is folded into the last store, so this
// costs nothing), so repeated calls keep the data finite. Arrays smaller than 256 MiB rotate
// through a 256 MiB buffer (over 5× the H100's and H200's L2), so no size is timed from the L2.
// Before timing, every measured configuration's result is checked against the cpu backend on the
// same input: max|diff| over max|ref| above 1e-5 (float, double) or 1e-2 (16-bit) fails the run.
//
//   fastconv_cuda_bench [--max-log2n 28] [--device 0] [--reps 30] [--tables bound,dyadic,variants]
//
// Output: Markdown tables (docs/benchmarks.md). Exit status: 0; 1 without a CUDA device (one line
// on stderr), after a CUDA or fastconv error, or when a check fails; 2 for bad usage.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <fastconv/fastconv.hpp>

#include "cuda_common.hpp"

namespace {

using bench::check;
using bench::median_ms;
using fastconv::Backend;
using Bytes = bench::DeviceArray<std::byte>;

constexpr std::size_t kRotateBytes = std::size_t{256} << 20;

struct Options {
  int max_log2n = 28;
  int reps = 30;
  std::string device = "0";
  std::string tables = "bound,dyadic,variants";
  bool table(std::string_view name) const { return ("," + tables + ",").find("," + std::string(name) + ",") != std::string::npos; }
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "fastconv_cuda_bench: error: %s\nusage: fastconv_cuda_bench [--max-log2n 28] [--device 0] [--reps 30] [--tables bound,dyadic,variants]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) usage(std::string(a) + " needs a value");
    const std::string v = argv[++i];
    try {
      if (a == "--max-log2n") o.max_log2n = std::stoi(v);
      else if (a == "--reps") o.reps = std::stoi(v);
      else if (a == "--device") o.device = v;
      else if (a == "--tables") o.tables = v;
      else usage("unknown option " + std::string(a));
    } catch (const std::logic_error&) {
      usage(std::string(a) + " " + v + ": not a number");
    }
  }
  if (o.max_log2n < 14 || o.max_log2n > 30) usage("--max-log2n must be 14 … 30");
  if (o.reps < 3) usage("--reps must be at least 3");
  return o;
}

/// The T at `byte_offset` in device bytes `a`.
template <class T>
T* at(const Bytes& a, std::size_t byte_offset = 0) {
  return reinterpret_cast<T*>(a.data() + byte_offset);
}

template <class T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, fastconv::float16>) return "float16";
  else return "bfloat16";
}

/// n values uniform in [−1, 1) (splitmix64: quick enough for 2^28 values).
template <class T>
std::vector<T> random_data(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::uint64_t x = seed;
  for (auto& e : v) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    e = T(double(z >> 11) * 0x1p-52 - 1.0);
  }
  return v;
}

/// max|got − want| / max|want|; a NaN fails.
template <class T>
double relative_error(const std::vector<T>& want, const std::vector<T>& got) {
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double w = double(want[i]), g = double(got[i]);
    if (std::isnan(g)) return INFINITY;
    scale = std::max(scale, std::abs(w));
    diff = std::max(diff, std::abs(g - w));
  }
  return diff / std::max(scale, 1e-300);
}

template <class T>
double tolerance() {
  return sizeof(T) == 2 ? 1e-2 : 1e-5;
}

int g_failures = 0;

void report_check(const std::string& what, double err, double tol) {
  if (!(err <= tol)) {
    std::fprintf(stderr, "fastconv_cuda_bench: check failed: %s: relative error %.3g > %.0e\n", what.c_str(), err, tol);
    ++g_failures;
  }
}

int min_passes(int log2n) { return (log2n + 14) / 15; }

struct Context {
  explicit Context(Options o) : opt(std::move(o)) {}
  Options opt;
  bench::Stream stream_owner{"cudaStreamCreateWithFlags"};
  cudaStream_t stream = stream_owner.get();
  double copy_gbs = 0;  ///< measured device-to-device rate, bytes read + written per ns
  Bytes rotate{kRotateBytes};
  int rotation_type = 0;  ///< what the rotation buffer holds (0: nothing yet)
};

/// Where call i's array of `bytes` bytes lies in the rotation buffer.
std::size_t slot(std::size_t bytes, int i) {
  const std::size_t slots = std::max<std::size_t>(1, kRotateBytes / bytes);
  return (std::size_t(i) % slots) * bytes;
}

/// A random input of rows × 2^log2n and the cpu backend's orthonormal transform of it.
template <class T>
struct Reference {
  std::vector<T> input, expected;
  Reference(int log2n, std::size_t rows) : input(random_data<T>(rows << log2n, 1000 + log2n)), expected(input) {
    fastconv::WhtPlan<T>(log2n, {.normalization = fastconv::Normalization::orthonormal}, Backend::cpu())
        .execute(expected, rows, std::size_t{1} << log2n);
  }
};

/// The rotation buffer filled with random values of type T (once per type).
template <class T>
void fill_rotation(Context& c) {
  if (c.rotation_type == sizeof(T) * 16 + std::is_same_v<T, fastconv::bfloat16>) return;
  const auto host = random_data<T>(kRotateBytes / sizeof(T), 7);
  check(cudaMemcpy(c.rotate.data(), host.data(), kRotateBytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  c.rotation_type = sizeof(T) * 16 + std::is_same_v<T, fastconv::bfloat16>;
}

struct Measurement {
  double ms;
  std::uint64_t launches;  ///< kernel launches per call
};

/// Checks the plan on the device against `ref`, then times it on rows × size() elements in device
/// memory: rotated through the rotation buffer when they fit in it, else in place in one array.
template <class T>
Measurement measure(Context& c, const fastconv::WhtPlan<T>& plan, std::size_t rows, const Reference<T>& ref,
                    const std::string& what) {
  const std::size_t n = plan.size() * rows, bytes = n * sizeof(T);
  std::optional<Bytes> own;
  if (bytes > kRotateBytes) own.emplace(bytes);
  else fill_rotation<T>(c);
  T* data = at<T>(own ? *own : c.rotate);
  check(cudaMemcpy(data, ref.input.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  plan.backend().reset_timings();
  plan.execute_device(data, rows, plan.size(), c.stream);
  const std::uint64_t launches = plan.backend().timings().launches;
  std::vector<T> got(n);
  check(cudaMemcpy(got.data(), data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  report_check(what, relative_error(ref.expected, got), tolerance<T>());
  const double ms = median_ms(
      c.stream, c.opt.reps,
      [&](int i) { plan.execute_device(own ? data : at<T>(c.rotate, slot(bytes, i)), rows, plan.size(), c.stream); },
      2);
  return {ms, launches};
}

void measure_copy(Context& c) {
  const std::size_t bytes = std::size_t{1} << 30;
  Bytes a(bytes), b(bytes);
  check(cudaMemset(a.data(), 1, bytes), "cudaMemset");
  const double ms = median_ms(
      c.stream, c.opt.reps,
      [&](int i) {
        check(cudaMemcpyAsync(i % 2 ? a.data() : b.data(), i % 2 ? b.data() : a.data(), bytes,
                              cudaMemcpyDeviceToDevice, c.stream),
              "cudaMemcpyAsync");
      },
      2);
  c.copy_gbs = 2.0 * double(bytes) / (ms * 1e6);
  std::printf("Device-to-device copy of 1 GiB: %.3f ms, %.0f GB/s (bytes read + written): the bound's rate.\n\n", ms,
              c.copy_gbs);
}

/// One row of the bound table.
template <class T>
void bound_row(Context& c, int log2n, std::size_t rows) {
  fastconv::WhtPlan<T> plan(log2n, {.normalization = fastconv::Normalization::orthonormal},
                            Backend::cuda("fast", c.opt.device));
  const Reference<T> ref(log2n, rows);
  const auto m = measure(c, plan, rows, ref, std::string("fast ") + dtype_name<T>() + " 2^" + std::to_string(log2n));
  const double bytes = double(plan.size() * rows * sizeof(T));
  const int passes = min_passes(log2n);
  const double bound_ms = 2.0 * passes * bytes / (c.copy_gbs * 1e6);
  std::printf("| %s | %zu × 2^%d | %.4f | %llu | %d | %.0f | %.0f %% |\n", dtype_name<T>(), rows, log2n, m.ms,
              static_cast<unsigned long long>(m.launches), passes, 2.0 * bytes / (m.ms * 1e6), 100 * bound_ms / m.ms);
  std::fflush(stdout);
}

void bound_table(Context& c) {
  std::printf("### The `fast` variant against the HBM bound\n\n"
              "| dtype | rows × N | median ms | launches | fewest passes | GB/s (one pass) | %% of pass-aware bound |\n"
              "|---|---|---|---|---|---|---|\n");
  for (int k = 10; k <= c.opt.max_log2n; ++k) bound_row<float>(c, k, 1);
  for (int k : {16, 20, 24, 26, 28})
    if (k <= c.opt.max_log2n) bound_row<double>(c, k, 1);
  for (int k : {16, 20, 24, 28})
    if (k <= c.opt.max_log2n) {
      bound_row<fastconv::float16>(c, k, 1);
      bound_row<fastconv::bfloat16>(c, k, 1);
    }
  bound_row<fastconv::float16>(c, 14, 4096);
  bound_row<fastconv::bfloat16>(c, 14, 4096);
  bound_row<float>(c, 14, 4096);
  bound_row<float>(c, 10, 65536);
  std::printf("\n");
}

/// `fast` against every seed variant, float, one vector per call.
void variant_table(Context& c) {
  const auto variants = Backend::variants_of("cuda");
  std::printf("### Every variant, float32, one vector, median ms\n\n| log2 N |");
  for (const auto& v : variants) std::printf(" %s |", v.c_str());
  std::printf(" fastest seed variant ÷ fast |\n|---|");
  for (std::size_t i = 0; i <= variants.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (int k = 14; k <= c.opt.max_log2n; k += (k < 24 ? 2 : 1)) {
    std::printf("| %d |", k);
    const Reference<float> ref(k, 1);
    double fast = NAN, best_seed = INFINITY;
    for (const auto& v : variants) {
      try {
        fastconv::WhtPlan<float> plan(k, {.normalization = fastconv::Normalization::orthonormal},
                                      Backend::cuda(v, c.opt.device));
        const double ms = measure(c, plan, 1, ref, v + " float32 2^" + std::to_string(k)).ms;
        std::printf(" %.4f |", ms);
        if (v == "fast") fast = ms;
        else best_seed = std::min(best_seed, ms);
      } catch (const fastconv::Error& e) {
        if (e.code() == fastconv::ErrorCode::device) throw;
        std::printf(" - |");  // beyond the variant's limit
      }
      std::fflush(stdout);
    }
    std::printf(" %.2f× |\n", best_seed / fast);
  }
  std::printf("\n");
}

/// Dyadic convolution and DyadicSystem::apply on the device against their traffic bounds.
void dyadic_table(Context& c) {
  std::printf("### Dyadic convolution on the device, float32\n\n"
              "| log2 N | operation | median ms | bound ms | time ÷ bound |\n|---|---|---|---|---|\n");
  const Backend b = Backend::cuda("fast", c.opt.device);
  for (int k : {20, 24, 26, 28}) {
    if (k > c.opt.max_log2n) continue;
    const std::size_t n = std::size_t{1} << k, bytes = n * sizeof(float);
    const auto f = random_data<float>(n, 11), g = random_data<float>(n, 12);
    bench::DeviceArray<float> df(n), dg(n), dout(n);
    df.upload(f);
    dg.upload(g);
    const fastconv::DeviceArray<const float> F{df.data(), n}, G{dg.data(), n};
    const fastconv::DeviceArray<float> Out{dout.data(), n};
    fastconv::convolve(F, G, Out, b, c.stream);
    report_check("convolve 2^" + std::to_string(k),
                 relative_error(fastconv::convolve(f, g, Backend::cpu()), dout.download()), 1e-5);
    const double conv_ms =
        median_ms(c.stream, c.opt.reps, [&](int) { fastconv::convolve(F, G, Out, b, c.stream); }, 2);
    const double conv_bound = 9.0 * double(bytes) / (c.copy_gbs * 1e6);
    std::printf("| %d | convolve(f, g) | %.4f | %.4f | %.2f |\n", k, conv_ms, conv_bound, conv_ms / conv_bound);

    const fastconv::DyadicSystem<float> system(std::span<const float>(g), b);
    system.apply_device(F, Out, c.stream);
    report_check("DyadicSystem 2^" + std::to_string(k),
                 relative_error(fastconv::DyadicSystem<float>(std::span<const float>(g), Backend::cpu()).apply(f),
                                dout.download()),
                 1e-5);
    const double sys_ms = median_ms(c.stream, c.opt.reps, [&](int) { system.apply_device(F, Out, c.stream); }, 2);
    const double sys_bound = 6.0 * double(bytes) / (c.copy_gbs * 1e6);
    std::printf("| %d | DyadicSystem::apply | %.4f | %.4f | %.2f |\n", k, sys_ms, sys_bound, sys_ms / sys_bound);
    std::fflush(stdout);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  try {
    Backend::cuda("fast", opt.device);
  } catch (const fastconv::Error& e) {
    if (e.code() == fastconv::ErrorCode::invalid_argument) usage(e.what());  // no such device
    std::fprintf(stderr, "fastconv_cuda_bench: %s\n", e.what());
    return 1;
  }
  try {
    Context c(opt);
    int dev = std::stoi(opt.device), driver = 0, runtime = 0;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    std::printf("GPU: %s (%d SMs, %.1f GiB, L2 %d MiB); CUDA driver %d, runtime %d; %s\n\n", prop.name,
                prop.multiProcessorCount, double(prop.totalGlobalMem) / (1 << 30), prop.l2CacheSize >> 20, driver,
                runtime, Backend::cuda("fast", opt.device).description().c_str());
    measure_copy(c);
    if (opt.table("bound")) bound_table(c);
    if (opt.table("dyadic")) dyadic_table(c);
    if (opt.table("variants")) variant_table(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastconv_cuda_bench: error: %s\n", e.what());
    return 1;
  }
  if (g_failures) {
    std::fprintf(stderr, "fastconv_cuda_bench: %d check(s) failed\n", g_failures);
    return 1;
  }
  return 0;
}
