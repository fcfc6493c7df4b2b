// The device backends — opencl and cuda, every variant — against the reference backend: every
// operation, type, order and normalisation for all n ≤ 20 (float16 and bfloat16: the WHT), random
// batch shapes, the 128-bit ring paths, the profiling counters and the launch counts. Runs on whatever device there is (PoCL
// on the CPU in CI for opencl; a GPU for cuda); without one the backend's tests are skipped and
// say why. FASTCONV_DEVICE_TEST_MAX_LOG2N lowers the largest size (scripts/gpu_check.sh sets it
// under compute-sanitizer, which makes every access of a kernel many times slower).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "fastconv/fastconv.hpp"

namespace {

using fastconv::Backend;
using fastconv::Normalization;
using fastconv::Order;

/// Why backend `name`'s tests cannot run here, or "" when they can.
std::string why_not(const std::string& name) {
  const auto names = Backend::names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    return "this build has no " + name + " backend" +
           (name == "opencl" ? " (install ocl-icd-opencl-dev and opencl-clhpp-headers, then rebuild)"
                             : " (install the CUDA toolkit so that nvcc is on PATH, then rebuild)");
  for (const auto& d : fastconv::devices())
    if (d.backend == name) return {};
  return name == "opencl" ? "no OpenCL device found (install pocl-opencl-icd for the CPU)"
                          : "no CUDA device: the cuda backend's kernels need an NVIDIA GPU (they compile here, but did not run)";
}

#define SKIP_WITHOUT(name)                                     \
  if (const std::string why = why_not(name); !why.empty()) {   \
    GTEST_SKIP() << why;                                       \
  }

/// The largest log2 size of the tests "up to 20": 20, or FASTCONV_DEVICE_TEST_MAX_LOG2N when lower.
int max_log2n() {
  const char* env = std::getenv("FASTCONV_DEVICE_TEST_MAX_LOG2N");
  return env != nullptr ? std::clamp(std::atoi(env), 0, 20) : 20;
}

Backend make(const std::string& name, const std::string& variant) { return Backend::from_name(name, 0, variant); }

template <class T>
std::vector<T> random_values(std::size_t size, std::mt19937_64& rng, long long bound = 100) {
  std::vector<T> v(size);
  std::uniform_int_distribution<long long> d(-bound, bound);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) x = static_cast<T>(d(rng));
    else x = static_cast<T>(static_cast<double>(d(rng)) / 8);
  }
  return v;
}

/// Exact for integers; for floats within a relative 1e-5 (float) / 1e-12 (double) of the
/// largest magnitude (both results come from the same additions in another order). 16-bit
/// floats, computed in float and rounded once: float's tolerance plus one unit in the last
/// place of the 16-bit result (two float results a hair apart may round to neighbours).
template <class T>
void expect_same(const std::vector<T>& expected, const std::vector<T>& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  if constexpr (std::is_integral_v<T>) {
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(expected[i], actual[i]) << what << " at " << i;
  } else {
    double scale = 1;
    for (T v : expected) scale = std::max(scale, std::abs(double(v)));
    const double tol = (std::is_same_v<T, double> ? 1e-12 : 1e-5) * scale;
    const double ulp16 = std::is_same_v<T, fastconv::float16> ? 0x1p-10 : std::is_same_v<T, fastconv::bfloat16> ? 0x1p-7 : 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(double(expected[i]), double(actual[i]), tol + ulp16 * std::abs(double(expected[i])))
          << what << " at " << i;
  }
}

/// Runs `body` on both backends; both must throw the same kind of Error, or neither.
template <class Body>
void same_outcome(Body&& body, const Backend& b, const std::string& what) {
  std::string ref_error, cl_error;
  decltype(body(b)) ref{}, got{};
  try {
    ref = body(Backend::reference());
  } catch (const fastconv::Error& e) {
    ref_error = std::string(to_string(e.code()));
  }
  try {
    got = body(b);
  } catch (const fastconv::Error& e) {
    cl_error = std::string(to_string(e.code()));
    if (ref_error.empty()) FAIL() << what << ": opencl threw " << e.what();
  }
  ASSERT_EQ(ref_error, cl_error) << what;
  if (ref_error.empty()) expect_same(ref, got, what);
}

