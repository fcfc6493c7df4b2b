// Dyadic convolution, correlation, autocorrelation, deconvolution and DyadicSystem: every
// type × backend against the O(N²) definition C(τ) = Σₓ f(x)·g(x ⊕ τ) (tests/oracle.hpp),
// zero padding of unequal lengths, seed 001's Example 3, the convolution theorem as an
// identity, the float error bound, and exact integer results with overflow reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "fastconv/fastconv.hpp"
#include "oracle.hpp"

using fastconv::Accumulation;
using fastconv::Backend;
using fastconv::DyadicOptions;
using fastconv::DyadicSystem;
using fastconv::ErrorCode;

namespace {

using oracle::i128;

std::vector<Backend> backends() { return {Backend::reference(), Backend::cpu(), Backend::cpu(1)}; }

template <class T>
class DyadicTyped : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(DyadicTyped, ElementTypes);

template <class T>
class DyadicDeconvolve : public ::testing::Test {};
TYPED_TEST_SUITE(DyadicDeconvolve, ElementTypes);

template <class T>
class DyadicSystemTyped : public ::testing::Test {};
TYPED_TEST_SUITE(DyadicSystemTyped, ElementTypes);

/// `call` throws a fastconv::Error with `code` whose message contains every one of `needles`.
void expect_error(const std::function<void()>& call, ErrorCode code, std::initializer_list<std::string> needles,
                  const std::string& context = {}) {
  try {
    call();
    ADD_FAILURE() << "expected a fastconv::Error (" << to_string(code) << ") " << context;
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what() << " " << context;
    for (const auto& needle : needles)
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << "message lacks \"" << needle << "\": " << e.what() << " " << context;
  }
}

/// Exact for integers; for floats |got − want| ≤ (3n+2)·u·‖f‖₂·‖g‖₂ with n = log2 of the length.
template <class T>
void expect_matches(const std::vector<T>& got, const std::vector<oracle::Acc<T>>& want, long double norm_product,
                    const std::string& context) {
  ASSERT_EQ(got.size(), want.size()) << context;
  const int n = std::countr_zero(want.size());
  const long double tol = (3 * n + 2) * oracle::unit_roundoff<T>() * norm_product;
  for (std::size_t t = 0; t < got.size(); ++t) {
    if constexpr (std::is_integral_v<T>) {
      ASSERT_TRUE(static_cast<i128>(got[t]) == want[t])
          << context << " t=" << t << " got " << got[t] << " want " << static_cast<long double>(want[t]);
    } else {
      ASSERT_LE(std::fabs(static_cast<long double>(got[t]) - want[t]), tol)
          << context << " t=" << t << " got " << got[t] << " want " << static_cast<double>(want[t]);
    }
  }
}

template <class T>
std::vector<T> pad(const std::vector<T>& v, std::size_t size) {
  auto p = v;
  p.resize(size, T{0});
  return p;
}

/// The unnormalised natural-order Walsh spectrum of v, from the O(N²) definition.
template <class T>
std::vector<oracle::Acc<T>> spectrum_of(const std::vector<T>& v) {
  return oracle::transform(oracle::walsh_matrix(std::countr_zero(v.size()), fastconv::Order::hadamard), v);
}

// ---------------------------------------------------------------------------------------------
// 1. Every n in 0..10, every type and backend, against the definition.

TYPED_TEST(DyadicTyped, ConvolveMatchesDefinition) {
  using T = TypeParam;
  std::mt19937_64 rng(101);
  for (int n = 0; n <= 10; ++n)
    for (const Backend& b : backends()) {
      const auto f = oracle::random_vector<T>(std::size_t{1} << n, rng);
      const auto g = oracle::random_vector<T>(std::size_t{1} << n, rng);
      const auto want = oracle::dyadic_convolution(f, g);
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      expect_matches(fastconv::convolve(f, g, b), want, oracle::l2(f) * oracle::l2(g), "convolve " + ctx);
    }
}

TYPED_TEST(DyadicTyped, CorrelateIsConvolveAndMatchesDefinition) {
  using T = TypeParam;
  std::mt19937_64 rng(102);
  for (int n = 0; n <= 10; ++n)
    for (const Backend& b : backends()) {
      const auto f = oracle::random_vector<T>(std::size_t{1} << n, rng);
      const auto g = oracle::random_vector<T>(std::size_t{1} << n, rng);
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      const auto corr = fastconv::correlate(f, g, b);
      expect_matches(corr, oracle::dyadic_convolution(f, g), oracle::l2(f) * oracle::l2(g), "correlate " + ctx);
      EXPECT_TRUE(corr == fastconv::convolve(f, g, b)) << ctx;
    }
}

TYPED_TEST(DyadicTyped, AutocorrelateMatchesDefinition) {
  using T = TypeParam;
  std::mt19937_64 rng(103);
  for (int n = 0; n <= 10; ++n)
    for (const Backend& b : backends()) {
      const auto f = oracle::random_vector<T>(std::size_t{1} << n, rng);
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      expect_matches(fastconv::autocorrelate(f, b), oracle::dyadic_convolution(f, f), oracle::l2(f) * oracle::l2(f),
                     "autocorrelate " + ctx);
    }
}

// Into the caller's output: separate, aliasing either operand, zero-padded operands; a wrong
// output size is an error that leaves the output untouched.
TYPED_TEST(DyadicTyped, IntoOutputMatchesDefinitionAndMayAlias) {
  using T = TypeParam;
  std::mt19937_64 rng(104);
  for (int n : {0, 3, 11, 17})
    for (const Backend& b : backends()) {
      if (n > 11 && b.name() == "reference") continue;
      const std::size_t size = std::size_t{1} << n;
      const auto f = oracle::random_vector<T>(size, rng);
      const auto g = oracle::random_vector<T>(size >> (n / 2), rng);
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      const auto want = fastconv::convolve(f, g, b);
      if (n <= 11) expect_matches(want, oracle::dyadic_convolution(f, g), oracle::l2(f) * oracle::l2(g), ctx);
      std::vector<T> out(size, T(7));
      fastconv::convolve(f, g, std::span(out), b);
      EXPECT_TRUE(out == want) << "separate output, " << ctx;
      auto f_alias = f;
      fastconv::convolve(f_alias, g, std::span(f_alias), b);
      EXPECT_TRUE(f_alias == want) << "output is f, " << ctx;
      std::vector<T> auto_out(size);
      fastconv::autocorrelate(f, std::span(auto_out), b);
      EXPECT_TRUE(auto_out == fastconv::autocorrelate(f, b)) << "autocorrelate into output, " << ctx;
      std::vector<T> wrong(size + 1, T(5));
      EXPECT_THROW(fastconv::convolve(f, g, std::span(wrong), b), fastconv::Error) << ctx;
      EXPECT_TRUE(std::all_of(wrong.begin(), wrong.end(), [](T v) { return v == T(5); })) << ctx;
    }
}

// The output may be either operand, and an autocorrelation's its operand (int64 computes in the
// caller's words: dyadic.cpp's header), at one size and at two.
TYPED_TEST(DyadicTyped, OutputThatIsAnOperandMatchesTheDefinition) {
  using T = TypeParam;
  std::mt19937_64 rng(105);
  for (int n : {0, 1, 5, 11})
    for (const Backend& b : backends()) {
      const std::size_t size = std::size_t{1} << n;
      const auto f = oracle::random_vector<T>(size, rng), g = oracle::random_vector<T>(size, rng);
      const auto h = oracle::random_vector<T>(std::max<std::size_t>(size / 4, 1), rng);
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      const long double norms = oracle::l2(f) * oracle::l2(g);
      auto g_alias = g;
      fastconv::convolve(f, g_alias, std::span(g_alias), b);
      expect_matches(g_alias, oracle::dyadic_convolution(f, g), norms, "output is g, " + ctx);
      auto f_alias = f;
      fastconv::convolve(h, f_alias, std::span(f_alias), b);
      expect_matches(f_alias, oracle::dyadic_convolution(pad(h, size), f), oracle::l2(f) * oracle::l2(h),
                     "output is the longer g, " + ctx);
      auto in_place = f;
      fastconv::autocorrelate(in_place, std::span(in_place), b);
      expect_matches(in_place, oracle::dyadic_convolution(f, f), oracle::l2(f) * oracle::l2(f),
                     "autocorrelation in place, " + ctx);
    }
}

// Operands that are not vectors: spans and arrays of const elements go through the same API.
TYPED_TEST(DyadicTyped, AcceptsSpansAndArrays) {
  using T = TypeParam;
  const std::array<const T, 4> f = {T(1), T(2), T(3), T(4)};
  const std::vector<T> g = {T(1), T(0), T(0), T(-1)};
  const auto got = fastconv::convolve(std::span<const T>(f), g);
  expect_matches(got, oracle::dyadic_convolution(std::vector<T>(f.begin(), f.end()), g), 100.0L, "span");
}

// ---------------------------------------------------------------------------------------------
// 2. Different power-of-two lengths: the shorter operand is zero-padded; length = the longer.

TYPED_TEST(DyadicTyped, DifferentLengthsAreZeroPadded) {
  using T = TypeParam;
  std::mt19937_64 rng(104);
  struct Lengths { std::size_t f, g; };
  for (const Lengths l : {Lengths{8, 32}, Lengths{64, 2}, Lengths{1, 1024}, Lengths{512, 1}, Lengths{2, 4},
                          Lengths{256, 16}})
    for (const Backend& b : backends()) {
      const auto f = oracle::random_vector<T>(l.f, rng);
      const auto g = oracle::random_vector<T>(l.g, rng);
      const std::size_t N = std::max(l.f, l.g);
      const auto want = oracle::dyadic_convolution(pad(f, N), pad(g, N));
      const std::string ctx =
          "|f|=" + std::to_string(l.f) + " |g|=" + std::to_string(l.g) + " backend=" + std::string(b.name());
      const long double norms = oracle::l2(f) * oracle::l2(g);
      const auto c = fastconv::convolve(f, g, b);
      EXPECT_EQ(c.size(), N) << ctx;
      expect_matches(c, want, norms, "convolve " + ctx);
      expect_matches(fastconv::correlate(f, g, b), want, norms, "correlate " + ctx);
      expect_matches(fastconv::convolve(g, f, b), want, norms, "convolve(g, f) " + ctx);
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Lengths that are not powers of two, or empty operands.

TYPED_TEST(DyadicTyped, NonPowerOfTwoOrEmptyIsInvalidArgument) {
  using T = TypeParam;
  const std::vector<T> good(8, T(1)), three(3, T(1)), six(6, T(1)), empty;
  for (const Backend& b : backends())
    for (const auto* bad : {&three, &six, &empty}) {
      const std::string ctx = "|bad|=" + std::to_string(bad->size()) + " " + std::string(b.name());
      expect_error([&] { (void)fastconv::convolve(*bad, good, b); }, ErrorCode::invalid_argument, {"power of two"}, ctx);
      expect_error([&] { (void)fastconv::convolve(good, *bad, b); }, ErrorCode::invalid_argument, {"power of two"}, ctx);
      expect_error([&] { (void)fastconv::correlate(good, *bad, b); }, ErrorCode::invalid_argument, {"power of two"}, ctx);
      expect_error([&] { (void)fastconv::autocorrelate(*bad, b); }, ErrorCode::invalid_argument, {"power of two"}, ctx);
      expect_error([&] { (void)fastconv::deconvolve(*bad, good, b); }, ErrorCode::invalid_argument, {"power of two"},
                   ctx);
      expect_error([&] { (void)fastconv::deconvolve(good, *bad, b); }, ErrorCode::invalid_argument, {"power of two"},
                   ctx);
      expect_error([&] { DyadicSystem<T> s(*bad, b); }, ErrorCode::invalid_argument, {"power of two"}, ctx);
      expect_error([&] { (void)DyadicSystem<T>(good, b).apply(*bad); }, ErrorCode::invalid_argument, {"power of two"},
                   ctx);
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Seed 001, Example 3: [1, 0, 1, 1] ⊛ [0, 1, 0, 1] = [1, 2, 1, 2].

TYPED_TEST(DyadicTyped, Seed001Example3) {
  using T = TypeParam;
  const std::vector<T> f = {1, 0, 1, 1}, g = {0, 1, 0, 1}, want = {1, 2, 1, 2};
  for (const Backend& b : backends()) {
    EXPECT_EQ(fastconv::convolve(f, g, b), want) << b.name();
    EXPECT_EQ(fastconv::correlate(f, g, b), want) << b.name();
    EXPECT_EQ(DyadicSystem<T>(g, b).apply(f), want) << b.name();
  }
  const auto def = oracle::dyadic_convolution(f, g);
  for (std::size_t t = 0; t < 4; ++t) EXPECT_TRUE(def[t] == static_cast<oracle::Acc<T>>(want[t])) << t;
}

// ---------------------------------------------------------------------------------------------
// 4. Deconvolution.

/// An h of 2^n small values whose Walsh spectrum (by the definition) has no zero: random
/// values, h(0) bumped until no coefficient vanishes (each bump moves every coefficient by 1).
template <class T>
std::vector<T> invertible_h(int n, std::mt19937_64& rng, std::vector<oracle::Acc<T>>& spectrum) {
  auto h = oracle::random_vector<T>(std::size_t{1} << n, rng, -3, 3);
  for (;;) {
    spectrum = spectrum_of(h);
    bool singular = false;
    for (const auto s : spectrum) singular = singular || s == 0;
    if (!singular) return h;
    h[0] += 1;
  }
}

TYPED_TEST(DyadicDeconvolve, RoundTrip) {
  using T = TypeParam;
  std::mt19937_64 rng(105);
  for (int n = 0; n <= 10; ++n)
    for (const Backend& b : backends()) {
      const std::size_t N = std::size_t{1} << n;
      const std::string ctx = "n=" + std::to_string(n) + " backend=" + std::string(b.name());
      if constexpr (std::is_integral_v<T>) {
        std::vector<oracle::Acc<T>> spectrum;
        const auto h = invertible_h<T>(n, rng, spectrum);
        const auto f = oracle::random_vector<T>(N, rng);
        const auto exact = oracle::dyadic_convolution(f, h);
        std::vector<T> y(N);
        for (std::size_t t = 0; t < N; ++t) y[t] = static_cast<T>(exact[t]);
        EXPECT_EQ(fastconv::deconvolve(y, h, b), f) << ctx;
        // and through the library's own convolve
        EXPECT_EQ(fastconv::deconvolve(fastconv::convolve(f, h, b), h, b), f) << ctx;
      } else {
        // h = δ + small: |H(k)| ∈ [0.5, 1.5], a well-conditioned system.
        auto h = oracle::random_vector<T>(N, rng);
        for (auto& v : h) v = static_cast<T>(v * 0.5 / static_cast<double>(N));
        h[0] += T(1);
        const auto spectrum = spectrum_of(h);
        long double lo = INFINITY, hi = 0;
        for (const auto s : spectrum) lo = std::min(lo, std::fabs(s)), hi = std::max(hi, std::fabs(s));
        const auto f = oracle::random_vector<T>(N, rng);
        const auto y = fastconv::convolve(f, h, b);
        const auto got = fastconv::deconvolve(y, h, b);
        ASSERT_EQ(got.size(), N) << ctx;
        // convolve's error (3n+2)·u·‖f‖‖h‖ divided by min|H|, plus the deconvolution's own
        // two transforms and division, each O(n·u·κ·‖f‖₂).
        const long double tol = 4 * (3 * n + 2) * oracle::unit_roundoff<T>() * (hi / lo) * oracle::l2(f);
        for (std::size_t x = 0; x < N; ++x)
          ASSERT_LE(std::fabs(static_cast<long double>(got[x]) - f[x]), tol) << ctx << " x=" << x;
      }
    }
}

TYPED_TEST(DyadicDeconvolve, SingularSystemNamesTheZeroCoefficient) {
  using T = TypeParam;
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    // W·[1, 1] = [2, 0]; W·[1, 1, 1, 1] = [4, 0, 0, 0]; W·[1, 0, 1, 0] = [2, 2, 0, 0].
    const std::vector<T> h2 = {1, 1}, h4 = {1, 1, 1, 1}, h4b = {1, 0, 1, 0};
    const std::vector<T> y2 = {2, 2}, y4 = {4, 4, 4, 4}, y8(8, T(2));
    expect_error([&] { (void)fastconv::deconvolve(y2, h2, b); }, ErrorCode::invalid_argument, {"zero at index 1"}, ctx);
    expect_error([&] { (void)fastconv::deconvolve(y4, h4, b); }, ErrorCode::invalid_argument, {"zero at index 1"}, ctx);
    expect_error([&] { (void)fastconv::deconvolve(y4, h4b, b); }, ErrorCode::invalid_argument, {"zero at index 2"},
                 ctx);
    // h zero-padded to y's length: still singular, the index is the one in h's own spectrum.
    expect_error([&] { (void)fastconv::deconvolve(y8, h4b, b); }, ErrorCode::invalid_argument, {"zero at index 2"},
                 ctx);
    expect_error([&] { (void)fastconv::deconvolve(y8, h2, b); }, ErrorCode::invalid_argument, {"zero at index 1"},
                 ctx);
    // Singularity is reported whatever y is, even when an earlier Walsh coefficient of y is
    // not a multiple of h's (W·[1, 0] = [1, 1], W·[1, 1] = [2, 0]).
    const std::vector<T> y10 = {1, 0};
    expect_error([&] { (void)fastconv::deconvolve(y10, h2, b); }, ErrorCode::invalid_argument, {"zero at index 1"},
                 ctx);
    // The all-zero h is singular at index 0.
    const std::vector<T> zero(4, T(0));
    expect_error([&] { (void)fastconv::deconvolve(y4, zero, b); }, ErrorCode::invalid_argument, {"zero at index 0"},
                 ctx);
  }
}

TYPED_TEST(DyadicDeconvolve, YLongerThanH) {
  using T = TypeParam;
  std::mt19937_64 rng(106);
  // h = [2, 1] (W·h = [3, 1]) zero-padded to 64 points.
  const std::vector<T> h = {2, 1};
  for (const Backend& b : backends()) {
    const auto f = oracle::random_vector<T>(64, rng);
    const auto exact = oracle::dyadic_convolution(f, h);
    std::vector<T> y(exact.size());
    for (std::size_t t = 0; t < y.size(); ++t) y[t] = static_cast<T>(exact[t]);
    const auto got = fastconv::deconvolve(y, h, b);
    ASSERT_EQ(got.size(), 64u) << b.name();
    for (std::size_t x = 0; x < 64; ++x) {
      if constexpr (std::is_integral_v<T>) {
        ASSERT_EQ(got[x], f[x]) << b.name() << " x=" << x;
      } else {
        ASSERT_NEAR(got[x], f[x], 64 * 20 * oracle::unit_roundoff<T>() * static_cast<double>(oracle::l2(f)))
            << b.name() << " x=" << x;
      }
    }
  }
}

TYPED_TEST(DyadicDeconvolve, YShorterThanH) {
  using T = TypeParam;
  std::mt19937_64 rng(107);
  for (const Backend& b : backends()) {
    // h = e_3 of 16 points: convolution with it is the permutation y(τ) = f(τ ⊕ 3), so
    // f(x) = y_padded(x ⊕ 3), exact for every type.
    const auto y = oracle::random_vector<T>(4, rng);
    std::vector<T> h(16, T(0));
    h[3] = T(1);
    const auto got = fastconv::deconvolve(y, h, b);
    ASSERT_EQ(got.size(), 16u) << b.name();
    const auto ypad = pad(y, 16);
    const long double tol = 4 * (2 * 4 + 2) * oracle::unit_roundoff<T>() * oracle::l1(y);  // floats: two WHTs
    for (std::size_t x = 0; x < 16; ++x) {
      if constexpr (std::is_integral_v<T>) {
        EXPECT_EQ(got[x], ypad[x ^ 3]) << b.name() << " x=" << x;
      } else {
        EXPECT_LE(std::fabs(static_cast<long double>(got[x]) - ypad[x ^ 3]), tol) << b.name() << " x=" << x;
      }
    }
    // and by the definition: got ⊛ h is the padded y
    const auto back = oracle::dyadic_convolution(got, h);
    for (std::size_t t = 0; t < 16; ++t)
      EXPECT_LE(std::fabs(static_cast<long double>(back[t]) - static_cast<long double>(ypad[t])), tol)
          << b.name() << " t=" << t;

    if constexpr (std::is_floating_point_v<T>) {
      // A general well-conditioned h: convolving the result with h gives back the padded y.
      std::vector<T> h2 = oracle::random_vector<T>(16, rng);
      for (auto& v : h2) v = static_cast<T>(v / 32);
      h2[0] += T(1);
      const auto f = fastconv::deconvolve(y, h2, b);
      ASSERT_EQ(f.size(), 16u);
      const auto back = oracle::dyadic_convolution(f, h2);
      for (std::size_t t = 0; t < 16; ++t)
        EXPECT_NEAR(static_cast<double>(back[t]), ypad[t], 200 * oracle::unit_roundoff<T>()) << b.name() << " t=" << t;
    }
  }
}

TEST(DyadicDeconvolveInteger, NotTheConvolutionOfAnIntegerSignalIsAnError) {
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    // W·h = [3, 1], W·y = [1, 1]: 1/3 is not an integer Walsh coefficient.
    expect_error([&] { (void)fastconv::deconvolve(std::vector<std::int64_t>{1, 0}, std::vector<std::int64_t>{2, 1}, b); },
                 ErrorCode::invalid_argument, {"not a multiple"}, ctx);
    expect_error([&] { (void)fastconv::deconvolve(std::vector<std::int32_t>{1, 0}, std::vector<std::int32_t>{2, 1}, b); },
                 ErrorCode::invalid_argument, {"not a multiple"}, ctx);
    // W·h = [2, 2], W·y = [2, 0]: the quotient [1, 0] is integral but f = [1/2, 1/2] is not.
    expect_error([&] { (void)fastconv::deconvolve(std::vector<std::int64_t>{1, 1}, std::vector<std::int64_t>{2, 0}, b); },
                 ErrorCode::invalid_argument, {"output element 0 would be 1/2, not an integer"}, ctx);
    expect_error([&] { (void)fastconv::deconvolve(std::vector<std::int32_t>{1, 1}, std::vector<std::int32_t>{2, 0}, b); },
                 ErrorCode::invalid_argument, {"not an integer"}, ctx);
    // The float types identify that f.
    const auto f = fastconv::deconvolve(std::vector<double>{1, 1}, std::vector<double>{2, 0}, b);
    EXPECT_EQ(f, (std::vector<double>{0.5, 0.5})) << ctx;
  }
}

TEST(DyadicDeconvolveInteger, LargeValuesRoundTripExactly) {
  // f near the int64 limits, h = [1, 1, 0, 1] (W·h = [3, −1, 1, 1]).
  const std::int64_t big = std::int64_t{1} << 60;
  const std::vector<std::int64_t> f = {big, -big, 3, std::numeric_limits<std::int64_t>::min() / 8}, h = {1, 1, 0, 1};
  const auto exact = oracle::dyadic_convolution(f, h);
  std::vector<std::int64_t> y(4);
  for (std::size_t t = 0; t < 4; ++t) y[t] = static_cast<std::int64_t>(exact[t]);
  for (const Backend& b : backends()) EXPECT_EQ(fastconv::deconvolve(y, h, b), f) << b.name();
}

// ---------------------------------------------------------------------------------------------
// 5. DyadicSystem.

TYPED_TEST(DyadicSystemTyped, ApplyMatchesDefinitionForEveryInputLength) {
  using T = TypeParam;
  std::mt19937_64 rng(108);
  for (int m : {0, 1, 3, 6})
    for (const Backend& b : backends()) {
      const auto h = oracle::random_vector<T>(std::size_t{1} << m, rng);
      const DyadicSystem<T> system(h, b);
      EXPECT_EQ(system.size(), h.size());
      EXPECT_EQ(system.backend().name(), b.name());
      for (int nx : {m, m + 1, m + 4, m - 1, m - 3}) {  // same, longer (tiled spectrum), shorter
        if (nx < 0) continue;
        const auto x = oracle::random_vector<T>(std::size_t{1} << nx, rng);
        const std::size_t N = std::max(h.size(), x.size());
        const auto want = oracle::dyadic_convolution(pad(x, N), pad(h, N));
        const std::string ctx = "m=" + std::to_string(m) + " nx=" + std::to_string(nx) + " " + std::string(b.name());
        const auto y = system.apply(x);
        EXPECT_EQ(y.size(), N) << ctx;
        expect_matches(y, want, oracle::l2(x) * oracle::l2(h), "apply " + ctx);

        std::vector<T> out(N, T(-7));
        system.apply(x, std::span<T>(out));
        EXPECT_TRUE(out == y) << "output-span overload differs, " << ctx;

        // the same system applied again gives the same values (the kept spectrum is not consumed)
        EXPECT_TRUE(system.apply(x) == y) << ctx;
      }
    }
}

TYPED_TEST(DyadicSystemTyped, WrongOutputSizeIsInvalidArgument) {
  using T = TypeParam;
  const std::vector<T> h(8, T(1)), x4(4, T(1)), x16(16, T(1));
  for (const Backend& b : backends()) {
    const DyadicSystem<T> system(h, b);
    for (std::size_t wrong : {0u, 4u, 7u, 16u}) {
      std::vector<T> out(wrong, T(3));
      expect_error([&] { system.apply(x4, std::span<T>(out)); }, ErrorCode::invalid_argument, {}, "x4");
      EXPECT_TRUE(out == std::vector<T>(wrong, T(3))) << "output touched on error";
    }
    for (std::size_t wrong : {8u, 32u}) {
      std::vector<T> out(wrong);
      expect_error([&] { system.apply(x16, std::span<T>(out)); }, ErrorCode::invalid_argument, {}, "x16");
    }
    std::vector<T> out(8);
    EXPECT_NO_THROW(system.apply(x4, std::span<T>(out)));
  }
}

TEST(DyadicSystemApi, ClassTemplateArgumentDeductionAndMove) {
  const std::vector<double> h_vector = {1.0, 0.5, 0.0, -0.25};
  fastconv::DyadicSystem system(h_vector);
  static_assert(std::is_same_v<decltype(system), fastconv::DyadicSystem<double>>);
  fastconv::DyadicSystem with_backend(std::vector<std::int32_t>{0, 1}, Backend::reference());
  static_assert(std::is_same_v<decltype(with_backend), fastconv::DyadicSystem<std::int32_t>>);

  const std::vector<double> x = {2.0, 0.0, 0.0, 0.0};
  EXPECT_EQ(system.apply(x), (std::vector<double>{2.0, 1.0, 0.0, -0.5}));
  EXPECT_EQ(with_backend.apply(std::vector<std::int32_t>{5, 7}), (std::vector<std::int32_t>{7, 5}));

  fastconv::DyadicSystem<double> moved(std::move(system));
  EXPECT_EQ(moved.apply(x), (std::vector<double>{2.0, 1.0, 0.0, -0.5}));
  fastconv::DyadicSystem<double> assigned(std::vector<double>{1.0});
  assigned = std::move(moved);
  EXPECT_EQ(assigned.size(), 4u);
  EXPECT_EQ(assigned.apply(x), (std::vector<double>{2.0, 1.0, 0.0, -0.5}));
}

// ---------------------------------------------------------------------------------------------
// 6. Exact integers: overflow reported, the 128-bit path exact.

TEST(DyadicOverflow, Int32ConvolutionOverflowIsReported) {
  const std::vector<std::int32_t> f = {65536, 65536};  // C(0) = C(1) = 2^33
  for (const Backend& b : backends()) {
    expect_error([&] { (void)fastconv::convolve(f, f, b); }, ErrorCode::overflow, {"8589934592"}, std::string(b.name()));
    expect_error([&] { (void)fastconv::correlate(f, f, b); }, ErrorCode::overflow, {"8589934592"},
                 std::string(b.name()));
    expect_error([&] { (void)fastconv::autocorrelate(f, b); }, ErrorCode::overflow, {"8589934592"},
                 std::string(b.name()));
    expect_error([&] { (void)DyadicSystem<std::int32_t>(f, b).apply(f); }, ErrorCode::overflow, {"8589934592"},
                 std::string(b.name()));
    // The same in int64 is exact.
    const std::vector<std::int64_t> f64 = {65536, 65536};
    const std::vector<std::int64_t> want = {std::int64_t{1} << 33, std::int64_t{1} << 33};
    EXPECT_EQ(fastconv::convolve(f64, f64, b), want) << b.name();
    EXPECT_EQ(fastconv::autocorrelate(f64, b), want) << b.name();
    EXPECT_EQ(DyadicSystem<std::int64_t>(f64, b).apply(f64), want) << b.name();
  }
}

TEST(DyadicOverflow, Int32ResultsAtTheLimitsAreExact) {
  const std::int32_t max = std::numeric_limits<std::int32_t>::max(), min = std::numeric_limits<std::int32_t>::min();
  for (const Backend& b : backends()) {
    EXPECT_EQ(fastconv::convolve(std::vector<std::int32_t>{max, 0}, std::vector<std::int32_t>{1, 0}, b),
              (std::vector<std::int32_t>{max, 0}));
    EXPECT_EQ(fastconv::convolve(std::vector<std::int32_t>{min, 0, 0, 0}, std::vector<std::int32_t>{0, 0, 1, 0}, b),
              (std::vector<std::int32_t>{0, 0, min, 0}));
    expect_error([&] { (void)fastconv::convolve(std::vector<std::int32_t>{min, 0}, std::vector<std::int32_t>{-1, 0}, b); },
                 ErrorCode::overflow, {"2147483648"}, std::string(b.name()));
    // 2^16·2^15 = 2^31 is one past INT32_MAX.
    expect_error([&] { (void)fastconv::convolve(std::vector<std::int32_t>{65536, 0}, std::vector<std::int32_t>{32768, 0}, b); },
                 ErrorCode::overflow, {"2147483648"}, std::string(b.name()));
  }
}

TEST(DyadicOverflow, Int64WidePathIsExact) {
  const std::int64_t p62 = std::int64_t{1} << 62;
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    EXPECT_EQ(fastconv::convolve(std::vector<std::int64_t>{p62, 0}, std::vector<std::int64_t>{1, 0}, b),
              (std::vector<std::int64_t>{p62, 0}))
        << ctx;
    EXPECT_EQ(fastconv::convolve(std::vector<std::int64_t>{1, 0}, std::vector<std::int64_t>{p62, 0}, b),
              (std::vector<std::int64_t>{p62, 0}))
        << ctx;
    const std::vector<std::int64_t> f = {p62, 0, 0, 0}, g = {1, 1, 0, 0};
    expect_matches(fastconv::convolve(f, g, b), oracle::dyadic_convolution(f, g), 0, "2^62 ⊛ [1,1,0,0] " + ctx);
    const std::vector<std::int64_t> f2 = {p62 / 2, -p62 / 2, 0, 3}, g2 = {1, -1, 1, 0};
    expect_matches(fastconv::convolve(f2, g2, b), oracle::dyadic_convolution(f2, g2), 0, "mixed " + ctx);
    // INT64_MIN survives the exact division by N.
    EXPECT_EQ(fastconv::convolve(std::vector<std::int64_t>{min, 0}, std::vector<std::int64_t>{1, 0}, b),
              (std::vector<std::int64_t>{min, 0}))
        << ctx;
    expect_error([&] { (void)fastconv::convolve(std::vector<std::int64_t>{min, 0}, std::vector<std::int64_t>{-1, 0}, b); },
                 ErrorCode::overflow, {"9223372036854775808"}, ctx);
    // autocorrelation: 2^31·2^31 = 2^62 fits; (2^31, 2^31) → 2^63 does not.
    const std::int64_t p31 = std::int64_t{1} << 31;
    EXPECT_EQ(fastconv::autocorrelate(std::vector<std::int64_t>{p31, 0}, b), (std::vector<std::int64_t>{p62, 0})) << ctx;
    expect_error([&] { (void)fastconv::autocorrelate(std::vector<std::int64_t>{p31, p31}, b); }, ErrorCode::overflow,
                 {"9223372036854775808"}, ctx);
  }
}

TEST(DyadicOverflow, Int64BeyondTheWidePathIsAnOverflowError) {
  const std::int64_t p62 = std::int64_t{1} << 62;
  const std::vector<std::int64_t> f(4, p62);  // C(τ) = 4·2^124 — and N·bound exceeds 2^127
  for (const Backend& b : backends()) {
    expect_error([&] { (void)fastconv::convolve(f, f, b); }, ErrorCode::overflow, {}, std::string(b.name()));
    expect_error([&] { (void)fastconv::autocorrelate(f, b); }, ErrorCode::overflow, {}, std::string(b.name()));
    expect_error([&] { (void)DyadicSystem<std::int64_t>(f, b).apply(f); }, ErrorCode::overflow, {},
                 std::string(b.name()));
  }
}

// The "may overflow" message states the bound on the result; it must be the true (positive) bound.
TEST(DyadicOverflow, TooWideMessageStatesAPositiveBound) {
  const std::int64_t p62 = std::int64_t{1} << 62;
  const std::vector<std::int64_t> f(4, p62);  // ‖f‖₁·max|f| = 2^64·2^62 = 2^126
  expect_error([&] { (void)fastconv::convolve(f, f); }, ErrorCode::overflow, {"85070591730234615865843651857942052864"});
  // ‖g‖₁·max|g| = 2^65·2^63 = 2^128: beyond u128; whatever is printed must not be negative.
  const std::vector<std::int64_t> g(4, std::numeric_limits<std::int64_t>::min());
  try {
    (void)fastconv::convolve(g, g);
    ADD_FAILURE() << "expected overflow";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
    EXPECT_EQ(std::string(e.what()).find("bounded only by -"), std::string::npos) << e.what();
  }
}

TEST(DyadicOverflow, SystemWidePathIsExact) {
  const std::int64_t p62 = std::int64_t{1} << 62;
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    const DyadicSystem<std::int64_t> identity(std::vector<std::int64_t>{1, 0}, b);
    const std::vector<std::int64_t> x = {p62, p62};
    expect_matches(identity.apply(x), oracle::dyadic_convolution(x, std::vector<std::int64_t>{1, 0}), 0, "h=δ " + ctx);
    const std::vector<std::int64_t> x4 = {p62, -p62, 0, p62 / 4};
    expect_matches(identity.apply(x4), oracle::dyadic_convolution(x4, std::vector<std::int64_t>{1, 0}), 0,
                   "h=δ, longer x " + ctx);
    const DyadicSystem<std::int64_t> swap(std::vector<std::int64_t>{0, 1, 0, 0}, b);
    expect_matches(swap.apply(x), oracle::dyadic_convolution(x, std::vector<std::int64_t>{0, 1, 0, 0}), 0,
                   "h=e1, shorter x " + ctx);
    const DyadicSystem<std::int64_t> two(std::vector<std::int64_t>{1, 1}, b);
    expect_error([&] { (void)two.apply(x); }, ErrorCode::overflow, {"9223372036854775808"}, ctx);  // 2^63
  }
}

// Results that fit although the bound on them needs the 128-bit ring (cancellation).
TEST(DyadicOverflow, CancellingResultsOnTheWidePathAreExact) {
  const std::int32_t a = std::numeric_limits<std::int32_t>::min() + 1;  // −a fits
  const std::int64_t p62 = std::int64_t{1} << 62, p30 = std::int64_t{1} << 30;
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    // int32: bound·N = 2·2·(2^31 − 1)² > 2^63, C = [a² − a², −a² + a²] = [0, 0].
    const std::vector<std::int32_t> f32 = {a, a}, g32 = {a, -a};
    expect_matches(fastconv::convolve(f32, g32, b), oracle::dyadic_convolution(f32, g32), 0, "int32 " + ctx);
    expect_matches(DyadicSystem<std::int32_t>(g32, b).apply(f32), oracle::dyadic_convolution(f32, g32), 0,
                   "int32 system " + ctx);
    // int64: bound = 2^63·2^62, C = [0, 0].
    const std::vector<std::int64_t> f64 = {p62, p62}, g64 = {p62, -p62};
    EXPECT_EQ(fastconv::convolve(f64, g64, b), (std::vector<std::int64_t>{0, 0})) << ctx;
    EXPECT_EQ(DyadicSystem<std::int64_t>(g64, b).apply(f64), (std::vector<std::int64_t>{0, 0})) << ctx;
    // autocorrelation: bound·N = 2^32·2^30·4 = 2^64, R = [2^62, 2^62, 2^62, 2^62].
    EXPECT_EQ(fastconv::autocorrelate(std::vector<std::int64_t>(4, p30), b), std::vector<std::int64_t>(4, p62)) << ctx;
  }
}

