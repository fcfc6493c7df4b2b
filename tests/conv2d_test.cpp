// tests/conv2d_test.cpp — every conv2d algorithm against the definition, written here as
// seven nested loops in long double with no code from the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fastconv/conv2d.hpp"
#include "nn/kernels.hpp"
#include "nn/lengths.hpp"
#include "nn/scaling.hpp"

namespace {

using fastconv::Conv2dAlgorithm;
using fastconv::Conv2dShape;
using fastconv::Padding;

/// The definition: out[n,k,i,j] = b[k] + Σ_c Σ_u Σ_v x[n,c,i+u−top,j+v−left] · w[k,c,u,v], and beside
/// it Σ|x||w| + |b|, the scale of the rounding error any algorithm may make.
struct Reference {
  std::vector<long double> value, scale;
};

template <class T>
Reference definition(const std::vector<T>& x, const std::vector<T>& w, const std::vector<T>& b, const Conv2dShape& s) {
  const long long H = static_cast<long long>(s.height), W = static_cast<long long>(s.width);
  const long long Oh = static_cast<long long>(H + s.padding.top + s.padding.bottom - s.kernel_height + 1);
  const long long Ow = static_cast<long long>(W + s.padding.left + s.padding.right - s.kernel_width + 1);
  const std::size_t C = s.channels, K = s.filters, Kh = s.kernel_height, Kw = s.kernel_width;
  Reference r{std::vector<long double>(s.batch * K * Oh * Ow), std::vector<long double>(s.batch * K * Oh * Ow)};
  for (std::size_t n = 0; n < s.batch; ++n)
    for (std::size_t k = 0; k < K; ++k)
      for (long long i = 0; i < Oh; ++i)
        for (long long j = 0; j < Ow; ++j) {
          long double sum = b.empty() ? 0 : b[k], scale = b.empty() ? 0 : std::fabs(b[k]);
          for (std::size_t c = 0; c < C; ++c)
            for (std::size_t u = 0; u < Kh; ++u)
              for (std::size_t v = 0; v < Kw; ++v) {
                const long long y = i + static_cast<long long>(u) - static_cast<long long>(s.padding.top);
                const long long z = j + static_cast<long long>(v) - static_cast<long long>(s.padding.left);
                if (y < 0 || y >= H || z < 0 || z >= W) continue;
                const long double xv = x[((n * C + c) * H + y) * W + z], wv = w[((k * C + c) * Kh + u) * Kw + v];
                sum += xv * wv;
                scale += std::fabs(xv * wv);
              }
          const std::size_t at = ((n * K + k) * Oh + i) * Ow + j;
          r.value[at] = sum;
          r.scale[at] = scale;
        }
  return r;
}

template <class T>
std::vector<T> random_values(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(count);
  for (auto& e : v) e = static_cast<T>(d(rng));
  return v;
}

/// Relative to Σ|x||w|: float's FFT algorithms round ~log2(L) times, u = 6e-8.
template <class T>
constexpr double kTolerance = sizeof(T) == 4 ? 2e-5 : 1e-12;

/// An FFT spreads its rounding over every coefficient: an output made of padding alone is
/// off by u·(the large outputs), not by u·0. Winograd's transforms mix the 6×6 inputs of a
/// tile with factors up to 8 and 1/24 in the filter transform, so its error scales with the
/// tile's values and is larger. These algorithms are held to the largest Σ|x||w| of the call
/// as well as their own.
bool spreads_error(Conv2dAlgorithm a) {
  return a == Conv2dAlgorithm::fft2d || a == Conv2dAlgorithm::polyhankel ||
         a == Conv2dAlgorithm::polyhankel_merged || a == Conv2dAlgorithm::winograd;
}

template <class T>
void expect_matches(const std::vector<T>& got, const Reference& want, const std::string& what, bool global = false) {
  ASSERT_EQ(got.size(), want.value.size()) << what;
  const long double floor = global ? *std::max_element(want.scale.begin(), want.scale.end()) : 0;
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const long double err = std::fabs(static_cast<long double>(got[i]) - want.value[i]);
    const long double bound = kTolerance<T> * (want.scale[i] + floor + 1e-30L);
    if (err > bound && reported++ < 5)
      ADD_FAILURE() << what << ": output " << i << " is " << got[i] << ", expected "
                    << static_cast<double>(want.value[i]) << " (error " << static_cast<double>(err) << " > "
                    << static_cast<double>(bound) << ")";
  }
}

std::string describe(const Conv2dShape& s, Conv2dAlgorithm a) {
  return std::string(fastconv::to_string(a)) + " N=" + std::to_string(s.batch) + " C=" + std::to_string(s.channels) +
         " " + std::to_string(s.height) + "x" + std::to_string(s.width) + " K=" + std::to_string(s.filters) + " " +
         std::to_string(s.kernel_height) + "x" + std::to_string(s.kernel_width) + " pad " +
         std::to_string(s.padding.top) + "," + std::to_string(s.padding.bottom) + "," +
         std::to_string(s.padding.left) + "," + std::to_string(s.padding.right);
}

template <class T>
void check_algorithm(const Conv2dShape& s, Conv2dAlgorithm a, std::mt19937_64& rng, bool with_bias = true) {
  const auto x = random_values<T>(s.input_size(), rng), w = random_values<T>(s.weight_size(), rng);
  const auto b = with_bias ? random_values<T>(s.filters, rng) : std::vector<T>{};
  const auto got = fastconv::conv2d<T>(x, w, b, s, a);
  expect_matches(got, definition(x, w, b, s), describe(s, a), spreads_error(a));
}

