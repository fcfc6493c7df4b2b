// 16-bit floats: float16 and bfloat16 conversions over every bit pattern against textbook
// definitions (and GCC's _Float16), and their WHT on every backend here — computed in float,
// rounded once — in every order and normalisation, in batches with a row stride, and within the
// bound wht.hpp documents.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fastconv/fastconv.hpp"
#include "oracle.hpp"

using fastconv::Backend;
using fastconv::bfloat16;
using fastconv::float16;
using fastconv::Normalization;
using fastconv::Order;
using fastconv::WhtOptions;
using fastconv::WhtPlan;

namespace {

// The WHT takes 16-bit floats; the dyadic operations reject them at compile time.
template <class T>
concept DyadicSystemOf = requires { typename fastconv::DyadicSystem<T>; };
template <class T>
concept WhtPlanOf = requires { typename fastconv::WhtPlan<T>; };
static_assert(fastconv::TransformElement<float16> && fastconv::TransformElement<bfloat16>);
static_assert(!fastconv::Element<float16> && !fastconv::Element<bfloat16>);
static_assert(DyadicSystemOf<float> && !DyadicSystemOf<float16> && !DyadicSystemOf<bfloat16>);
static_assert(WhtPlanOf<float16> && WhtPlanOf<bfloat16>);
static_assert(fastconv::dtype_of<float16> == fastconv::DType::float16);

/// The value of 16-bit pattern `bits` with `exponent_bits` exponent bits, from the definition:
/// (−1)^s · 2^(e − bias) · (1 + f/2^m), subnormal (−1)^s · 2^(1 − bias) · f/2^m.
double textbook_value(std::uint16_t bits, int exponent_bits) {
  const int m = 15 - exponent_bits, bias = (1 << (exponent_bits - 1)) - 1;
  const int e = (bits >> m) & ((1 << exponent_bits) - 1), f = bits & ((1 << m) - 1);
  const double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (e == (1 << exponent_bits) - 1) return f == 0 ? sign * INFINITY : NAN;
  if (e == 0) return sign * std::ldexp(f, 1 - bias - m);
  return sign * std::ldexp((1 << m) + f, e - bias - m);
}

template <class H>
constexpr int exponent_bits = std::is_same_v<H, float16> ? 5 : 8;

template <class H>
class HalfConversion : public ::testing::Test {};
using HalfTypes = ::testing::Types<float16, bfloat16>;
TYPED_TEST_SUITE(HalfConversion, HalfTypes);

TYPED_TEST(HalfConversion, EveryBitPatternWidensExactly) {
  using H = TypeParam;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const double want = textbook_value(static_cast<std::uint16_t>(bits), exponent_bits<H>);
    const float got = H::from_bits(static_cast<std::uint16_t>(bits));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << bits;
    } else {
      ASSERT_EQ(static_cast<double>(got), want) << bits;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << bits;  // −0 stays −0
    }
  }
}

/// Every finite pattern round-trips; the float halfway to the next pattern rounds to the even
/// one of the two; the floats just below and above it round to the nearer one.
TYPED_TEST(HalfConversion, EveryMidpointRoundsToNearestEven) {
  using H = TypeParam;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const double v = textbook_value(h, exponent_bits<H>);
    if (!std::isfinite(v)) continue;
    ASSERT_EQ(H(static_cast<float>(v)).bits, h) << bits;
    const auto next = static_cast<std::uint16_t>(h + 1);  // away from zero
    const double w = textbook_value(next, exponent_bits<H>);
    if (!std::isfinite(w)) continue;  // beyond the largest finite value: NanStaysNanAndOverflowIsInfinite
    const float mid = static_cast<float>((v + w) / 2);  // 2 bits more than H's fraction: exact in float
    ASSERT_EQ(static_cast<double>(mid), (v + w) / 2) << bits;
    const std::uint16_t even = (h & 1) == 0 ? h : next;
    ASSERT_EQ(H(mid).bits, even) << "midpoint after " << bits;
    ASSERT_EQ(H(std::nextafter(mid, 0.0f)).bits, h) << "below the midpoint after " << bits;
    ASSERT_EQ(H(std::nextafter(mid, mid * 2)).bits, next) << "above the midpoint after " << bits;
  }
}