struct OpenCl {
  static constexpr const char* name = "opencl";
};
struct Cuda {
  static constexpr const char* name = "cuda";
};
template <class T, class B>
struct Case {
  using Element = T;
  static constexpr const char* backend = B::name;
};

template <class C>
class DeviceTyped : public ::testing::Test {};
using Cases = ::testing::Types<Case<float, OpenCl>, Case<double, OpenCl>, Case<std::int32_t, OpenCl>,
                               Case<std::int64_t, OpenCl>, Case<float, Cuda>, Case<double, Cuda>,
                               Case<std::int32_t, Cuda>, Case<std::int64_t, Cuda>>;
TYPED_TEST_SUITE(DeviceTyped, Cases);

bool has_fp64(const std::string& backend) {
  for (const auto& d : fastconv::devices())
    if (d.backend == backend && d.fp64) return true;
  return false;
}

template <class T>
bool unsupported_here(const std::string& backend) {
  return std::is_same_v<T, double> && !has_fp64(backend);
}

#define DEVICE_CASE()                                                                            \
  using T = typename TypeParam::Element;                                                         \
  const std::string backend = TypeParam::backend;                                                \
  SKIP_WITHOUT(backend);                                                                         \
  if (unsupported_here<T>(backend)) GTEST_SKIP() << "the " << backend << " device has no double precision"

/// Every variant of `backend` against the reference: the WHT of every size up to 2^20 in
/// natural order, the other orders and normalisations rotating over the sizes.
template <class T>
void check_wht_up_to_20(const std::string& backend) {
  std::mt19937_64 rng(1);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    for (int n = 0; n <= max_log2n(); ++n) {
      const std::vector<fastconv::WhtOptions> options = {
          {Order::hadamard, Normalization::none},
          {static_cast<Order>(n % 3), static_cast<Normalization>((n / 3) % 3)}};
      for (const auto& o : options) {
        const auto x = random_values<T>(std::size_t{1} << n, rng);
        const std::string what = variant + " n=" + std::to_string(n) + " " + std::string(to_string(o.order)) + "/" +
                                 std::string(to_string(o.normalization));
        same_outcome(
            [&](const Backend& b) {
              auto y = x;
              fastconv::wht(y, o, b);
              return y;
            },
            cl, what);
      }
    }
  }
}

/// Every variant of `backend` against the reference on random batches with row strides.
template <class T>
void check_random_batches(const std::string& backend) {
  std::mt19937_64 rng(2);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    for (int trial = 0; trial < 12; ++trial) {
      const int n = std::min(static_cast<int>(rng() % 17), max_log2n());
      const std::size_t size = std::size_t{1} << n, rows = 1 + rng() % 9, stride = size + (trial % 2 ? rng() % 7 : 0);
      const fastconv::WhtOptions o{static_cast<Order>(trial % 3), trial % 4 == 0 ? Normalization::orthonormal
                                                                                  : Normalization::none};
      const auto x = random_values<T>((rows - 1) * stride + size, rng);
      same_outcome(
          [&](const Backend& b) {
            auto y = x;
            fastconv::wht(y, rows, size, stride, o, b);
            return y;
          },
          cl, variant + " batch n=" + std::to_string(n) + " rows=" + std::to_string(rows) + " stride=" + std::to_string(stride));
    }
  }
}