/// Shapes chosen to reach every edge: 1×1, 1×k and k×1 kernels, non-square images and kernels,
/// asymmetric padding, padding wider than the kernel (outputs larger than the input), a kernel
/// taller than the image (only the padding makes room), C and K from 1 to 64.
std::vector<Conv2dShape> edge_shapes() {
  return {
      {1, 1, 5, 5, 1, 3, 3, {}},
      {2, 3, 7, 9, 4, 3, 3, {1, 1, 1, 1}},
      {1, 2, 6, 11, 3, 1, 5, {0, 0, 2, 2}},
      {1, 2, 11, 6, 3, 5, 1, {2, 2, 0, 0}},
      {3, 4, 8, 5, 2, 2, 3, {0, 3, 1, 0}},
      {1, 1, 4, 4, 1, 3, 3, {4, 1, 0, 5}},
      {2, 2, 2, 3, 2, 5, 4, {3, 2, 2, 1}},
      {1, 5, 9, 9, 5, 1, 1, {}},
      {1, 1, 1, 1, 1, 1, 1, {}},
      {1, 1, 1, 1, 1, 3, 3, {1, 1, 1, 1}},
      {2, 64, 6, 7, 64, 3, 3, {1, 1, 1, 1}},
      {1, 64, 5, 5, 1, 2, 2, {}},
      {1, 1, 12, 10, 64, 3, 3, {0, 2, 2, 0}},
      {8, 3, 6, 6, 2, 3, 3, {1, 0, 0, 1}},
      {1, 3, 13, 17, 2, 7, 4, {3, 3, 0, 6}},
      // Rows wide enough for direct's whole register tiles (24 floats for 4 filters, 40 for 2,
      // 64 for 1), then tails of every vector count: 61 = 2·24 + 13, 44 = 24 + 20, 150 = 2·64 + 22.
      {2, 5, 7, 61, 6, 3, 3, {1, 1, 1, 1}},
      {1, 2, 5, 46, 3, 1, 3, {}},
      {3, 1, 4, 150, 1, 2, 7, {0, 1, 3, 3}},
      // Winograd's groups (24 float or 12 double tiles, 4 output columns each): a tile row of
      // 28 tiles split over groups, with a last tile cut by the right edge (111 columns); groups
      // that cross tile rows and images (4 tiles a row), 41 channels and a block of 1 filter.
      {2, 3, 9, 110, 5, 3, 3, {2, 1, 3, 0}},
      {3, 41, 10, 14, 9, 3, 3, {0, 1, 1, 1}},
  };
}

/// Random shapes: sizes up to 20, kernels up to 7 (3×3 half the time, so that winograd is
/// exercised), padding up to 6 on each side, batch 1–8, channels and filters 1–64 with small
/// ones favoured to keep the oracle quick.
std::vector<Conv2dShape> random_shapes(std::mt19937_64& rng, int count) {
  auto pick = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
  std::vector<Conv2dShape> shapes;
  while (static_cast<int>(shapes.size()) < count) {
    Conv2dShape s;
    s.batch = pick(1, 8);
    s.channels = pick(0, 3) == 0 ? pick(1, 64) : pick(1, 6);
    s.filters = pick(0, 3) == 0 ? pick(1, 64) : pick(1, 6);
    s.height = pick(1, 20);
    s.width = pick(1, 20);
    const bool three = pick(0, 1) == 0;
    s.kernel_height = three ? 3 : pick(1, 7);
    s.kernel_width = three ? 3 : pick(1, 7);
    s.padding = {pick(0, 6), pick(0, 6), pick(0, 6), pick(0, 6)};
    if (s.out_height() == 0 || s.out_width() == 0) continue;
    if (s.output_size() * s.channels * s.kernel_height * s.kernel_width > 1'500'000)
      continue;  // the oracle's cost
    shapes.push_back(s);
  }
  return shapes;
}

const std::vector<Conv2dAlgorithm> kAlgorithms = {Conv2dAlgorithm::direct,     Conv2dAlgorithm::im2col_gemm,
                                                  Conv2dAlgorithm::fft2d,      Conv2dAlgorithm::winograd,
                                                  Conv2dAlgorithm::polyhankel, Conv2dAlgorithm::polyhankel_merged};

class Conv2dAlgorithmTest : public ::testing::TestWithParam<Conv2dAlgorithm> {};

TEST_P(Conv2dAlgorithmTest, EdgeShapesFloatAndDouble) {
  std::mt19937_64 rng(1);
  for (const auto& s : edge_shapes()) {
    if (!fastconv::conv2d_supports(GetParam(), s)) continue;
    check_algorithm<float>(s, GetParam(), rng);
    check_algorithm<double>(s, GetParam(), rng, false);
  }
}

TEST_P(Conv2dAlgorithmTest, RandomShapesFloatAndDouble) {
  std::mt19937_64 rng(2);
  for (const auto& s : random_shapes(rng, 60)) {
    if (!fastconv::conv2d_supports(GetParam(), s)) continue;
    check_algorithm<float>(s, GetParam(), rng);
    check_algorithm<double>(s, GetParam(), rng);
  }
}

TEST_P(Conv2dAlgorithmTest, PlanExecutedTwiceOnDifferentInputs) {
  std::mt19937_64 rng(3);
  const Conv2dShape s{3, 5, 14, 11, 6, 3, 3, {1, 2, 0, 1}};
  const auto w = random_values<float>(s.weight_size(), rng), b = random_values<float>(s.filters, rng);
  fastconv::Conv2dPlan<float> plan(s, w, b, GetParam());
  EXPECT_EQ(plan.algorithm(), GetParam());
  for (int call = 0; call < 2; ++call) {
    const auto x = random_values<float>(s.input_size(), rng);
    std::vector<float> y(s.output_size(), 1e30f);  // garbage the plan must overwrite
    plan.execute(x, y);
    expect_matches(y, definition(x, w, b, s), describe(s, GetParam()) + " call " + std::to_string(call),
                   spreads_error(GetParam()));
  }
}

INSTANTIATE_TEST_SUITE_P(Conv2d, Conv2dAlgorithmTest, ::testing::ValuesIn(kAlgorithms),
                         [](const auto& info) { return std::string(fastconv::to_string(info.param)); });

TEST(Conv2dShapeTest, OutputExtentsAndSizes) {
  const Conv2dShape s{2, 3, 10, 7, 4, 3, 5, {1, 4, 0, 2}};
  EXPECT_EQ(s.out_height(), 13u);
  EXPECT_EQ(s.out_width(), 5u);
  EXPECT_EQ(s.input_size(), 2u * 3 * 10 * 7);
  EXPECT_EQ(s.weight_size(), 4u * 3 * 3 * 5);
  EXPECT_EQ(s.output_size(), 2u * 4 * 13 * 5);
}

TEST(Conv2dNamesTest, RoundTripAndAliases) {
  for (auto a : {Conv2dAlgorithm::auto_, Conv2dAlgorithm::direct, Conv2dAlgorithm::im2col_gemm,
                 Conv2dAlgorithm::fft2d, Conv2dAlgorithm::winograd, Conv2dAlgorithm::polyhankel,
                 Conv2dAlgorithm::polyhankel_merged})
    EXPECT_EQ(fastconv::parse_conv2d_algorithm(fastconv::to_string(a)), a);
  EXPECT_EQ(fastconv::parse_conv2d_algorithm("im2col-gemm"), Conv2dAlgorithm::im2col_gemm);
  EXPECT_EQ(fastconv::parse_conv2d_algorithm("polyhankel-merged"), Conv2dAlgorithm::polyhankel_merged);
  EXPECT_EQ(fastconv::parse_conv2d_algorithm("poly-hankel"), std::nullopt);
  EXPECT_EQ(fastconv::parse_conv2d_algorithm(""), std::nullopt);
}