TYPED_TEST(HalfConversion, NanStaysNanAndOverflowIsInfinite) {
  using H = TypeParam;
  const float max = std::is_same_v<H, float16> ? 65504.0f : 0x1.fep127f;
  EXPECT_EQ(static_cast<float>(H(max)), max);
  EXPECT_EQ(static_cast<float>(H(-INFINITY)), -INFINITY);
  EXPECT_EQ(static_cast<float>(H(std::numeric_limits<float>::max())), INFINITY);
  if constexpr (std::is_same_v<H, float16>) {
    EXPECT_EQ(static_cast<float>(float16(65519.996f)), 65504.0f);
    EXPECT_EQ(static_cast<float>(float16(65520.0f)), INFINITY);  // the midpoint to 2^16 rounds to even: up
  }
  for (const float nan : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::signaling_NaN()}) {
    const float back = H(nan);
    EXPECT_TRUE(std::isnan(back));
    EXPECT_EQ(std::signbit(back), std::signbit(nan));
  }
}

// A NaN's sign and payload survive the trip to float and back; only the quiet bit is set.
TYPED_TEST(HalfConversion, EveryNanKeepsItsSignAndPayload) {
  using H = TypeParam;
  const std::uint16_t quiet = std::is_same_v<H, float16> ? 0x0200 : 0x0040;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    if (!std::isnan(textbook_value(h, exponent_bits<H>))) continue;
    ASSERT_EQ(H(static_cast<float>(H::from_bits(h))).bits, h | quiet) << bits;
  }
}

TYPED_TEST(HalfConversion, DoublesAndIntegersAreRoundedOnce) {
  using H = TypeParam;
  // 1 + half an ulp of H + a little: rounding to float first would land on the midpoint and
  // then round down to 1 (ties to even); rounded once it is above the midpoint.
  const int m = 15 - exponent_bits<H>;
  const double above_midpoint = 1 + std::ldexp(1.0, -m - 1) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<float>(H(static_cast<float>(above_midpoint))), 1.0f);
  EXPECT_EQ(static_cast<double>(H(above_midpoint)), 1 + std::ldexp(1.0, -m));
  if constexpr (std::is_same_v<H, bfloat16>) {  // integers that float rounds (float16 overflows first)
    const std::int64_t big = (std::int64_t{1} << 40) + (std::int64_t{1} << (40 - m - 1)) + 1;
    EXPECT_EQ(static_cast<double>(H(static_cast<float>(big))), std::ldexp(1.0, 40));
    EXPECT_EQ(static_cast<double>(H(big)), std::ldexp(1.0, 40) + std::ldexp(1.0, 40 - m));
  }
  EXPECT_EQ(static_cast<float>(H(3)), 3.0f);
}

// The compiler's own IEEE binary16, the oracle: _Float16 where C++ has it. GCC 12 for 64-bit Arm
// defines __FLT16_MAX__ but has _Float16 only in C; its C++ has __fp16 (the same format,
// converted from float by FCVT, to nearest even).
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define FASTCONV_TEST_COMPILER_HALF __fp16
#elif defined(__FLT16_MAX__)
#define FASTCONV_TEST_COMPILER_HALF _Float16
#endif
#ifdef FASTCONV_TEST_COMPILER_HALF
TEST(HalfConversion, Float16MatchesGccFloat16OnRandomFloats) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, sizeof f);
    if (std::isnan(f)) continue;
    const FASTCONV_TEST_COMPILER_HALF want = static_cast<FASTCONV_TEST_COMPILER_HALF>(f);
    std::uint16_t want_bits;
    std::memcpy(&want_bits, &want, sizeof want_bits);
    ASSERT_EQ(float16(f).bits, want_bits) << std::hexfloat << f;
  }
}
#endif

