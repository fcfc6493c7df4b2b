// The distributed transforms against the single-process ones. Run under mpirun with 1, 2 and 4
// ranks (tests/CMakeLists.txt): every rank builds the same whole array from a fixed seed,
// computes the single-process result, and compares its own block of the distributed result
// with that block — bit for bit for integers, to rounding for floats.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <random>
#include <vector>

#include "fastconv/distributed.hpp"
#include "fastconv/dyadic.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::distributed {
namespace {

int rank_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}
int log2_ranks() { return std::countr_zero(static_cast<unsigned>(size_of())); }

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed, double magnitude = 100) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-magnitude, magnitude);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(std::is_integral_v<T> ? std::round(u(rng)) : u(rng));
  return v;
}

/// This rank's block of a whole array.
template <class T>
std::vector<T> block_of(const std::vector<T>& whole, MPI_Comm comm = MPI_COMM_WORLD) {
  const std::size_t m = whole.size() / static_cast<std::size_t>(size_of(comm));
  const auto first = whole.begin() + static_cast<std::ptrdiff_t>(m * static_cast<std::size_t>(rank_of(comm)));
  return {first, first + static_cast<std::ptrdiff_t>(m)};
}

/// Equal for integers; within a few units of rounding of the largest value for floats.
template <class T>
void expect_block_equal(const std::vector<T>& got, const std::vector<T>& whole_expected, const std::string& what) {
  const auto expected = block_of(whole_expected);
  ASSERT_EQ(got.size(), expected.size()) << what;
  if constexpr (std::is_integral_v<T>) {
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << what << " at " << i;
  } else {
    double largest = 0;
    for (const T v : whole_expected) largest = std::max(largest, std::abs(static_cast<double>(v)));
    const double eps = HalfFloat<T> ? (std::is_same_v<T, bfloat16> ? 0x1p-7 : 0x1p-10)
                                    : std::numeric_limits<T>::epsilon();
    const double tolerance = 64 * eps * std::max(largest, 1e-30);
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(expected[i]), tolerance) << what << " at " << i;
  }
}

template <class T>
class DistributedWht : public ::testing::Test {};
using TransformTypes = ::testing::Types<float, double, std::int32_t, std::int64_t, float16, bfloat16>;
TYPED_TEST_SUITE(DistributedWht, TransformTypes);

TYPED_TEST(DistributedWht, EqualsTheSingleProcessTransform) {
  using T = TypeParam;
  const int p = log2_ranks();
  for (const int n : {p, 2 * p - 1, 2 * p, 2 * p + 1, 11, 14}) {
    if (n < p || n < 0) continue;
    const auto whole = random_values<T>(std::size_t{1} << n, 17 + static_cast<unsigned>(n));
    for (const Order order : {Order::hadamard, Order::sequency, Order::paley})
      for (const Normalization norm : {Normalization::none, Normalization::orthonormal, Normalization::inverse})
        for (const Exchange exchange : {Exchange::pairwise, Exchange::alltoall, Exchange::auto_}) {
          if (exchange == Exchange::alltoall && n < 2 * p) continue;
          if (std::is_integral_v<T> && norm != Normalization::none) continue;  // not exact for random data
          const std::string what = "n=" + std::to_string(n) + " " + std::string(to_string(order)) + " " +
                                   std::string(to_string(norm)) + " " + std::string(to_string(exchange));
          auto expected = whole;
          fastconv::WhtPlan<T>(n, {order, norm}, Backend::cpu()).execute(std::span<T>(expected));
          auto got = block_of(whole);
          Options options;
          options.exchange = exchange;
          options.chunk_words = 8;  // many chunks: the overlapped pipeline of the pairwise exchange
          WhtPlan<T> plan(n, MPI_COMM_WORLD, {order, norm}, options);
          if (exchange != Exchange::auto_) {
            EXPECT_EQ(plan.exchange(), p == 0 ? Exchange::pairwise : exchange);
          }
          plan.execute(std::span<T>(got));
          expect_block_equal(got, expected, what);
        }
  }
}