template <class F>
void expect_error(F&& f, fastconv::ErrorCode code, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Conv2dErrorsTest, BadShapesAndSizes) {
  using fastconv::ErrorCode;
  const Conv2dShape s{1, 2, 5, 5, 3, 3, 3, {}};
  const std::vector<float> w(s.weight_size()), x(s.input_size()), b(s.filters);
  std::vector<float> y(s.output_size());
  Conv2dShape small = s;
  small.height = 2;  // 2 − 3 + 1 = 0 rows
  expect_error([&] { fastconv::Conv2dPlan<float>(small, w, b, Conv2dAlgorithm::direct); },
               ErrorCode::invalid_argument, "no output");
  Conv2dShape zero = s;
  zero.channels = 0;
  expect_error([&] { fastconv::Conv2dPlan<float>(zero, {}, {}); }, ErrorCode::invalid_argument, "zero dimension");
  expect_error([&] { fastconv::Conv2dPlan<float>(s, std::span(w).first(5), b); }, ErrorCode::invalid_argument,
               "weights");
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, std::span(b).first(2)); }, ErrorCode::invalid_argument,
               "bias");
  fastconv::Conv2dPlan<float> plan(s, w, b, Conv2dAlgorithm::direct);
  expect_error([&] { plan.execute(std::span(x).first(10), y); }, ErrorCode::invalid_argument, "input");
  std::vector<float> short_y(y.size() - 1);
  expect_error([&] { plan.execute(x, short_y); }, ErrorCode::invalid_argument, "output");
  // A one-off call with an impossible shape allocates nothing and reports the shape.
  expect_error([&] { fastconv::conv2d<float>(x, w, b, small); }, ErrorCode::invalid_argument, "no output");
}

// Found by fuzz_conv2d (tests/fuzz/regressions/conv2d/): a padding of 2^32 on every side made
// N*K*Oh*Ow wrap around 64 bits, and the plan then allocated 256 GiB for its sample input.
TEST(Conv2dErrorsTest, SizesThatOverflowAreRefused) {
  using fastconv::ErrorCode;
  Conv2dShape s{1, 2, 4, 4, 2, 3, 3, fastconv::Padding::same_all(std::size_t{1} << 32)};
  const std::vector<float> w(s.weight_size());
  expect_error([&] { s.validate(); }, ErrorCode::invalid_argument,
               "is too large: the size in bytes of the padded input, N*C*(H+top+bottom)*(W+left+right) values, "
               "overflows 64 bits");
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, {}); }, ErrorCode::invalid_argument, "is too large");
  s.padding = fastconv::Padding::same_all(std::numeric_limits<std::size_t>::max());
  expect_error([&] { s.validate(); }, ErrorCode::invalid_argument,
               "is too large: the padded height or width overflows 64 bits");
  s = {1, 1, 4, 4, std::size_t{1} << 30, 1, 1, {std::size_t{1} << 20, 0, std::size_t{1} << 20, 0}};  // 2^40 pixels
  expect_error([&] { s.validate(); }, ErrorCode::invalid_argument,
               "is too large: the size in bytes of the output, N*K*Oh*Ow values, overflows 64 bits");
  s = {1, std::size_t{1} << 31, 1, 1, std::size_t{1} << 31, 1, 1, {}};
  expect_error([&] { s.validate(); }, ErrorCode::invalid_argument,
               "is too large: the size in bytes of the K*C*Kh*Kw weights overflows 64 bits");
}

// Work that cannot fit is refused before anything large is allocated: `fastconv conv2d --padding 20000
// --algorithm fft2d` (2 filters on a 4x4 image, a 12.8 GB output) had been ended by the OOM
// killer after 33 s at 24 GB. So is an FFT longer than the library takes (FFTW counts in int):
// FFTW was handed the length cast to int. A plan only is made: nothing large is allocated.
TEST(Conv2dErrorsTest, WorkBeyondMemoryOrFftExtentsIsRefusedBeforeAllocating) {
  using fastconv::ErrorCode;
  // 2^21 + 4 padded rows and columns: terabytes of FFT work space, and of auto's sample output.
  const Conv2dShape huge{1, 1, 4, 4, 2, 3, 3, fastconv::Padding::same_all(std::size_t{1} << 20)};
  const std::vector<float> w(huge.weight_size());
  expect_error([&] { fastconv::Conv2dPlan<float>(huge, w, {}, Conv2dAlgorithm::fft2d); }, ErrorCode::out_of_memory,
               "conv2d fft2d: its work space for FFTs of ");
  // auto has no room to race: direct, whose work space is a few rows per thread, unmeasured.
  EXPECT_EQ(fastconv::Conv2dPlan<float>(huge, w, {}, Conv2dAlgorithm::auto_).algorithm(), Conv2dAlgorithm::direct);
  // PolyHankel's polynomial has about 2^40 terms, and 2^37 in the thinnest of its bands.
  for (const Conv2dAlgorithm algorithm : {Conv2dAlgorithm::polyhankel, Conv2dAlgorithm::polyhankel_merged})
    expect_error([&] { fastconv::Conv2dPlan<float>(huge, w, {}, algorithm); }, ErrorCode::unsupported,
                 "is beyond the FFT library's longest, 2147483647");
  // An output plane of 46341^2 > 2^31 - 1 pixels: beyond the int of OpenBLAS's GEMM row stride,
  // which had been cast to a negative int (the GEMM refused it and the output kept its bias).
  const Conv2dShape plane{1, 1, 46341, 46341, 1, 1, 1, {}};
  expect_error([&] { fastconv::Conv2dPlan<float>(plane, std::vector<float>{1.0f}, {}, Conv2dAlgorithm::im2col_gemm); },
               ErrorCode::unsupported, "Oh*Ow (pixels of an output plane) = 2147488281 is beyond the BLAS library's int");
  // One padded row of 2^31 + 4 points: a few GB, but beyond FFTW's int for either FFT algorithm.
  const Conv2dShape wide{1, 1, 1, 4, 1, 1, 1, {0, 0, std::size_t{1} << 31, 0}};
  const std::vector<float> one(1, 1.0f);
  for (const Conv2dAlgorithm algorithm :
       {Conv2dAlgorithm::fft2d, Conv2dAlgorithm::polyhankel, Conv2dAlgorithm::polyhankel_merged})
    expect_error([&] { fastconv::Conv2dPlan<float>(wide, one, {}, algorithm); }, ErrorCode::unsupported,
                 "points along one dimension is beyond the FFT library's longest, 2147483647");
}