// ---- the WHT -------------------------------------------------------------------------------

constexpr Order kOrders[] = {Order::hadamard, Order::sequency, Order::paley};
constexpr Normalization kNorms[] = {Normalization::none, Normalization::orthonormal, Normalization::inverse};

/// Every backend this build has (with a device): reference, cpu on each instruction set, opencl.
std::vector<Backend> every_backend() {
  std::vector<Backend> out = {Backend::reference(), Backend::cpu(1)};
  for (const auto& isa : Backend::variants_of("cpu")) out.push_back(Backend::cpu(2, isa));
  bool opencl_device = false;
  for (const auto& d : fastconv::devices()) opencl_device = opencl_device || d.backend == "opencl";
  if (opencl_device)
    for (const auto& v : Backend::variants_of("opencl")) out.push_back(Backend::opencl(v));
  return out;
}

std::string name_of(const Backend& b) { return std::string(b.name()) + "/" + std::string(b.variant()); }

/// Uniform on [-4, 4): 53 random bits, scaled. (uniform_real_distribution's generate_canonical
/// takes two logl per number where nothing folds them, as in the sanitizer build: a third of the
/// time of BatchesWithARowStrideLeaveTheGapsAlone there.)
template <class H>
std::vector<H> random_halves(std::size_t count, std::mt19937_64& rng) {
  std::vector<H> v(count);
  for (auto& x : v) x = H(static_cast<double>(rng() >> 11) * 0x1p-50 - 4.0);
  return v;
}

template <class H>
std::vector<float> widened(const std::vector<H>& x) {
  return std::vector<float>(x.begin(), x.end());
}

template <class H>
class HalfWht : public ::testing::Test {};
TYPED_TEST_SUITE(HalfWht, HalfTypes);

// A 16-bit WHT is the backend's float WHT of the widened input, rounded once: the converting
// path runs exactly that computation, so the bits must be equal (no tolerance).
TYPED_TEST(HalfWht, IsTheFloatTransformRoundedOnceOnEveryBackend) {
  using H = TypeParam;
  std::mt19937_64 rng(11);
  for (const Backend& b : every_backend())
    for (int n = 0; n <= 12; n += (n < 4 ? 1 : 4))
      for (Order order : kOrders)
        for (Normalization norm : kNorms) {
          const auto x = random_halves<H>(std::size_t{1} << n, rng);
          auto want = widened(x);
          WhtPlan<float>(n, {order, norm}, b).execute(want);
          auto got = x;
          WhtPlan<H>(n, {order, norm}, b).execute(got);
          for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_EQ(got[k].bits, H(want[k]).bits) << name_of(b) << " n=" << n << " " << to_string(order) << "/"
                                                    << to_string(norm) << " k=" << k;
        }
}

// wht.hpp: |ŷ − y| ≤ (n+2)·2^-24·s·Σ|x| + u₁₆·|ŷ| + ε₁₆ against the exact transform.
TYPED_TEST(HalfWht, StaysWithinTheDocumentedBound) {
  using H = TypeParam;
  const long double u16 = std::is_same_v<H, float16> ? 0x1p-11L : 0x1p-8L;
  const long double tiny = std::is_same_v<H, float16> ? 0x1p-25L : 0x1p-134L;
  std::mt19937_64 rng(12);
  for (int n = 0; n <= 10; ++n)
    for (Order order : kOrders) {
      const auto m = oracle::walsh_matrix(n, order);
      for (Normalization norm : kNorms) {
        auto x = random_halves<H>(std::size_t{1} << n, rng);
        const auto exact = oracle::transform(m, widened(x));
        const long double s = norm == Normalization::none      ? 1.0L
                              : norm == Normalization::inverse ? std::ldexp(1.0L, -n)
                                                               : 1.0L / std::sqrt(std::ldexp(1.0L, n));
        const long double float_part = (n + 2) * 0x1p-24L * s * oracle::l1(x);
        WhtPlan<H>(n, {order, norm}, Backend::cpu()).execute(x);
        for (std::size_t k = 0; k < x.size(); ++k) {
          const long double got = static_cast<float>(x[k]);
          ASSERT_LE(std::fabs(got - exact[k] * s), float_part + u16 * std::fabs(got) + tiny)
              << "n=" << n << " k=" << k;
        }
      }
    }
}