// ---------------------------------------------------------------------------------------------
// Larger sizes (the cpu backend's blocked and threaded kernels) against the reference backend.

template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, long double tol, const std::string& ctx) {
  ASSERT_EQ(got.size(), want.size()) << ctx;
  for (std::size_t t = 0; t < got.size(); ++t) {
    if constexpr (std::is_integral_v<T>) ASSERT_EQ(got[t], want[t]) << ctx << " t=" << t;
    else ASSERT_LE(std::fabs(static_cast<long double>(got[t]) - want[t]), tol) << ctx << " t=" << t;
  }
}

TYPED_TEST(DyadicTyped, CpuMatchesReferenceAtLargeSizes) {
  using T = TypeParam;
  std::mt19937_64 rng(111);
  struct Lengths { int f, g; };
  for (const Lengths l : {Lengths{14, 14}, Lengths{17, 17}, Lengths{20, 5}, Lengths{3, 18}}) {
    const auto f = oracle::random_vector<T>(std::size_t{1} << l.f, rng);
    const auto g = oracle::random_vector<T>(std::size_t{1} << l.g, rng);
    const int n = std::max(l.f, l.g);
    const long double tol = 2 * (3 * n + 2) * oracle::unit_roundoff<T>() * oracle::l2(f) * oracle::l2(g);
    const std::string ctx = "log2|f|=" + std::to_string(l.f) + " log2|g|=" + std::to_string(l.g);
    const auto want = fastconv::convolve(f, g, Backend::reference());
    expect_close(fastconv::convolve(f, g, Backend::cpu()), want, tol, "cpu " + ctx);
    expect_close(fastconv::convolve(f, g, Backend::cpu(1)), want, tol, "cpu(1) " + ctx);
    expect_close(DyadicSystem<T>(g, Backend::cpu()).apply(f), want, tol, "system " + ctx);
    if (l.f == l.g)
      expect_close(fastconv::autocorrelate(f, Backend::cpu()), fastconv::autocorrelate(f, Backend::reference()),
                   2 * (3 * n + 2) * oracle::unit_roundoff<T>() * oracle::l2(f) * oracle::l2(f), "autocorrelate " + ctx);
  }
}