// The one-off conv2d allocated its output before the plan checked the shape and the weights:
// a shape whose sizes overflow was a std::length_error, a wrong weight count std::bad_alloc.
TEST(Conv2dErrorsTest, OneOffConvolutionChecksBeforeAllocatingItsOutput) {
  using fastconv::ErrorCode;
  const std::vector<float> one(1, 1.0f);
  const Conv2dShape overflowing{std::size_t{1} << 62, 1, 1, 1, 1, 1, 1, {}};
  expect_error([&] { (void)fastconv::conv2d<float>({}, one, {}, overflowing, Conv2dAlgorithm::direct, 1); },
               ErrorCode::invalid_argument, "is too large");
  const Conv2dShape many{std::size_t{1} << 30, 1, 1, 1, std::size_t{1} << 30, 1, 1, {}};  // valid, 2^60 outputs
  expect_error([&] { (void)fastconv::conv2d<float>({}, one, {}, many, Conv2dAlgorithm::direct, 1); },
               ErrorCode::invalid_argument, "weights");
  // A plan that fits, for an output that does not: 2^21 + 2 rows and columns of 2 filters.
  const Conv2dShape huge{1, 1, 4, 4, 2, 3, 3, fastconv::Padding::same_all(std::size_t{1} << 20)};
  const std::vector<float> x(huge.input_size(), 1.0f), w(huge.weight_size(), 1.0f);
  expect_error([&] { (void)fastconv::conv2d<float>(x, w, {}, huge, Conv2dAlgorithm::direct, 1); },
               ErrorCode::out_of_memory, "conv2d: the output needs");
  expect_error([&] { (void)fastconv::conv2d<float>(one, w, {}, huge, Conv2dAlgorithm::direct, 1); },
               ErrorCode::invalid_argument, "conv2d: input has 1 values");
}

/// next_smooth against the definition: counting up from `at_least` to the first number with no
/// prime factor above 7 (even, when asked), and far out against a sorted list of every 7-smooth
/// number below 2^45, built by multiplying out from 1.
TEST(Conv2dLengthsTest, NextSmoothIsTheSmallestSevenSmoothNumberAtLeastTheRequest) {
  using fastconv::nn::next_smooth;
  const auto smooth = [](std::size_t n) {
    for (const std::size_t p : {2, 3, 5, 7})
      while (n % p == 0) n /= p;
    return n == 1;
  };
  for (std::size_t at_least = 0; at_least <= 20000; ++at_least)
    for (const bool even : {false, true}) {
      std::size_t n = std::max<std::size_t>(at_least, 1);
      while (!smooth(n) || (even && n % 2 == 1 && n > 1)) ++n;
      ASSERT_EQ(next_smooth(at_least, even), n) << at_least << (even ? ", even" : "");
    }
  std::vector<std::size_t> all{1};  // each once: its factors taken prime by prime
  for (const std::size_t p : {2, 3, 5, 7})
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] * p < (std::size_t{1} << 45)) all.push_back(all[i] * p);
  std::sort(all.begin(), all.end());
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t at_least = (std::size_t{1} << 20) + rng() % ((std::size_t{1} << 44) - (std::size_t{1} << 20));
    const std::size_t odd_or_even = *std::lower_bound(all.begin(), all.end(), at_least);
    EXPECT_EQ(next_smooth(at_least, false), odd_or_even) << at_least;
    const auto even = std::find_if(std::lower_bound(all.begin(), all.end(), at_least), all.end(),
                                   [](std::size_t n) { return n % 2 == 0; });
    EXPECT_EQ(next_smooth(at_least, true), *even) << at_least;
  }
  EXPECT_EQ(next_smooth(std::numeric_limits<std::size_t>::max(), false), std::numeric_limits<std::size_t>::max());
}

}  // namespace

namespace {

TEST(Conv2dAutoTest, ChoosesAnApplicableAlgorithmAndIsCorrect) {
  std::mt19937_64 rng(4);
  for (const Conv2dShape& s : {Conv2dShape{2, 4, 12, 9, 3, 3, 3, {1, 1, 1, 1}}, Conv2dShape{1, 2, 10, 10, 2, 5, 2, {}}}) {
    const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
    fastconv::Conv2dPlan<double> plan(s, w, {});
    EXPECT_NE(plan.algorithm(), Conv2dAlgorithm::auto_);
    EXPECT_TRUE(fastconv::conv2d_supports(plan.algorithm(), s));
    std::vector<double> y(s.output_size());
    plan.execute(x, y);
    expect_matches(y, definition(x, w, {}, s), describe(s, plan.algorithm()), spreads_error(plan.algorithm()));
    // The choice is cached: a second plan of the shape takes it without measuring.
    EXPECT_EQ(fastconv::Conv2dPlan<double>(s, w, {}).algorithm(), plan.algorithm());
  }
}

}  // namespace