/// Every variant of `backend` against the reference: the sequency and Paley orders of every
/// size up to 2^18 (every tile side of the reorder kernel, and many tiles), in batches of
/// three rows; for int64, also operands whose bound needs the 128-bit ring.
template <class T>
void check_orders_in_batches(const std::string& backend) {
  std::mt19937_64 rng(5);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    const auto check = [&](int n, std::size_t rows, Order order, const std::vector<T>& x, const std::string& what) {
      const std::size_t size = std::size_t{1} << n;
      same_outcome(
          [&](const Backend& b) {
            auto y = x;
            fastconv::wht(y, rows, size, size, {order, Normalization::none}, b);
            return y;
          },
          cl, variant + " " + what + " n=" + std::to_string(n) + " " + std::string(to_string(order)));
    };
    for (int n = 0; n <= std::min(18, max_log2n()); ++n)
      for (Order order : {Order::sequency, Order::paley})
        check(n, 3, order, random_values<T>(std::size_t{3} << n, rng), "3 rows");
    if constexpr (std::is_same_v<T, std::int64_t>) {
      // ±2^50: a bound of 2^64 at n = 14, results near 2^59
      std::vector<T> wide(std::size_t{2} << 14);
      for (auto& v : wide) v = (rng() & 1) ? (T{1} << 50) : -(T{1} << 50);
      for (Order order : {Order::sequency, Order::paley}) check(14, 2, order, wide, "128-bit ring, 2 rows");
    }
  }
}

TYPED_TEST(DeviceTyped, WhtOrdersOfEverySizeInBatches) {
  DEVICE_CASE();
  check_orders_in_batches<T>(backend);
}

TYPED_TEST(DeviceTyped, WhtEveryOrderAndNormalisationUpTo20) {
  DEVICE_CASE();
  check_wht_up_to_20<T>(backend);
}

TYPED_TEST(DeviceTyped, RandomBatchShapes) {
  DEVICE_CASE();
  check_random_batches<T>(backend);
}

TYPED_TEST(DeviceTyped, DyadicOperationsUpTo20) {
  DEVICE_CASE();
  std::mt19937_64 rng(3);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    for (int n = 0; n <= max_log2n(); ++n) {
      const std::size_t size = std::size_t{1} << n;
      const auto f = random_values<T>(size, rng, 20);
      const auto g = random_values<T>(std::size_t{1} << (n - (n > 0 ? rng() % (n + 1) : 0)), rng, 20);
      const std::string at = variant + " n=" + std::to_string(n);
      same_outcome([&](const Backend& b) { return fastconv::convolve(f, g, b); }, cl, at + " convolve");
      same_outcome([&](const Backend& b) { return fastconv::autocorrelate(f, b); }, cl, at + " autocorrelate");
      same_outcome(
          [&](const Backend& b) {
            fastconv::DyadicSystem<T> system(g, b);
            return system.apply(f);
          },
          cl, at + " DyadicSystem");
      // Deconvolution: h with a nowhere-zero spectrum (a spike much larger than the rest).
      auto h = random_values<T>(std::size_t{1} << (n / 2), rng, 1);
      h[0] = static_cast<T>(h.size() * 2 + 1);
      const auto y = fastconv::convolve(f, h, Backend::reference());
      same_outcome([&](const Backend& b) { return fastconv::deconvolve(y, h, b); }, cl, at + " deconvolve");
    }
  }
}

TYPED_TEST(DeviceTyped, SingularDeconvolutionIsReported) {
  DEVICE_CASE();
  for (const auto& variant : Backend::variants_of(backend)) {
    const std::vector<T> y = {1, 2, 3, 4}, h = {1, 1, 0, 0};  // W·h = (2, 0, 2, 0)
    try {
      (void)fastconv::deconvolve(y, h, make(backend, variant));
      FAIL() << variant << ": no error";
    } catch (const fastconv::Error& e) {
      EXPECT_EQ(e.code(), fastconv::ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("zero at index 1"), std::string::npos) << e.what();
    }
  }
}

/// `size` elements at `offset` elements past a 4096-byte boundary, in storage of their own.
template <class T>
class Placed {
 public:
  Placed(const std::vector<T>& values, std::size_t offset)
      : storage_(values.size() + offset + 4096 / sizeof(T) + 1), span_(first(offset), values.size()) {
    std::copy(values.begin(), values.end(), span_.begin());
  }
  std::span<T> span() const { return span_; }
  std::vector<T> values() const { return {span_.begin(), span_.end()}; }

 private:
  T* first(std::size_t offset) {
    void* p = storage_.data();
    std::size_t space = storage_.size() * sizeof(T);
    return static_cast<T*>(std::align(4096, sizeof(T), p, space)) + offset;
  }
  std::vector<T> storage_;
  std::span<T> span_;
};