TEST(DyadicSystemApi, ConcurrentApplyGivesTheSameResults) {
  std::mt19937_64 rng(112);
  const auto h = oracle::random_vector<double>(1 << 10, rng);
  const DyadicSystem<double> system(h, Backend::cpu());
  std::vector<std::vector<double>> inputs, serial(8), parallel(8);
  for (int i = 0; i < 8; ++i) inputs.push_back(oracle::random_vector<double>(std::size_t{1} << (8 + i % 4), rng));
  for (int i = 0; i < 8; ++i) serial[i] = system.apply(inputs[i]);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { parallel[i] = system.apply(inputs[i]); });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(serial[i] == parallel[i]) << i;
}

// The documented float zero test: |(W·h)(k)| ≤ 2·n·u·‖h‖₁ counts as zero.
TEST(DyadicDeconvolveFloat, NumericallyZeroSpectrumIsSingular) {
  for (const Backend& b : backends()) {
    const std::string ctx(b.name());
    // W·h = [2 + 2^-52, −2^-52]: below the threshold 2·1·2^-53·(2 + 2^-52).
    const std::vector<double> hd = {1.0, 1.0 + std::ldexp(1.0, -52)}, yd = {1.0, 0.0};
    expect_error([&] { (void)fastconv::deconvolve(yd, hd, b); }, ErrorCode::invalid_argument, {"zero at index 1"}, ctx);
    const std::vector<float> hf = {1.0f, 1.0f + std::ldexp(1.0f, -23)}, yf = {1.0f, 0.0f};
    expect_error([&] { (void)fastconv::deconvolve(yf, hf, b); }, ErrorCode::invalid_argument, {"zero at index 1"}, ctx);
    // Well above the threshold: identified (ill-conditioned, but not singular).
    const std::vector<double> ok = {1.0, 1.0 + std::ldexp(1.0, -30)};
    const auto f = fastconv::deconvolve(fastconv::convolve(std::vector<double>{1.0, 0.0}, ok, b), ok, b);
    EXPECT_NEAR(f[0], 1.0, 1e-5) << ctx;
    EXPECT_NEAR(f[1], 0.0, 1e-5) << ctx;
  }
}