namespace {

/// PolyHankel's cyclic length may be as short as polyhankel_min_length: check the bound at
/// exactly that length (odd ones included) on shapes where either padding term decides it.
TEST(Conv2dPolyHankelTest, ShortestCyclicLengthIsExact) {
  std::mt19937_64 rng(5);
  for (const Conv2dShape& s : {Conv2dShape{1, 2, 9, 7, 2, 3, 3, {}}, Conv2dShape{2, 2, 6, 8, 3, 3, 2, {4, 0, 1, 3}},
                               Conv2dShape{1, 1, 5, 5, 2, 4, 5, {0, 5, 6, 0}}, Conv2dShape{1, 3, 1, 1, 1, 3, 3, {2, 0, 2, 0}},
                               Conv2dShape{1, 1, 4, 9, 1, 1, 7, {0, 0, 3, 3}}}) {
    const std::size_t L = fastconv::nn::polyhankel_min_length(s);
    if (s.padding == Padding{}) {  // a valid convolution: H·W
      EXPECT_EQ(L, s.height * s.width);
    }
    const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
    const auto b = random_values<double>(s.filters, rng);
    const auto kernel = fastconv::nn::make_polyhankel<double>({s, w, b, 1}, L);
    std::vector<double> y(s.output_size());
    kernel->run(x.data(), y.data());
    expect_matches(y, definition(x, w, b, s), describe(s, Conv2dAlgorithm::polyhankel) + " L=" + std::to_string(L), true);
  }
}

/// Row bands (overlap-save): every band height, at the shortest length that the bands allow,
/// on shapes where bands start in the top padding, lie wholly in it (top 6 > Kh − 1 + rows),
/// end in the bottom padding, and where the kernel is taller than a band; one channel and one
/// filter over three images take the fused paths.
TEST(Conv2dPolyHankelTest, RowBandsAreExact) {
  std::mt19937_64 rng(6);
  for (const Conv2dShape& s : {Conv2dShape{2, 3, 11, 9, 2, 3, 3, {}}, Conv2dShape{1, 2, 7, 6, 3, 3, 2, {6, 4, 1, 2}},
                               Conv2dShape{3, 1, 9, 5, 2, 5, 4, {1, 0, 0, 3}}, Conv2dShape{1, 2, 4, 7, 1, 2, 3, {0, 5, 2, 0}},
                               Conv2dShape{3, 2, 8, 6, 1, 3, 2, {2, 1, 1, 0}}}) {
    const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
    const auto b = random_values<double>(s.filters, rng);
    const auto expected = definition(x, w, b, s);
    for (std::size_t rows = 1; rows <= s.out_height(); ++rows) {
      const std::size_t L = fastconv::nn::polyhankel_min_length(s, rows);
      EXPECT_LE(L, fastconv::nn::polyhankel_min_length(s)) << describe(s, Conv2dAlgorithm::polyhankel);
      const auto kernel = fastconv::nn::make_polyhankel<double>({s, w, b, 2}, L, rows);
      std::vector<double> y(s.output_size(), 1e30);
      kernel->run(x.data(), y.data());
      expect_matches(y, expected,
                     describe(s, Conv2dAlgorithm::polyhankel) + " bands of " + std::to_string(rows) + " rows, L=" +
                         std::to_string(L),
                     true);
    }
  }
}

/// auto gives the FFT algorithms' planning a deadline (kernels.hpp: PlanDeadline): polyhankel
/// stops at one that has passed, whether its choices are timed (the 200x200 image, L > 32 768,
/// chooses bands and lengths) or not, and so does fft2d (in its weight transforms); polyhankel
/// keeps nothing of a choice cut short: the same shapes planned afterwards with a deadline an
/// hour away match the definition.
TEST(Conv2dPolyHankelTest, PlanningStopsAtAPassedDeadlineAndKeepsNothing) {
  std::mt19937_64 rng(9);
  const fastconv::nn::PlanDeadline passed(std::chrono::steady_clock::duration::zero());
  for (const Conv2dShape& s : {Conv2dShape{1, 1, 200, 200, 2, 3, 3, {1, 1, 1, 1}}, Conv2dShape{1, 2, 9, 7, 2, 3, 3, {}}}) {
    const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
    const auto b = random_values<double>(s.filters, rng);
    EXPECT_THROW(fastconv::nn::make_polyhankel<double>({s, w, b, 2, &passed}), fastconv::nn::PlanDeadline::Passed)
        << describe(s, Conv2dAlgorithm::polyhankel);
    EXPECT_THROW(fastconv::nn::make_fft2d<double>({s, w, b, 2, &passed}), fastconv::nn::PlanDeadline::Passed)
        << describe(s, Conv2dAlgorithm::fft2d);
    const fastconv::nn::PlanDeadline later(std::chrono::hours(1));
    const auto kernel = fastconv::nn::make_polyhankel<double>({s, w, b, 2, &later});
    std::vector<double> y(s.output_size(), 1e30);
    kernel->run(x.data(), y.data());
    expect_matches(y, definition(x, w, b, s), describe(s, Conv2dAlgorithm::polyhankel), true);
  }
}

/// With one channel, or one filter and at least an image per thread, the FFT algorithms fuse
/// the channel sum into their transforms (spectral.hpp): check both fused paths and the shapes
/// beside them that take the blocked one, on 1–3 threads (more threads than images too), with
/// runs of planes that start mid-image.
TEST(Conv2dSpectralTest, FusedOneChannelAndOneFilterPathsAreExact) {
  std::mt19937_64 rng(8);
  const Conv2dShape shapes[] = {Conv2dShape{3, 1, 9, 7, 5, 3, 2, {1, 0, 2, 1}},   // C = 1
                                Conv2dShape{1, 1, 6, 11, 1, 4, 4, {2, 2, 0, 3}},  // C = K = 1, one image
                                Conv2dShape{4, 5, 8, 6, 1, 2, 3, {0, 1, 1, 0}},   // K = 1
                                Conv2dShape{1, 4, 7, 7, 1, 3, 3, {1, 1, 1, 1}}};  // K = 1, one image
  for (const Conv2dAlgorithm algorithm :
       {Conv2dAlgorithm::fft2d, Conv2dAlgorithm::polyhankel, Conv2dAlgorithm::polyhankel_merged})
    for (const Conv2dShape& s : shapes)
      for (int threads = 1; threads <= 3; ++threads) {
        const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
        const auto b = random_values<double>(s.filters, rng);
        std::vector<double> y(s.output_size(), 1e30);
        fastconv::Conv2dPlan<double>(s, w, b, algorithm, threads).execute(x, y);
        expect_matches(y, definition(x, w, b, s), describe(s, algorithm) + " threads=" + std::to_string(threads), true);
      }
}

/// As expect_matches with `global`, but each output plane (n, k) held to its own largest
/// Σ|x||w|: an FFT algorithm's rounding is on one plane's scale, not the whole call's.
template <class T>
void expect_matches_per_plane(const std::vector<T>& got, const Reference& want, const Conv2dShape& s,
                              const std::string& what) {
  ASSERT_EQ(got.size(), want.value.size()) << what;
  const std::size_t plane = s.out_height() * s.out_width();
  int reported = 0;
  for (std::size_t p = 0; p < got.size() / plane; ++p) {
    const auto first = want.scale.begin() + static_cast<std::ptrdiff_t>(p * plane);
    const long double floor = *std::max_element(first, first + static_cast<std::ptrdiff_t>(plane));
    for (std::size_t i = p * plane; i < (p + 1) * plane; ++i) {
      const long double err = std::fabs(static_cast<long double>(got[i]) - want.value[i]);
      const long double bound = kTolerance<T> * (want.scale[i] + floor) + std::numeric_limits<T>::denorm_min();
      if (!(err <= bound) && reported++ < 5)
        ADD_FAILURE() << what << ": output " << i << " (plane " << p << ") is " << got[i] << ", expected "
                      << static_cast<double>(want.value[i]) << " (error " << static_cast<double>(err) << " > "
                      << static_cast<double>(bound) << ")";
    }
  }
}

/// The FFT algorithms sum a whole plane (and the channel sum C of them) before any output is
/// formed: on unscaled values, float images of 3e37 overflowed to NaN and weights of 1e-44
/// divided by L underflowed to 0 where every output fits and direct gets it right. Each path
/// (one channel, one filter, the channel sum; polyhankel's bands) near both ends of the range.
/// Winograd's tile transforms too: they take an input tile's values up to 100× and hold
/// weights down to w/576, so float images of 1e37 gave inf and NaN, and weights of 1e-44 were
/// rounded to a few bits (+14 % on an output).
template <class T>
void check_extreme_range() {
  std::mt19937_64 rng(11);
  const bool is_float = sizeof(T) == 4;
  struct Scales {
    double x, w;
  };
  const Scales scales[] = {{is_float ? 3e37 : 1e306, 1.0},
                           {1.0, is_float ? 3e37 : 1e306},
                           {is_float ? 1e30 : 1e300, is_float ? 1e-44 : 1e-320},
                           {is_float ? 1e-44 : 1e-320, is_float ? 1e-2 : 1e-5},
                           {is_float ? 3e-39 : 1e-310, is_float ? 2e38 : 1e307}};
  const Conv2dShape shapes[] = {Conv2dShape{2, 1, 9, 7, 3, 3, 2, {1, 0, 2, 1}},     // C = 1
                                Conv2dShape{3, 4, 8, 6, 1, 2, 3, {0, 1, 1, 0}},     // K = 1
                                Conv2dShape{2, 3, 64, 64, 2, 3, 3, {1, 1, 1, 1}}};  // the channel sum
  for (const Conv2dAlgorithm algorithm : {Conv2dAlgorithm::fft2d, Conv2dAlgorithm::polyhankel,
                                          Conv2dAlgorithm::polyhankel_merged, Conv2dAlgorithm::winograd})
    for (const Conv2dShape& s : shapes)
      for (const Scales& scale : scales) {
        if (!fastconv::conv2d_supports(algorithm, s)) continue;  // winograd: 3×3 only
        auto x = random_values<T>(s.input_size(), rng), w = random_values<T>(s.weight_size(), rng);
        for (auto& v : x) v = static_cast<T>(v * scale.x);
        for (auto& v : w) v = static_cast<T>(v * scale.w);
        auto b = random_values<T>(s.filters, rng);
        for (auto& v : b) v = static_cast<T>(std::min(v * scale.x * scale.w, 1e300));
        char scaled[64];
        std::snprintf(scaled, sizeof scaled, " x·%g w·%g", scale.x, scale.w);
        const std::string what = describe(s, algorithm) + scaled;
        expect_matches(fastconv::conv2d<T>(x, w, b, s, algorithm), definition(x, w, b, s), what, true);
        // Polyhankel's row bands: the image's exponent is the whole input's, for every band.
        if (algorithm == Conv2dAlgorithm::polyhankel && s.height >= 8) {
          std::vector<T> y(s.output_size());
          fastconv::nn::make_polyhankel<T>({s, w, b, 1}, fastconv::nn::polyhankel_min_length(s, 3), 3)
              ->run(x.data(), y.data());
          expect_matches(y, definition(x, w, b, s), what + " bands of 3 rows", true);
        }
      }
}

TEST(Conv2dSpectralTest, ValuesNearTheEndsOfTheRangeMatchTheDefinition) {
  check_extreme_range<float>();
  check_extreme_range<double>();
}

/// Images and filters of very different sizes in one call: each gets its own scale, so that a
/// small one is not pushed to 0 beside a large one (one scale for all had given 0 for a filter
/// of 1e-30 beside one of 1e30, and for an image of 1e-60 beside one of 1e300), and a NaN in one
/// image leaves the others alone. Every plane is held to its own scale.
template <class T>
void check_spread_of_scales() {
  std::mt19937_64 rng(12);
  const bool is_float = sizeof(T) == 4;
  const double big = is_float ? 1e30 : 1e200, small = is_float ? 1e-30 : 1e-200;
  const double huge = is_float ? 3e37 : 1e300, tiny = is_float ? 1e-30 : 1e-60;
  const Conv2dShape shapes[] = {Conv2dShape{2, 1, 4, 4, 2, 3, 3, {1, 1, 1, 1}},    // C = 1
                                Conv2dShape{2, 3, 9, 7, 1, 2, 2, {0, 1, 1, 0}},    // K = 1
                                Conv2dShape{2, 3, 12, 10, 2, 3, 3, {1, 1, 1, 1}}}; // the channel sum
  for (const Conv2dAlgorithm algorithm : {Conv2dAlgorithm::fft2d, Conv2dAlgorithm::polyhankel,
                                          Conv2dAlgorithm::polyhankel_merged, Conv2dAlgorithm::winograd})
    for (const Conv2dShape& s : shapes) {
      if (!fastconv::conv2d_supports(algorithm, s)) continue;  // winograd: 3×3 only
      auto x = random_values<T>(s.input_size(), rng), w = random_values<T>(s.weight_size(), rng);
      const std::size_t image = s.channels * s.height * s.width;
      const std::size_t per_filter = s.channels * s.kernel_height * s.kernel_width;
      // Filter 0 large, the last small; image 0 huge, the last tiny.
      for (std::size_t i = 0; i < per_filter; ++i) {
        w[i] = static_cast<T>(w[i] * big);
        if (s.filters > 1) w[(s.filters - 1) * per_filter + i] = static_cast<T>(w[(s.filters - 1) * per_filter + i] * small);
      }
      for (std::size_t i = 0; i < image; ++i) {
        x[i] = static_cast<T>(x[i] * huge / big);
        x[(s.batch - 1) * image + i] = static_cast<T>(x[(s.batch - 1) * image + i] * tiny);
      }
      const std::vector<T> b;
      expect_matches_per_plane(fastconv::conv2d<T>(x, w, b, s, algorithm), definition(x, w, b, s), s,
                               describe(s, algorithm) + " spread");
      // A NaN in image 0: the other images' planes are as without it.
      auto with_nan = x;
      with_nan[3] = std::numeric_limits<T>::quiet_NaN();
      const auto got = fastconv::conv2d<T>(with_nan, w, b, s, algorithm);
      const std::size_t first = s.filters * s.out_height() * s.out_width();  // image 1's first output
      const auto want = definition(x, w, b, s);
      expect_matches_per_plane(std::vector<T>(got.begin() + static_cast<std::ptrdiff_t>(first), got.end()),
                               Reference{{want.value.begin() + static_cast<std::ptrdiff_t>(first), want.value.end()},
                                         {want.scale.begin() + static_cast<std::ptrdiff_t>(first), want.scale.end()}},
                               s, describe(s, algorithm) + " beside a NaN");
    }
}

}  // namespace