// On a CPU device the opencl backend reads aligned operands and writes an aligned output where
// they are (CL_MEM_USE_HOST_PTR), and folds the copy of the input into its first pass; here
// every operation with aligned and unaligned operands and outputs, apart and in place.
TYPED_TEST(DeviceTyped, DyadicOperationsWhereverTheOperandsLie) {
  DEVICE_CASE();
  std::mt19937_64 rng(4);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    for (const int n : {0, 5, 12, 18}) {
      const auto f = random_values<T>(std::size_t{1} << n, rng, 20);
      const auto g = random_values<T>(std::size_t{1} << (n - n / 3), rng, 20);
      const auto ref = Backend::reference();
      const auto conv = fastconv::convolve(f, g, ref), auto_corr = fastconv::autocorrelate(f, ref);
      for (const auto& [in_offset, out_offset] : {std::pair{0, 0}, {1, 0}, {0, 1}}) {
        const std::string at = variant + " n=" + std::to_string(n) + " input offset " + std::to_string(in_offset) +
                               ", output offset " + std::to_string(out_offset);
        const Placed<T> pf(f, in_offset), pg(g, in_offset);
        const Placed<T> out(std::vector<T>(f.size()), out_offset);
        fastconv::convolve(pf.span(), pg.span(), out.span(), cl);
        expect_same(conv, out.values(), at + " convolve");
        fastconv::autocorrelate(pf.span(), out.span(), cl);
        expect_same(auto_corr, out.values(), at + " autocorrelate");
        const fastconv::DyadicSystem<T> system(pg.span(), cl);
        system.apply(pf.span(), out.span());
        expect_same(conv, out.values(), at + " DyadicSystem::apply");
        const Placed<T> in_place(f, out_offset), in_place_too(f, out_offset);
        system.apply(in_place.span(), in_place.span());
        expect_same(conv, in_place.values(), at + " DyadicSystem::apply in place");
        fastconv::convolve(in_place_too.span(), pg.span(), in_place_too.span(), cl);
        expect_same(conv, in_place_too.values(), at + " convolve in place");
        EXPECT_EQ(f, pf.values()) << at << ": an input changed";
      }
    }
  }
}

/// 16-bit floats (computed in float, rounded once): the WHT only. The cuda backend's `fast`
/// variant runs its native 16-bit kernels here; every other variant converts to float.
template <class C>
class DeviceHalf : public ::testing::Test {};
using HalfCases = ::testing::Types<Case<fastconv::float16, OpenCl>, Case<fastconv::bfloat16, OpenCl>,
                                   Case<fastconv::float16, Cuda>, Case<fastconv::bfloat16, Cuda>>;
TYPED_TEST_SUITE(DeviceHalf, HalfCases);

TYPED_TEST(DeviceHalf, WhtEveryOrderAndNormalisationUpTo20) {
  DEVICE_CASE();
  check_wht_up_to_20<T>(backend);
}

TYPED_TEST(DeviceHalf, RandomBatchShapes) {
  DEVICE_CASE();
  check_random_batches<T>(backend);
}

class DeviceBackend : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Backends, DeviceBackend, ::testing::Values("opencl", "cuda"),
                         [](const auto& info) { return info.param; });

TEST_P(DeviceBackend, WideIntegerRingsAndOverflow) {
  const std::string backend = GetParam();
  SKIP_WITHOUT(backend);
  std::mt19937_64 rng(4);
  for (const auto& variant : Backend::variants_of(backend)) {
    const Backend cl = make(backend, variant);
    // Results beyond 64 bits in the middle: the 128-bit ring on the device.
    const auto f = random_values<std::int64_t>(1024, rng, std::int64_t{1} << 40);
    const auto g = random_values<std::int64_t>(1024, rng, 3);
    same_outcome([&](const Backend& b) { return fastconv::convolve(f, g, b); }, cl, variant + " 128-bit convolve");
    // A WHT whose int64 result needs the wide ring, and one that overflows int64.
    std::vector<std::int64_t> big(16, std::int64_t{1} << 58);
    same_outcome(
        [&](const Backend& b) {
          auto y = big;
          fastconv::wht(y, {}, b);
          return y;
        },
        cl, variant + " int64 WHT overflow");
    big.assign(16, std::int64_t{1} << 57);
    big[3] = -(std::int64_t{1} << 57);
    same_outcome(
        [&](const Backend& b) {
          auto y = big;
          fastconv::wht(y, {Order::sequency, Normalization::inverse}, b);
          return y;
        },
        cl, variant + " int64 WHT in the wide ring");
  }
}