// ---------------------------------------------------------------------------------------------
// 8. Convolution theorem W·(f ⊛ g) = (W·f) ⊙ (W·g), with the definition and fastconv::wht.

TEST(DyadicIdentity, ConvolutionTheoremHoldsExactlyAtN12) {
  std::mt19937_64 rng(109);
  const std::size_t N = std::size_t{1} << 12;
  const auto f = oracle::random_vector<std::int64_t>(N, rng), g = oracle::random_vector<std::int64_t>(N, rng);
  const auto def = oracle::dyadic_convolution(f, g);
  std::vector<std::int64_t> c(N);
  for (std::size_t t = 0; t < N; ++t) c[t] = static_cast<std::int64_t>(def[t]);
  auto wf = f, wg = g, wc = c;
  fastconv::wht(wf, {}, Backend::reference());
  fastconv::wht(wg, {}, Backend::reference());
  fastconv::wht(wc, {}, Backend::reference());
  for (std::size_t k = 0; k < N; ++k) ASSERT_EQ(wc[k], wf[k] * wg[k]) << k;
  for (const Backend& b : backends()) EXPECT_TRUE(fastconv::convolve(f, g, b) == c) << b.name();
}

// ---------------------------------------------------------------------------------------------
// 9. The documented float bound at a larger size, against the definition.