// The copies of the largest-magnitude scan that this build may hold (spectral_isa.cpp): weak, so
// that a build without one links, and its address is then null.
namespace fastconv::nn {
namespace isa_avx2 {
[[gnu::weak]] float largest_magnitude(const float* values, std::size_t n);
[[gnu::weak]] double largest_magnitude(const double* values, std::size_t n);
}  // namespace isa_avx2
namespace isa_avx512 {
[[gnu::weak]] float largest_magnitude(const float* values, std::size_t n);
[[gnu::weak]] double largest_magnitude(const double* values, std::size_t n);
}  // namespace isa_avx512
}  // namespace fastconv::nn

namespace {

/// Every copy of the scan this CPU runs, and the threaded one, against a plain loop: lengths
/// 0 … 70 and 3000 (every vector tail), the largest at every place, and ±0, subnormal, infinite
/// and NaN values (a NaN gives NaN, else an infinity gives infinity).
template <class T>
void check_largest_magnitude() {
  using Scan = T (*)(const T*, std::size_t);
  std::vector<std::pair<const char*, Scan>> scans = {{"base", &fastconv::nn::isa_base::largest_magnitude}};
#if defined(__x86_64__)
  if (Scan f = &fastconv::nn::isa_avx2::largest_magnitude; f != nullptr && fastconv::nn::has_avx2_fma())
    scans.emplace_back("avx2", f);
  if (Scan f = &fastconv::nn::isa_avx512::largest_magnitude; f != nullptr && fastconv::nn::has_avx512())
    scans.emplace_back("avx512", f);
#endif
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const T special[] = {T(-0.0), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN()};
  std::vector<std::size_t> lengths(71);
  std::iota(lengths.begin(), lengths.end(), std::size_t{0});
  lengths.push_back(3000);
  for (const std::size_t n : lengths)
    for (std::size_t place = 0; place < std::max<std::size_t>(n, 1); place += n > 70 ? 97 : 1)
      for (int kind = -1; kind < 4; ++kind) {
        std::vector<T> v(n);
        for (auto& e : v) e = static_cast<T>(d(rng));
        if (n > 0) v[place] = kind < 0 ? T(-3.5) : special[kind];
        T want = 0;
        bool nan = false;
        for (const T e : v) {
          nan = nan || std::isnan(e);
          want = std::max(want, std::fabs(e));
        }
        for (const auto& [name, scan] : scans) {
          const T got = scan(v.data(), v.size());
          if (nan) ASSERT_TRUE(std::isnan(got)) << name << " n=" << n << " at " << place;
          else ASSERT_EQ(got, want) << name << " n=" << n << " at " << place << " kind " << kind;
        }
      }
  std::vector<T> big(200'003);  // the threaded path: one value near the end
  for (auto& e : big) e = static_cast<T>(d(rng));
  big[199'999] = T(-42);
  EXPECT_EQ(fastconv::nn::largest_magnitude(big.data(), big.size(), 2), T(42));
  EXPECT_EQ(fastconv::nn::largest_magnitude(big.data(), big.size(), 1), T(42));
}

TEST(Conv2dSpectralTest, LargestMagnitudeScansMatchAPlainLoop) {
  check_largest_magnitude<float>();
  check_largest_magnitude<double>();
}

TEST(Conv2dSpectralTest, ImagesAndFiltersOfVeryDifferentSizesEachKeepTheirPrecision) {
  check_spread_of_scales<float>();
  check_spread_of_scales<double>();
}

/// Kernel spectra of 9 MB (K·C·L/2 complex floats): large enough for the plan to time bands.
TEST(Conv2dPolyHankelTest, PlanWithLargeSpectraMatchesTheDefinition) {
  std::mt19937_64 rng(7);
  const Conv2dShape s{1, 16, 96, 96, 16, 5, 5, {2, 1, 0, 2}};
  const auto x = random_values<float>(s.input_size(), rng), w = random_values<float>(s.weight_size(), rng);
  const auto b = random_values<float>(s.filters, rng);
  const auto got = fastconv::conv2d<float>(x, w, b, s, Conv2dAlgorithm::polyhankel);
  expect_matches(got, definition(x, w, b, s), describe(s, Conv2dAlgorithm::polyhankel), true);
}

TEST(Conv2dErrorsTest, WinogradIsForThreeByThreeOnly) {
  const Conv2dShape s{1, 1, 8, 8, 1, 5, 5, {}};
  const std::vector<float> w(s.weight_size());
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, {}, Conv2dAlgorithm::winograd); },
               fastconv::ErrorCode::unsupported, "3x3");
  EXPECT_FALSE(fastconv::conv2d_supports(Conv2dAlgorithm::winograd, s));
  EXPECT_NE(fastconv::Conv2dPlan<float>(s, w, {}).algorithm(), Conv2dAlgorithm::winograd);  // auto skips it
}

}  // namespace