TEST(DistributedWhtExact, WideResultsThatNormaliseBackIntoInt32) {
  // All 2^30: the transform is 2^(30+n) at 0 (outside int32), 0 elsewhere; inverse
  // normalisation brings it back to 2^30, exactly — through the 64-bit ring.
  const int n = std::max(6, 2 * log2_ranks());
  const std::vector<std::int32_t> whole(std::size_t{1} << n, 1 << 30);
  for (const Order order : {Order::hadamard, Order::paley}) {
    auto expected = whole;
    fastconv::WhtPlan<std::int32_t>(n, {order, Normalization::inverse}).execute(std::span(expected));
    auto got = block_of(whole);
    wht(std::span(got), MPI_COMM_WORLD, {order, Normalization::inverse});
    expect_block_equal(got, expected, "inverse");
    EXPECT_EQ(expected[0], 1 << 30);
  }
}

TEST(DistributedWhtExact, Int64ResultsPast64BitsAreComputedIn128) {
  const int n = std::max(8, 2 * log2_ranks());
  const std::vector<std::int64_t> whole(std::size_t{1} << n, std::int64_t{1} << 61);  // sums need 61 + n bits
  auto got = block_of(whole);
  auto expected = whole;
  fastconv::WhtPlan<std::int64_t>(n, {Order::sequency, Normalization::inverse}).execute(std::span(expected));
  wht(std::span(got), MPI_COMM_WORLD, {Order::sequency, Normalization::inverse});
  expect_block_equal(got, expected, "int64 wide");
}

TEST(DistributedWhtExact, OverflowIsAnErrorOnEveryRankAndLeavesTheDataAlone) {
  const int n = std::max(4, log2_ranks());
  const std::vector<std::int32_t> whole(std::size_t{1} << n, 1 << 30);
  auto got = block_of(whole);
  const auto before = got;
  try {
    wht(std::span(got), MPI_COMM_WORLD);
    ADD_FAILURE() << "no overflow reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
    EXPECT_NE(std::string(e.what()).find("element 0 = " + std::to_string(std::int64_t{1} << (30 + n))), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(got, before);
}

TEST(DistributedWhtExact, InexactNormalisationIsAnError) {
  const int n = std::max(3, log2_ranks());
  std::vector<std::int64_t> whole(std::size_t{1} << n, 0);
  whole[0] = 1;  // its WHT is all ones: 1/N of it is not an integer
  auto got = block_of(whole);
  try {
    wht(std::span(got), MPI_COMM_WORLD, {Order::hadamard, Normalization::inverse});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("is not divisible by"), std::string::npos) << e.what();
  }
}

template <class T>
class DistributedDyadic : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(DistributedDyadic, ElementTypes);

TYPED_TEST(DistributedDyadic, ConvolutionAndAutocorrelationEqualTheSingleProcessOnes) {
  using T = TypeParam;
  const int p = log2_ranks();
  for (const int n : {p, 2 * p - 1, 2 * p, 12}) {
    if (n < p || n < 0) continue;
    const auto f = random_values<T>(std::size_t{1} << n, 3 + static_cast<unsigned>(n));
    const auto g = random_values<T>(std::size_t{1} << n, 99 + static_cast<unsigned>(n));
    const auto conv = fastconv::convolve(f, g, Backend::cpu());
    const auto auto_ = fastconv::autocorrelate(f, Backend::cpu());
    for (const Exchange exchange : {Exchange::pairwise, Exchange::alltoall, Exchange::auto_}) {
      if (exchange == Exchange::alltoall && n < 2 * p) continue;
      Options options;
      options.exchange = exchange;
      options.chunk_words = 16;
      const std::string what = "n=" + std::to_string(n) + " " + std::string(to_string(exchange));
      const auto fb = block_of(f), gb = block_of(g);
      std::vector<T> out(fb.size());
      convolve(std::span<const T>(fb), std::span<const T>(gb), std::span<T>(out), MPI_COMM_WORLD, options);
      expect_block_equal(out, conv, "convolve " + what);
      autocorrelate(std::span<const T>(fb), std::span<T>(out), MPI_COMM_WORLD, options);
      expect_block_equal(out, auto_, "autocorrelate " + what);
      auto in_place = fb;  // out aliasing f
      convolve(std::span<const T>(in_place), std::span<const T>(gb), std::span<T>(in_place), MPI_COMM_WORLD, options);
      expect_block_equal(in_place, conv, "convolve in place " + what);
      auto into_g = gb;  // out aliasing g
      convolve(std::span<const T>(fb), std::span<const T>(into_g), std::span<T>(into_g), MPI_COMM_WORLD, options);
      expect_block_equal(into_g, conv, "convolve into g " + what);
    }
  }
}

TEST(DistributedDyadicExact, Int64ConvolutionNeedingThe128BitRing) {
  const int n = std::max(6, 2 * log2_ranks());
  const auto f = random_values<std::int64_t>(std::size_t{1} << n, 1, 0x1p40);
  const auto g = random_values<std::int64_t>(std::size_t{1} << n, 2, 0x1p14);
  const auto expected = fastconv::convolve(f, g, Backend::cpu());
  const auto fb = block_of(f), gb = block_of(g);
  std::vector<std::int64_t> out(fb.size());
  convolve(std::span<const std::int64_t>(fb), std::span<const std::int64_t>(gb), std::span(out), MPI_COMM_WORLD);
  expect_block_equal(out, expected, "int64 in the 128-bit ring");
}

TEST(DistributedDyadicExact, OverflowIsAnErrorOnEveryRank) {
  const int n = std::max(4, log2_ranks());
  const std::vector<std::int32_t> f(std::size_t{1} << n, 1 << 20);
  const auto fb = block_of(f);
  std::vector<std::int32_t> out(fb.size(), 7);
  try {
    autocorrelate(std::span<const std::int32_t>(fb), std::span(out), MPI_COMM_WORLD);
    ADD_FAILURE() << "no overflow reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow) << e.what();
  }
  EXPECT_EQ(out, std::vector<std::int32_t>(fb.size(), 7));
}

TEST(DistributedErrors, BlocksOfDifferentSizesAreAnErrorOnEveryRank) {
  if (size_of() == 1) GTEST_SKIP() << "needs 2 or more ranks";
  std::vector<double> f(rank_of() == 0 ? 8 : 16, 1.0), out(f.size());
  try {
    autocorrelate(std::span<const double>(f), std::span(out), MPI_COMM_WORLD);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("blocks differ in size"), std::string::npos) << e.what();
  }
  std::vector<float> block(8);
  EXPECT_THROW(WhtPlan<float>(20, MPI_COMM_WORLD).execute(std::span(block)), Error);
}