TEST(DyadicFloat, ErrorBoundHoldsAtN13) {
  std::mt19937_64 rng(110);
  const int n = 13;
  const auto f = oracle::random_vector<float>(std::size_t{1} << n, rng);
  const auto g = oracle::random_vector<float>(std::size_t{1} << n, rng);
  const auto want = oracle::dyadic_convolution(f, g);
  const long double norms = oracle::l2(f) * oracle::l2(g);
  expect_matches(fastconv::convolve(f, g, Backend::cpu()), want, norms, "cpu n=13");
  expect_matches(fastconv::convolve(f, g, Backend::reference()), want, norms, "reference n=13");
  expect_matches(DyadicSystem<float>(g, Backend::cpu()).apply(f), want, norms, "system n=13");
}

// ---------------------------------------------------------------------------------------------
// 10. Accumulation::float64: float operations computed in double, each result rounded once.

constexpr DyadicOptions kFloat64{.accumulation = Accumulation::float64};

/// reference, cpu (1 and 2 threads) and, with a double-precision device, opencl.
std::vector<Backend> double_backends() {
  std::vector<Backend> out = {Backend::reference(), Backend::cpu(1), Backend::cpu(2)};
  for (const auto& d : fastconv::devices())
    if (d.backend == "opencl" && d.fp64) {
      out.push_back(Backend::opencl());
      break;
    }
  return out;
}