TYPED_TEST(HalfWht, BatchesWithARowStrideLeaveTheGapsAlone) {
  using H = TypeParam;
  std::mt19937_64 rng(13);
  for (const Backend& b : every_backend())
    // n = 18: four rows per block of the conversion to float, so six rows take two blocks.
    // n = 19: longer than the cpu backend's cache block (its fused kernel hands such rows on).
    // Rows back to back: 300 rows of 2^6 or 2^8 take runs of a whole scratch and a rest, the
    // second on two threads.
    for (auto [n, rows, gap] : {std::tuple{3, 7, 5}, std::tuple{10, 4, 1}, std::tuple{18, 6, 8}, std::tuple{19, 3, 2},
                                std::tuple{6, 300, 0}, std::tuple{8, 300, 0}})
     for (Order order : kOrders) {
      const std::size_t size = std::size_t{1} << n, stride = size + gap;
      const auto x = random_halves<H>((rows - 1) * stride + size, rng);
      const WhtOptions o{order, Normalization::orthonormal};
      auto got = x;
      fastconv::wht(got, rows, size, stride, o, b);
      for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
        std::vector<H> row(x.begin() + r * stride, x.begin() + r * stride + size);
        fastconv::wht(row, o, b);
        for (std::size_t k = 0; k < size; ++k)
          ASSERT_EQ(got[r * stride + k].bits, row[k].bits) << name_of(b) << " n=" << n << " row " << r << " k=" << k;
        if (r + 1 < static_cast<std::size_t>(rows)) {
          for (std::size_t k = size; k < stride; ++k)
            ASSERT_EQ(got[r * stride + k].bits, x[r * stride + k].bits) << "gap after row " << r;
        }
      }
    }
}

TEST(HalfWht, Float16ResultsBeyond65504AreInfinite) {
  std::vector<float16> x = {float16(60000.0f), float16(60000.0f)};
  fastconv::wht(x, {}, Backend::reference());
  EXPECT_EQ(static_cast<float>(x[0]), INFINITY);
  EXPECT_EQ(static_cast<float>(x[1]), 0.0f);
  // Computed in float: the same sum is finite once normalised.
  x = {float16(60000.0f), float16(60000.0f)};
  fastconv::wht(x, {Order::hadamard, Normalization::inverse});
  EXPECT_EQ(static_cast<float>(x[0]), 60000.0f);
}

TEST(HalfWht, DtypeNamesParse) {
  using fastconv::DType;
  EXPECT_EQ(fastconv::parse_dtype("float16"), DType::float16);
  EXPECT_EQ(fastconv::parse_dtype("f2"), DType::float16);
  EXPECT_EQ(fastconv::parse_dtype("half"), DType::float16);
  EXPECT_EQ(fastconv::parse_dtype("bfloat16"), DType::bfloat16);
  EXPECT_EQ(fastconv::parse_dtype("bf16"), DType::bfloat16);
  EXPECT_EQ(fastconv::to_string(DType::bfloat16), "bfloat16");
  EXPECT_EQ(fastconv::size_of(DType::float16), 2u);
  EXPECT_TRUE(fastconv::is_half_float(DType::bfloat16));
  EXPECT_FALSE(fastconv::is_half_float(DType::float32));
}

}  // namespace