TEST(DistributedErrors, RanksThatDisagreeOnThePlanAreAnErrorOnEveryRank) {
  if (size_of() == 1) GTEST_SKIP() << "needs 2 or more ranks";
  const Order order = rank_of() == 1 ? Order::paley : Order::hadamard;
  try {
    WhtPlan<float> plan(12, MPI_COMM_WORLD, {order, Normalization::none});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("different sizes or options"), std::string::npos) << e.what();
  }
}

// Ranks that call different operations, or the same one on different element types, had waited
// in collective calls that did not match (int32 on one rank, float on another: the integers'
// bound takes collective steps of its own) or crashed in one (float and double words).
template <class Call>
void expect_disagreement(Call&& call, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << what;
    EXPECT_NE(std::string(e.what()).find("different sizes or options"), std::string::npos) << what << ": " << e.what();
  }
}

TEST(DistributedErrors, RanksThatMakeDifferentCallsAreAnErrorOnEveryRank) {
  if (size_of() == 1) GTEST_SKIP() << "needs 2 or more ranks";
  const bool odd = rank_of() % 2 == 1;
  std::vector<float> f(64, 1.0f), out(64);
  std::vector<std::int32_t> i(64, 1), i_out(64);
  std::vector<double> d(64, 1.0), d_out(64);
  expect_disagreement(
      [&] {
        if (odd) autocorrelate(std::span<const float>(f), std::span(out), MPI_COMM_WORLD);
        else convolve(std::span<const float>(f), std::span<const float>(f), std::span(out), MPI_COMM_WORLD);
      },
      "convolve beside autocorrelate");
  expect_disagreement(
      [&] {
        if (odd) autocorrelate(std::span<const std::int32_t>(i), std::span(i_out), MPI_COMM_WORLD);
        else autocorrelate(std::span<const float>(f), std::span(out), MPI_COMM_WORLD);
      },
      "int32 beside float");
  expect_disagreement(
      [&] {
        if (odd) wht(std::span(d), MPI_COMM_WORLD);
        else wht(std::span(f), MPI_COMM_WORLD);
      },
      "a double WHT beside a float one");
  expect_disagreement(
      [&] {
        if (odd) wht(std::span(f), MPI_COMM_WORLD);
        else autocorrelate(std::span<const float>(f), std::span(out), MPI_COMM_WORLD);
      },
      "a WHT beside an autocorrelation");
  // and the ranks go on together afterwards
  autocorrelate(std::span<const float>(f), std::span(out), MPI_COMM_WORLD);
  EXPECT_EQ(out[0], 64.0f * static_cast<float>(size_of()));
}