std::vector<double> widen(const std::vector<float>& x) { return {x.begin(), x.end()}; }

std::vector<float> rounded(const std::vector<double>& x) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = static_cast<float>(x[i]);
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Bitwise the double operation on the widened operands (run as a separate double computation),
// rounded once: convolve (equal and unequal lengths, into an aliased output), autocorrelate,
// deconvolve and DyadicSystem.
TEST(DyadicAccumulation, IsTheDoubleResultRoundedOnce) {
  std::mt19937_64 rng(120);
  struct Lengths { int f, g; };
  for (const Backend& b : double_backends())
    for (const Lengths l : {Lengths{0, 0}, Lengths{5, 5}, Lengths{11, 11}, Lengths{12, 4}, Lengths{3, 10}}) {
      const std::string ctx = std::string(b.name()) + " log2|f|=" + std::to_string(l.f) +
                              " log2|g|=" + std::to_string(l.g);
      const auto f = oracle::random_vector<float>(std::size_t{1} << l.f, rng);
      const auto g = oracle::random_vector<float>(std::size_t{1} << l.g, rng);
      const auto want = rounded(fastconv::convolve(widen(f), widen(g), b));
      EXPECT_TRUE(same_bits(fastconv::convolve(f, g, kFloat64, b), want)) << ctx;
      EXPECT_TRUE(same_bits(fastconv::correlate(f, g, kFloat64, b), want)) << ctx;
      EXPECT_TRUE(same_bits(DyadicSystem<float>(g, kFloat64, b).apply(f), want)) << "system " << ctx;
      auto longer = l.f >= l.g ? f : g;  // out = the longer operand itself
      fastconv::convolve(f, g, std::span(longer), kFloat64, b);
      EXPECT_TRUE(same_bits(longer, want)) << "in place " << ctx;
      EXPECT_TRUE(same_bits(fastconv::autocorrelate(f, kFloat64, b), rounded(fastconv::autocorrelate(widen(f), b))))
          << ctx;
      auto h = oracle::random_vector<float>(std::size_t{1} << l.g, rng);
      h[0] += static_cast<float>(h.size() + 1);  // a dominant h[0]: every Walsh coefficient is far from zero
      const auto y = fastconv::convolve(f, h, b);
      EXPECT_TRUE(same_bits(fastconv::deconvolve(y, h, kFloat64, b),
                            rounded(fastconv::deconvolve(widen(y), widen(h), b))))
          << "deconvolve " << ctx;
    }
}