TEST_P(DeviceBackend, TimingsSplitComputeFromTransfers) {
  const std::string backend = GetParam();
  SKIP_WITHOUT(backend);
  const int n = 10;
  const std::vector<float> f(1 << n, 1.0f), g(1 << n, 0.5f);
  const Backend gajic = make(backend, "gajic2011");
  (void)fastconv::convolve(f, g, gajic);
  gajic.reset_timings();
  (void)fastconv::convolve(f, g, gajic);
  const auto t = gajic.timings();
  // Algorithm 1: the FWT of g (n launches), of f (n), the multiply, the inverse FWT (n), the scale.
  EXPECT_EQ(t.launches, static_cast<std::uint64_t>(3 * n + 2));
  EXPECT_GE(t.transfers, 3u);  // g and f to the device, the result back
  EXPECT_GT(t.compute_ms, 0.0);
  EXPECT_GE(t.transfer_ms, 0.0);
  const Backend copy = gajic;  // copies share the counters
  copy.reset_timings();
  EXPECT_EQ(gajic.timings().launches, 0u);
}

TEST_P(DeviceBackend, FastLaunchesPerTransformWithinTheBound) {
  const std::string backend = GetParam();
  SKIP_WITHOUT(backend);
  const Backend fast = make(backend, "fast");
  const Backend gajic = make(backend, "gajic2011");
  for (int n : {1, 8, 12, 16, 20, 22}) {
    std::vector<float> x(std::size_t{1} << n, 1.0f);
    fastconv::WhtPlan<float> plan(n, {}, fast);
    fast.reset_timings();
    plan.execute(x);
    const auto launches = fast.timings().launches;
    EXPECT_GE(launches, 1u);
    EXPECT_LE(launches, 3u) << "n=" << n;  // the planner's bound is checked for every shape in gpu_plan_test
    fastconv::WhtPlan<float> seed(n, {}, gajic);
    gajic.reset_timings();
    seed.execute(x);
    EXPECT_EQ(gajic.timings().launches, static_cast<std::uint64_t>(n)) << "one launch per step";
  }
}

// Backend::device() names the device as from_name() takes it: every device opens as itself.
TEST_P(DeviceBackend, DeviceIdOpensTheSameDevice) {
  const std::string backend = GetParam();
  SKIP_WITHOUT(backend);
  for (const auto& d : fastconv::devices()) {
    if (d.backend != backend) continue;
    const Backend b = Backend::from_name(backend, 0, "", d.id);
    EXPECT_EQ(b.device(), d.id);
    EXPECT_EQ(Backend::from_name(backend, 0, "", b.device()).description(), b.description());
  }
}

TEST(HostBackends, HaveNoDeviceAndTheirThreadsAsGiven) {
  EXPECT_EQ(Backend::cpu().device(), "");
  EXPECT_EQ(Backend::reference().device(), "");
  EXPECT_EQ(Backend::cpu().threads(), 0);
  EXPECT_EQ(Backend::cpu(3).threads(), 3);
  EXPECT_EQ(Backend::from_name("cpu", 2, "portable").threads(), 2);
  EXPECT_EQ(Backend::reference().threads(), 1);
}

TEST_P(DeviceBackend, UnknownVariantAndDeviceAreUsageErrors) {
  const std::string backend = GetParam();
  try {
    (void)make(backend, "radix-3");
    FAIL();
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("gajic2011, "), std::string::npos) << e.what();
  }
  SKIP_WITHOUT(backend);
  try {
    (void)Backend::from_name(backend, 0, "", backend == "cuda" ? "99" : "99:99");
    FAIL();
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
}

}  // namespace