// float64 accumulation is an in-memory option: an unsupported Error on every rank for float data;
// double data are unaffected by it.
TEST(DistributedErrors, Float64AccumulationOfFloatDataIsUnsupported) {
  const WhtOptions wide{.accumulation = Accumulation::float64};
  try {
    WhtPlan<float> plan(12, MPI_COMM_WORLD, wide);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    const std::string message = "distributed WHT: float64 accumulation is not supported (the blocks are transformed in "
                                "their own type): convert the data to float64 instead";  // then " (rank r)" on several
    EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
  }
  EXPECT_THROW(WhtPlan<bfloat16>(12, MPI_COMM_WORLD, wide), Error);
  EXPECT_NO_THROW(WhtPlan<double>(12, MPI_COMM_WORLD, wide));
}

TEST(DistributedWhtExact, AnOverflowNamesAnOutputIndexOfItsOrder) {
  // x = (2^30, −2^30, 0, ...): the WHT is 2^31 (outside int32) at the odd natural indices, which
  // are outputs N/2 … in Paley and sequency order. One rank gives the single-process message;
  // several name their first failing output, in the order asked for.
  const int n = std::max(4, 2 * log2_ranks());
  std::vector<std::int32_t> whole(std::size_t{1} << n, 0);
  whole[0] = 1 << 30;
  whole[1] = -(1 << 30);
  for (const Order order : {Order::sequency, Order::paley}) {
    std::string single;
    try {
      auto copy = whole;
      fastconv::WhtPlan<std::int32_t>(n, {order, Normalization::none}).execute(std::span(copy));
    } catch (const Error& e) {
      single = e.what();
    }
    auto got = block_of(whole);
    try {
      wht(std::span(got), MPI_COMM_WORLD, {order, Normalization::none});
      ADD_FAILURE() << "no overflow reported";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::overflow);
      const std::string message = e.what();
      if (size_of() == 1) {
        EXPECT_EQ(message, single);
      }
      const auto at = message.find("output element ") + 15;
      const std::size_t k = std::stoull(message.substr(at));
      std::vector<std::int64_t> wide(whole.begin(), whole.end());  // the element named overflows, in this order
      fastconv::WhtPlan<std::int64_t>(n, {order, Normalization::none}).execute(std::span(wide));
      EXPECT_EQ(wide.at(k), std::int64_t{1} << 31) << message;
    }
  }
}

TEST(DistributedErrors, ANonPowerOfTwoNumberOfRanksIsAnError) {
  if (size_of() < 4) GTEST_SKIP() << "needs 4 ranks to make a communicator of 3";
  MPI_Comm three = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank_of() < 3 ? 0 : MPI_UNDEFINED, rank_of(), &three);
  if (three != MPI_COMM_NULL) {
    std::vector<float> block(4);
    try {
      wht(std::span(block), three);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("power-of-two number of ranks"), std::string::npos) << e.what();
    }
    MPI_Comm_free(&three);
  }
}

TEST(DistributedErrors, AlltoallNeedsPSquaredElements) {
  if (size_of() < 2) GTEST_SKIP() << "needs 2 or more ranks";
  Options options;
  options.exchange = Exchange::alltoall;
  EXPECT_THROW(WhtPlan<float>(2 * log2_ranks() - 1, MPI_COMM_WORLD, {}, options), Error);
}

TEST(DistributedExchange, TheCostModelPicksAlltoallForManyRanksAndBigBlocks) {
  const int p = log2_ranks();
  const WhtPlan<float> big(24, MPI_COMM_WORLD);
  EXPECT_EQ(big.exchange(), p >= 2 ? Exchange::alltoall : Exchange::pairwise);  // 2 transposes < p crossings
  Options slow_start;
  slow_start.latency_s = 1.0;  // latency dominates: fewer messages win
  const WhtPlan<float> latency_bound(24, MPI_COMM_WORLD, {}, slow_start);
  EXPECT_EQ(latency_bound.exchange(), Exchange::pairwise);
}

}  // namespace
}  // namespace fastconv::distributed

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) GTEST_FLAG_SET(brief, true);  // the other ranks print their failures only
  const int failed = RUN_ALL_TESTS();
  MPI_Finalize();
  return failed;
}