// Integer-valued operands against the exact int64 convolution: |Ĉ − C| ≤ 2^-24·|C| +
// (3n+2)·2^-53·‖f‖₂·‖g‖₂, far inside the float bound (3n+2)·2^-24·‖f‖₂·‖g‖₂.
TEST(DyadicAccumulation, StaysWithinTheTighterBound) {
  std::mt19937_64 rng(121);
  for (const int n : {4, 10, 16}) {
    const auto fi = oracle::random_vector<std::int64_t>(std::size_t{1} << n, rng, -1000, 1000);
    const auto gi = oracle::random_vector<std::int64_t>(std::size_t{1} << n, rng, -1000, 1000);
    const std::vector<float> f(fi.begin(), fi.end()), g(gi.begin(), gi.end());
    const auto exact = fastconv::convolve(fi, gi);
    const long double norms = oracle::l2(fi) * oracle::l2(gi);
    const auto check = [&](const std::vector<float>& got, const std::string& what) {
      for (std::size_t t = 0; t < got.size(); ++t) {
        const long double c = static_cast<long double>(exact[t]);
        ASSERT_LE(std::fabs(got[t] - c), 0x1p-24L * std::fabs(c) + (3 * n + 2) * 0x1p-53L * norms)
            << what << " n=" << n << " t=" << t;
      }
    };
    check(fastconv::convolve(f, g, kFloat64), "convolve");
    check(DyadicSystem<float>(g, kFloat64).apply(f), "system");
  }
}