// ---- backends ------------------------------------------------------------------------------------

namespace {

using fastconv::Backend;

TEST(Conv2dBackendTest, EachBackendListsWhatItComputes) {
  EXPECT_EQ(fastconv::conv2d_algorithms("cpu").size(), 7u);
  EXPECT_EQ(fastconv::conv2d_algorithms("reference"),
            (std::vector<Conv2dAlgorithm>{Conv2dAlgorithm::auto_, Conv2dAlgorithm::direct}));
  EXPECT_EQ(fastconv::conv2d_algorithms("cuda"),
            (std::vector<Conv2dAlgorithm>{Conv2dAlgorithm::auto_, Conv2dAlgorithm::polyhankel}));
  EXPECT_TRUE(fastconv::conv2d_algorithms("opencl").empty());
}

TEST(Conv2dBackendTest, ReferenceComputesDirectOnOneThread) {
  std::mt19937_64 rng(6);
  const Conv2dShape s{2, 3, 9, 8, 4, 3, 2, {1, 0, 2, 1}};
  const auto x = random_values<double>(s.input_size(), rng), w = random_values<double>(s.weight_size(), rng);
  const auto b = random_values<double>(s.filters, rng);
  const fastconv::Conv2dPlan<double> plan(s, w, b, Conv2dAlgorithm::auto_, Backend::reference());
  EXPECT_EQ(plan.algorithm(), Conv2dAlgorithm::direct);
  EXPECT_EQ(plan.backend().name(), "reference");
  std::vector<double> y(s.output_size());
  plan.execute(x, y);
  expect_matches(y, definition(x, w, b, s), "reference backend");
  expect_error([&] { fastconv::Conv2dPlan<double>(s, w, b, Conv2dAlgorithm::polyhankel, Backend::reference()); },
               fastconv::ErrorCode::unsupported, "the reference backend computes auto, direct, not polyhankel");
}

TEST(Conv2dBackendTest, CpuBackendTakesItsThreads) {
  std::mt19937_64 rng(7);
  const Conv2dShape s{3, 4, 10, 12, 5, 5, 3, {2, 2, 1, 1}};
  const auto x = random_values<float>(s.input_size(), rng), w = random_values<float>(s.weight_size(), rng);
  for (const int threads : {1, 2}) {
    const fastconv::Conv2dPlan<float> plan(s, w, {}, Conv2dAlgorithm::polyhankel, Backend::cpu(threads));
    EXPECT_EQ(plan.backend().name(), "cpu");
    std::vector<float> y(s.output_size());
    plan.execute(x, y);
    expect_matches(y, definition(x, w, {}, s), "cpu backend, " + std::to_string(threads) + " threads", true);
  }
  // The constructor that takes a thread count plans on a cpu backend.
  EXPECT_EQ(fastconv::Conv2dPlan<float>(s, w, {}, Conv2dAlgorithm::direct, 1).backend().name(), "cpu");
}

TEST(Conv2dBackendTest, HostPlansRefuseDeviceArrays) {
  const Conv2dShape s{1, 1, 4, 4, 1, 3, 3, {}};
  const std::vector<float> w(s.weight_size()), x(s.input_size());
  std::vector<float> y(s.output_size());
  const fastconv::Conv2dPlan<float> plan(s, w, {}, Conv2dAlgorithm::direct, Backend::cpu());
  expect_error([&] { plan.execute_device(x.data(), y.data()); }, fastconv::ErrorCode::unsupported,
               "execute_device needs a plan on the cuda backend, not on cpu");
}

TEST(Conv2dBackendTest, OpenClHasNoConv2d) {
  const Conv2dShape s{1, 1, 4, 4, 1, 3, 3, {}};
  const std::vector<float> w(s.weight_size());
  std::optional<Backend> opencl;
  try {
    opencl = Backend::opencl();
  } catch (const fastconv::Error& e) {
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, {}, Conv2dAlgorithm::auto_, *opencl); },
               fastconv::ErrorCode::unsupported, "the opencl backend does not compute conv2d");
}