TEST(DyadicAccumulation, DoubleAndIntegerDataAreUnaffected) {
  std::mt19937_64 rng(122);
  const auto fd = oracle::random_vector<double>(1 << 10, rng), gd = oracle::random_vector<double>(1 << 10, rng);
  EXPECT_TRUE(fastconv::convolve(fd, gd, kFloat64) == fastconv::convolve(fd, gd));
  EXPECT_TRUE(DyadicSystem<double>(gd, kFloat64).apply(fd) == fastconv::convolve(fd, gd));
  const auto fi = oracle::random_vector<std::int32_t>(1 << 10, rng), gi = oracle::random_vector<std::int32_t>(1 << 10, rng);
  EXPECT_EQ(fastconv::convolve(fi, gi, kFloat64), fastconv::convolve(fi, gi));
  EXPECT_EQ(fastconv::autocorrelate(fi, kFloat64), fastconv::autocorrelate(fi));
  EXPECT_EQ(DyadicSystem<std::int32_t>(gi, kFloat64).apply(fi), fastconv::convolve(fi, gi));
  EXPECT_EQ(DyadicSystem<std::int32_t>(gi, kFloat64).options().accumulation, Accumulation::float64);
}

TEST(DyadicAccumulation, SystemAppliesConcurrently) {
  std::mt19937_64 rng(123);
  const DyadicSystem<float> system(oracle::random_vector<float>(1 << 8, rng), kFloat64, Backend::cpu(1));
  std::vector<std::vector<float>> inputs, serial(6), parallel(6);
  for (int i = 0; i < 6; ++i) inputs.push_back(oracle::random_vector<float>(std::size_t{1} << (6 + i), rng));
  for (int i = 0; i < 6; ++i) serial[i] = system.apply(inputs[i]);
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) threads.emplace_back([&, i] { parallel[i] = system.apply(inputs[i]); });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(same_bits(serial[i], parallel[i])) << i;
}

TEST(DyadicAccumulation, ErrorsAreTheNativeOnes) {
  const std::vector<float> f(8), g(3);
  expect_error([&] { (void)fastconv::convolve(f, g, kFloat64); }, ErrorCode::invalid_argument,
               {"convolve: g has length 3, which is not a power of two"});
  std::vector<float> out(4);
  expect_error([&] { fastconv::convolve(f, f, std::span(out), kFloat64); }, ErrorCode::invalid_argument,
               {"convolve: the output has 4 elements, the result has 8"});
  const std::vector<float> singular = {1, 1};
  expect_error([&] { (void)fastconv::deconvolve(std::vector<float>{1, 0}, singular, kFloat64); },
               ErrorCode::invalid_argument, {"the Walsh spectrum of h is zero at index 1"});
}

}  // namespace