/// The cuda backend, or a skip saying why there is none.
#define CUDA_BACKEND_OR_SKIP(name)                                                                       \
  std::optional<Backend> name;                                                                           \
  try {                                                                                                  \
    name = Backend::cuda();                                                                              \
  } catch (const fastconv::Error& e) {                                                                   \
    GTEST_SKIP() << "no CUDA device (conv2d's cuda kernels compile here, but did not run): " << e.what(); \
  }

TEST(Conv2dCudaTest, PolyHankelMatchesTheDefinitionOnEdgeAndRandomShapes) {
  CUDA_BACKEND_OR_SKIP(cuda);
  std::mt19937_64 rng(8);
  std::vector<Conv2dShape> shapes = edge_shapes();
  for (const auto& s : random_shapes(rng, 40)) shapes.push_back(s);
  for (const auto& s : shapes) {
    const auto x = random_values<float>(s.input_size(), rng), w = random_values<float>(s.weight_size(), rng);
    const auto b = random_values<float>(s.filters, rng);
    const auto y = fastconv::conv2d<float>(x, w, b, s, Conv2dAlgorithm::auto_, *cuda);
    expect_matches(y, definition(x, w, b, s), "cuda " + describe(s, Conv2dAlgorithm::polyhankel), true);
    const auto xd = random_values<double>(s.input_size(), rng), wd = random_values<double>(s.weight_size(), rng);
    const auto yd = fastconv::conv2d<double>(xd, wd, {}, s, Conv2dAlgorithm::polyhankel, *cuda);
    expect_matches(yd, definition(xd, wd, {}, s), "cuda double " + describe(s, Conv2dAlgorithm::polyhankel), true);
  }
}

TEST(Conv2dCudaTest, LargeShapeWithAMeasuredLengthAndAPlanRunTwice) {
  CUDA_BACKEND_OR_SKIP(cuda);
  std::mt19937_64 rng(9);
  const Conv2dShape s{4, 16, 56, 56, 16, 3, 3, {1, 1, 1, 1}};  // past the size where the length is timed
  const auto w = random_values<float>(s.weight_size(), rng), b = random_values<float>(s.filters, rng);
  const fastconv::Conv2dPlan<float> plan(s, w, b, Conv2dAlgorithm::auto_, *cuda);
  EXPECT_EQ(plan.algorithm(), Conv2dAlgorithm::polyhankel);
  for (int call = 0; call < 2; ++call) {
    const auto x = random_values<float>(s.input_size(), rng);
    std::vector<float> y(s.output_size(), 1e30f);
    plan.execute(x, y);
    expect_matches(y, definition(x, w, b, s), "cuda call " + std::to_string(call), true);
  }
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, b, Conv2dAlgorithm::winograd, *cuda); },
               fastconv::ErrorCode::unsupported, "the cuda backend computes auto, polyhankel, not winograd");
}

TEST(Conv2dCudaTest, TooManyFiltersForTheChannelSumAreRefusedWhenThePlanIsMade) {
  CUDA_BACKEND_OR_SKIP(cuda);
  const Conv2dShape s{1, 1, 1, 1, 8 * 65535 + 1, 1, 1, {}};  // one filter past the grid's 65535 layers of 8
  const std::vector<float> w(s.weight_size(), 1.0f);
  expect_error([&] { fastconv::Conv2dPlan<float>(s, w, {}, Conv2dAlgorithm::polyhankel, *cuda); },
               fastconv::ErrorCode::unsupported, "exceed the channel sum's grid");
}

}  // namespace
