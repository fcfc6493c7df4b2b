// WHT: every type × order × normalisation × backend against the O(N²) definition, the cpu
// backend (every instruction set) against the reference backend, identities, seed 001's
// examples, and exact integer overflow handling.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <thread>

#include "core/accumulation.hpp"
#include "cpu/backends.hpp"
#include "cpu/isa.hpp"
#include "fastconv/fastconv.hpp"
#include "oracle.hpp"

using fastconv::Accumulation;
using fastconv::Backend;
using fastconv::Normalization;
using fastconv::Order;
using fastconv::WhtOptions;
using fastconv::WhtPlan;

namespace {

constexpr Order kOrders[] = {Order::hadamard, Order::sequency, Order::paley};
constexpr Normalization kNorms[] = {Normalization::none, Normalization::orthonormal, Normalization::inverse};

std::vector<Backend> backends() { return {Backend::reference(), Backend::cpu(), Backend::cpu(1)}; }

long double scale_of(int n, Normalization norm) {
  const long double N = std::ldexp(1.0L, n);
  return norm == Normalization::none ? 1.0L : norm == Normalization::inverse ? 1.0L / N : 1.0L / std::sqrt(N);
}

template <class T>
class WhtDefinition : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(WhtDefinition, ElementTypes);

// Floats: |ŷ − y| ≤ n·u·‖x‖₁ (+ the rounding of the scale).
TYPED_TEST(WhtDefinition, FloatsMatchDefinitionWithinBound) {
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    std::mt19937_64 rng(1);
    for (int n = 0; n <= 10; ++n)
      for (Order order : kOrders) {
        const auto m = oracle::walsh_matrix(n, order);
        for (Normalization norm : kNorms)
          for (const Backend& b : backends()) {
            auto x = oracle::random_vector<T>(std::size_t{1} << n, rng);
            const auto want = oracle::transform(m, x);
            const long double s = scale_of(n, norm);
            const long double tol = (n + 2) * oracle::unit_roundoff<T>() * oracle::l1(x) * s;
            WhtPlan<T>(n, {order, norm}, b).execute(x);
            for (std::size_t k = 0; k < x.size(); ++k)
              ASSERT_LE(std::fabs(x[k] - want[k] * s), tol)
                  << "n=" << n << " order=" << to_string(order) << " norm=" << to_string(norm)
                  << " backend=" << b.name() << " k=" << k;
          }
      }
  }
}

// Integers: exact, for every normalisation that can be exact.
TYPED_TEST(WhtDefinition, IntegersMatchDefinitionExactly) {
  using T = TypeParam;
  if constexpr (std::is_integral_v<T>) {
    std::mt19937_64 rng(2);
    for (int n = 0; n <= 10; ++n)
      for (Order order : kOrders) {
        const auto m = oracle::walsh_matrix(n, order);
        for (const Backend& b : backends()) {
          auto x = oracle::random_vector<T>(std::size_t{1} << n, rng);
          const auto want = oracle::transform(m, x);
          WhtPlan<T>(n, {order, Normalization::none}, b).execute(x);
          for (std::size_t k = 0; k < x.size(); ++k)
            ASSERT_EQ(static_cast<oracle::i128>(x[k]), want[k]) << "n=" << n << " k=" << k << " " << b.name();

          // x now holds W·z for the random z = the original input: the inverse gives z back.
          std::vector<T> spectrum = x;
          WhtPlan<T>(n, {order, Normalization::inverse}, b).execute(spectrum);
          const auto z = oracle::transform(m, spectrum);  // W·z = N·(original x) … check via definition
          for (std::size_t k = 0; k < x.size(); ++k)
            ASSERT_EQ(z[k], static_cast<oracle::i128>(x[k])) << "inverse, n=" << n << " k=" << k;

          if (n % 2 == 0) {
            std::vector<T> ortho = x;  // W(W·z)/√N = √N·z
            WhtPlan<T>(n, {order, Normalization::orthonormal}, b).execute(ortho);
            for (std::size_t k = 0; k < x.size(); ++k)
              ASSERT_EQ(static_cast<oracle::i128>(ortho[k]) * (oracle::i128{1} << (n / 2)),
                        static_cast<oracle::i128>(spectrum[k]) << n);
          } else {
            EXPECT_THROW((WhtPlan<T>(n, {order, Normalization::orthonormal}, b)), fastconv::Error);
          }
        }
      }
  }
}

TEST(WhtInteger, InexactInverseIsAnErrorAndLeavesDataUntouched) {
  std::vector<std::int64_t> x = {1, 0, 1, 1};  // W·x = [3, 1, −1, 1]: not divisible by 4
  const auto copy = x;
  try {
    fastconv::wht(x, {Order::hadamard, Normalization::inverse});
    FAIL() << "expected an error";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("not divisible by 4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x, copy);
}

TEST(WhtInteger, Int32OverflowIsReportedNotWrapped) {
  std::vector<std::int32_t> x = {1 << 30, 1 << 30};  // y0 = 2^31
  const auto copy = x;
  try {
    fastconv::wht(x);
    FAIL() << "expected overflow";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::overflow);
    EXPECT_NE(std::string(e.what()).find("2147483648"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x, copy);
}

TEST(WhtInteger, LargeInputsWhoseResultsFitAreExact) {
  // max|x|·N exceeds the type, but every output fits: the wide path must get them exactly.
  std::vector<std::int32_t> a = {1 << 30, 0, 0, 0};
  fastconv::wht(a);
  EXPECT_EQ(a, (std::vector<std::int32_t>{1 << 30, 1 << 30, 1 << 30, 1 << 30}));

  const std::int64_t big = std::int64_t{1} << 62, min = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> b = {big, 0, 0, 0};
  fastconv::wht(b);
  EXPECT_EQ(b, (std::vector<std::int64_t>{big, big, big, big}));

  std::vector<std::int64_t> c = {min, 0};
  fastconv::wht(c);
  EXPECT_EQ(c, (std::vector<std::int64_t>{min, min}));

  std::vector<std::int64_t> d = {big, big};
  EXPECT_THROW(fastconv::wht(d), fastconv::Error);
  std::vector<std::int64_t> e = {min, 1};  // y1 = min − 1
  EXPECT_THROW(fastconv::wht(e), fastconv::Error);
}

TEST(WhtInteger, OverflowInABatchNamesTheRow) {
  std::vector<std::int32_t> x = {1, 2, 3, 4, 1 << 30, 1 << 30, 0, 0};
  const auto copy = x;
  try {
    fastconv::wht(x, 2, 4, 4);
    FAIL();
  } catch (const fastconv::Error& e) {
    EXPECT_NE(std::string(e.what()).find("of row 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x, copy);  // row 0, transformed in the ring before row 1 failed its check, is restored
  // Row 0 of a batch is named too (a lone vector's element is not given a row).
  std::vector<std::int32_t> y = {1 << 30, 1 << 30, 0, 0, 1, 2, 3, 4};
  try {
    fastconv::wht(y, 2, 4, 4);
    FAIL();
  } catch (const fastconv::Error& e) {
    EXPECT_NE(std::string(e.what()).find("output element 0 of row 0 = 2147483648"), std::string::npos) << e.what();
  }
  std::vector<std::int32_t> z = {1 << 30, 1 << 30};
  try {
    fastconv::wht(z);
    FAIL();
  } catch (const fastconv::Error& e) {
    EXPECT_NE(std::string(e.what()).find("output element 0 = 2147483648"), std::string::npos) << e.what();
  }
}

// The cpu backend checks |x| < 2^(bits − n) as it first reads each block (or row) and undoes
// what it did when one fails. A word just over that bound — first, in the middle or last,
// in the first or last row — sends the batch to the wide ring: results must still be the
// reference's, in every order, for arrays of one block and of many.
template <class T>
void expect_one_large_word_is_exact(int n, std::size_t rows, Order order) {
  const std::size_t size = std::size_t{1} << n;
  std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 7 + rows);
  const auto base = oracle::random_vector<T>(rows * size, rng, -1000, 1000);
  const T large = T{1} << (std::numeric_limits<T>::digits - n);  // results still fit T
  for (std::size_t at : {std::size_t{0}, size / 2, rows * size - 1}) {
    auto x = base;
    x[at] = (at % 2 == 0) ? large : static_cast<T>(-large);
    auto want = x;
    WhtPlan<T>(n, {order, Normalization::none}, Backend::reference()).execute(want, rows, size);
    WhtPlan<T>(n, {order, Normalization::none}, Backend::cpu()).execute(x, rows, size);
    ASSERT_EQ(x, want) << "n=" << n << " rows=" << rows << " at=" << at << " order=" << int(order);
  }
}

TEST(WhtInteger, OneWordBeyondTheRingsBoundIsExactInEveryOrder) {
  for (Order order : {Order::hadamard, Order::paley, Order::sequency})
    for (auto [n, rows] : {std::pair{3, 1}, {10, 3}, {14, 4}, {18, 1}, {19, 2}}) {
      expect_one_large_word_is_exact<std::int32_t>(n, rows, order);
      expect_one_large_word_is_exact<std::int64_t>(n, rows, order);
    }
}

// The cpu backend on every instruction set this CPU has, against the reference backend.
template <class T>
void expect_cpu_matches_reference(int n, std::size_t rows, std::size_t stride, Order order, std::uint64_t seed,
                                  std::size_t past_line = 0) {
  std::mt19937_64 rng(seed);
  const auto x = oracle::random_vector<T>(rows * stride, rng, -1000, 1000);
  auto want = x;
  WhtPlan<T>(n, {order, Normalization::none}, Backend::reference()).execute(want, rows, stride);
  // The cpu backend's data `past_line` bytes past a 64-byte line (a multiple of the word).
  std::vector<T> storage(x.size() + 64 / sizeof(T) + 1);
  std::size_t first = 0;
  while ((reinterpret_cast<std::uintptr_t>(storage.data() + first) + 64 - past_line) % 64 != 0) ++first;
  const std::span<T> got(storage.data() + first, x.size());
  std::copy(x.begin(), x.end(), got.begin());
  WhtPlan<T>(n, {order, Normalization::none}, Backend::cpu()).execute(got, rows, stride);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if constexpr (std::is_integral_v<T>) {
      ASSERT_EQ(got[i], want[i]) << "n=" << n << " i=" << i << " " << past_line << " bytes past a line";
    } else {
      const double tol = 2 * (n + 1) * oracle::unit_roundoff<T>() * 1.0 * static_cast<double>(std::size_t{1} << n);
      ASSERT_NEAR(got[i], want[i], tol) << "n=" << n << " i=" << i << " " << past_line << " bytes past a line";
    }
  }
}

template <class T>
class WhtLarge : public ::testing::Test {};
TYPED_TEST_SUITE(WhtLarge, ElementTypes);

TYPED_TEST(WhtLarge, CpuMatchesReferenceOnRandomSizes) {
  std::mt19937_64 rng(3);
  for (int n : {11, 13, 15, 16, 17, 19, 21}) {
    const Order order = kOrders[rng() % 3];
    expect_cpu_matches_reference<TypeParam>(n, 1, std::size_t{1} << n, order, rng());
  }
}

// Every order at sizes around the reordering's tile thresholds (2^4 … 2^8 words: tiles of
// L × L words) and at 16 MiB (kStreamedReorderBytes), from where a row aligned to 64 bytes
// takes the fused sweep with streamed stores and any other row is transformed in place and
// reordered through the scratch; both, and a row half a vector off, in cache.
TYPED_TEST(WhtLarge, CpuReordersLikeTheReference) {
  std::mt19937_64 rng(5);
  const int streamed = std::countr_zero((std::size_t{16} << 20) / sizeof(TypeParam));
  for (Order order : kOrders) {
    for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 18})
      expect_cpu_matches_reference<TypeParam>(n, 1, std::size_t{1} << n, order, rng(), n % 2 == 0 ? 0 : 32);
    for (const std::size_t past_line : {std::size_t{0}, sizeof(TypeParam)})
      expect_cpu_matches_reference<TypeParam>(streamed, 1, std::size_t{1} << streamed, order, rng(), past_line);
  }
}

TYPED_TEST(WhtLarge, CpuMatchesReferenceOnBatches) {
  std::mt19937_64 rng(4);
  struct Shape { int n; std::size_t rows, pad; };
  for (const Shape s : {Shape{0, 5, 1}, Shape{3, 7, 0}, Shape{4, 33, 3}, Shape{10, 64, 16}, Shape{12, 9, 5},
                        Shape{17, 3, 8}}) {
    const Order order = kOrders[rng() % 3];
    expect_cpu_matches_reference<TypeParam>(s.n, s.rows, (std::size_t{1} << s.n) + s.pad, order, rng());
  }
}

TEST(WhtIsa, EveryInstructionSetMatchesTheReference) {
  const auto reference = fastconv::cpu::make_reference_backend();
  std::mt19937_64 rng(5);
  for (const auto* isa : fastconv::cpu::supported_isas()) {
    const auto cpu = fastconv::cpu::make_cpu_backend(2, *isa);
    for (int n : {0, 1, 2, 3, 4, 5, 9, 14, 16, 17, 20}) {
      auto x = oracle::random_vector<std::int64_t>(std::size_t{1} << n, rng, -1000, 1000);
      // Integer-valued data of this size are transformed exactly in every word type.
      auto check = [&]<class W>() {
        std::vector<W> a(x.size()), b(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) a[i] = b[i] = static_cast<W>(x[i]);
        reference->make_wht(n, fastconv::detail::word_of<W>, Order::sequency)->execute(a.data(), 1, a.size(), 1.0);
        cpu->make_wht(n, fastconv::detail::word_of<W>, Order::sequency)->execute(b.data(), 1, b.size(), 1.0);
        ASSERT_TRUE(a == b) << isa->name << " n=" << n << " word size " << sizeof(W);
      };
      check.template operator()<float>();
      check.template operator()<double>();
      check.template operator()<std::uint32_t>();
      check.template operator()<std::uint64_t>();
      check.template operator()<fastconv::detail::u128>();
    }
  }
}

// Short rows back to back go to the kernels a leaf's worth of rows at a time, shared out by
// contiguous runs of rows (one per thread from 2^15 words on); rows with gaps (pad > 0) are
// packed into a buffer first: every team, every order and normalisation, row counts that do
// not divide evenly, against the reference backend.
TYPED_TEST(WhtLarge, ShortRowsMatchTheReferenceOnEveryTeam) {
  using T = TypeParam;
  std::mt19937_64 rng(6);
  for (int n : {0, 1, 2, 3, 4, 5, 8, 11, 13})
    for (std::size_t rows : {std::size_t{3}, ((std::size_t{1} << 16) >> n) + 3})
      for (std::size_t pad : {0, 3}) {
        const std::size_t size = std::size_t{1} << n, stride = size + pad;
        const auto x = oracle::random_vector<T>(rows * stride, rng, -1000, 1000);
        for (Order order : kOrders)
          for (Normalization norm : kNorms) {
            if (std::is_integral_v<T> && norm != Normalization::none) continue;  // random data: not divisible
            auto want = x;
            WhtPlan<T>(n, {order, norm}, Backend::reference()).execute(want, rows, stride);
            for (int threads : {1, 2, 3}) {
              auto got = x;
              WhtPlan<T>(n, {order, norm}, Backend::cpu(threads)).execute(got, rows, stride);
              for (std::size_t i = 0; i < got.size(); ++i) {
                if constexpr (std::is_integral_v<T>) {
                  ASSERT_EQ(got[i], want[i]) << "n=" << n << " rows=" << rows << " pad=" << pad << " threads=" << threads
                                             << " i=" << i;
                } else {
                  const double tol = 2 * (n + 1) * oracle::unit_roundoff<T>() * 1000.0 * static_cast<double>(size);
                  ASSERT_NEAR(got[i], want[i], tol) << "n=" << n << " rows=" << rows << " pad=" << pad << " threads=" << threads
                                                    << " i=" << i;
                }
              }
            }
          }
      }
}

// One word over the ring's bound in a batch of short rows shared by a team: the other
// threads' runs, already transformed, are restored and the batch goes to the wide ring.
// Short rows back to back, and with gaps (packed through a buffer a run at a time): a word
// over the bound in the first, a middle or the last row of a team's batch, in natural and
// sequency order; the rows done before it are restored exactly, the gaps left alone.
TEST(WhtInteger, OneWordBeyondTheBoundInATeamsBatchIsExact) {
  for (int threads : {1, 2, 3})
    for (int n : {2, 6})
      for (std::size_t pad : {0, 5})
        for (Order order : {Order::hadamard, Order::sequency})
          for (std::size_t at_row : {std::size_t{0}, std::size_t{5000}, std::size_t{9999}}) {
            const std::size_t size = std::size_t{1} << n, rows = 10000, stride = size + pad;
            std::mt19937_64 rng(static_cast<std::uint64_t>(at_row) + n);
            auto x = oracle::random_vector<std::int32_t>(rows * stride, rng, -1000, 1000);
            x[at_row * stride + 1] = std::int32_t{1} << (31 - n);  // every result still fits int32
            auto want = x;
            WhtPlan<std::int32_t>(n, {order}, Backend::reference()).execute(want, rows, stride);
            WhtPlan<std::int32_t>(n, {order}, Backend::cpu(threads)).execute(x, rows, stride);
            ASSERT_EQ(x, want) << "threads=" << threads << " n=" << n << " pad=" << pad << " order=" << int(order)
                               << " row " << at_row;
          }
}

TEST(WhtIdentities, TransformTwiceIsNTimesIdentity) {
  std::mt19937_64 rng(6);
  for (Order order : kOrders) {
    auto x = oracle::random_vector<std::int64_t>(1 << 12, rng);
    auto y = x;
    WhtPlan<std::int64_t> plan(12, {order});
    plan.execute(y);
    plan.execute(y);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] * 4096);
  }
}

TEST(WhtIdentities, Parseval) {
  std::mt19937_64 rng(7);
  auto x = oracle::random_vector<std::int64_t>(1 << 14, rng);
  auto y = x;
  fastconv::wht(y, {Order::sequency});
  oracle::i128 ex = 0, ey = 0;
  for (auto v : x) ex += static_cast<oracle::i128>(v) * v;
  for (auto v : y) ey += static_cast<oracle::i128>(v) * v;
  EXPECT_TRUE(ey == ex * (1 << 14));

  auto d = oracle::random_vector<double>(1 << 14, rng);
  const long double before = oracle::l2(d);
  fastconv::wht(d, {Order::paley, Normalization::orthonormal});
  EXPECT_NEAR(static_cast<double>(oracle::l2(d)), static_cast<double>(before), 1e-12 * static_cast<double>(before));
}

TEST(WhtIdentities, SequencyRowKHasKSignChanges) {
  for (int n = 0; n <= 8; ++n) {
    const std::size_t N = std::size_t{1} << n;
    std::vector<std::vector<int>> rows(N, std::vector<int>(N));
    for (std::size_t x = 0; x < N; ++x) {  // column x of the matrix = transform of the unit vector e_x
      std::vector<std::int32_t> e(N, 0);
      e[x] = 1;
      fastconv::wht(e, {Order::sequency});
      for (std::size_t k = 0; k < N; ++k) rows[k][x] = e[k];
    }
    for (std::size_t k = 0; k < N; ++k) ASSERT_EQ(oracle::sign_changes(rows[k]), static_cast<int>(k)) << n;
  }
}

TEST(WhtIdentities, OrderedMatricesAreSymmetric) {
  for (Order order : kOrders) {
    const std::size_t N = 64;
    std::vector<std::int32_t> m(N * N, 0);
    for (std::size_t x = 0; x < N; ++x) m[x * N + x] = 1;
    fastconv::wht(m, N, N, N, {order});  // row x = transform of e_x = column x of the matrix
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) ASSERT_EQ(m[i * N + j], m[j * N + i]) << to_string(order);
  }
}

// Seed 001, Examples 1 and 2: F = [1, 0, 1, 1] has the Walsh spectrum [3, 1, −1, 1].
TEST(WhtSeed001, Examples1And2) {
  for (const Backend& b : backends()) {
    std::vector<std::int64_t> f = {1, 0, 1, 1};
    fastconv::wht(f, {}, b);
    EXPECT_EQ(f, (std::vector<std::int64_t>{3, 1, -1, 1})) << b.name();
    std::vector<float> ff = {1, 0, 1, 1};
    fastconv::wht(ff, {}, b);
    EXPECT_EQ(ff, (std::vector<float>{3, 1, -1, 1})) << b.name();
  }
}

TEST(WhtFloat, ErrorBoundHoldsAtLargeSizes) {
  std::mt19937_64 rng(8);
  for (int n : {16, 20}) {
    auto x = oracle::random_vector<float>(std::size_t{1} << n, rng);
    std::vector<double> exact(x.begin(), x.end());  // float inputs, double sums: exact to 2^-53·N·max
    fastconv::wht(exact);
    fastconv::wht(x);
    const double bound = n * oracle::unit_roundoff<float>() * static_cast<double>(oracle::l1(x));
    for (std::size_t k = 0; k < x.size(); ++k) ASSERT_LE(std::fabs(x[k] - exact[k]), bound) << k;
  }
}

TEST(WhtPlanErrors, WrongSizesAreRejected) {
  std::vector<float> x(6);
  EXPECT_THROW(fastconv::wht(x), fastconv::Error);
  std::vector<float> y(8);
  EXPECT_THROW(WhtPlan<float>(2).execute(y), fastconv::Error);
  EXPECT_THROW(WhtPlan<float>(2).execute(y, 3, 4), fastconv::Error);  // needs 12 elements
  EXPECT_THROW(WhtPlan<float>(2).execute(y, 2, 3), fastconv::Error);  // stride < row length
  EXPECT_THROW(WhtPlan<float>(-1), fastconv::Error);
  EXPECT_THROW(Backend::from_name("gpu"), fastconv::Error);
}

TEST(WhtThreads, OneAndTwoThreadsAgreeExactly) {
  std::mt19937_64 rng(9);
  auto x = oracle::random_vector<float>(std::size_t{1} << 22, rng);
  auto a = x, b = x;
  fastconv::wht(a, {}, Backend::cpu(1));
  fastconv::wht(b, {}, Backend::cpu(2));
  EXPECT_TRUE(a == b);
}

// --- Accumulation::float64 ------------------------------------------------------------------

/// Every backend this build has a device for: reference, cpu (1 and 2 threads), opencl's variants.
std::vector<Backend> every_backend() {
  std::vector<Backend> out = {Backend::reference(), Backend::cpu(1), Backend::cpu(2)};
  for (const auto& d : fastconv::devices())
    if (d.backend == "opencl" && d.fp64) {
      for (const auto& v : Backend::variants_of("opencl")) out.push_back(Backend::opencl(v));
      break;
    }
  return out;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// The double transform of `x` widened, each result rounded once to T: computed independently
/// of the option, by a double plan on a double copy.
template <class T>
std::vector<T> double_rounded_once(const std::vector<T>& x, int n, WhtOptions options, const Backend& b,
                                   std::size_t rows = 1) {
  std::vector<double> wide(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) wide[i] = static_cast<double>(static_cast<float>(x[i]));
  WhtPlan<double>(n, {options.order, options.normalization}, b).execute(wide, rows, std::size_t{1} << n);
  std::vector<T> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = T(wide[i]);
  return out;
}

template <class T>
class WhtAccumulation : public ::testing::Test {};
using AccumulatedTypes = ::testing::Types<float, fastconv::float16, fastconv::bfloat16>;
TYPED_TEST_SUITE(WhtAccumulation, AccumulatedTypes);

// Bitwise: the float (or 16-bit) plan with float64 accumulation is the double plan on the
// widened data, each result rounded once — on every backend, order and normalisation, in batches.
TYPED_TEST(WhtAccumulation, IsTheDoubleTransformRoundedOnce) {
  using T = TypeParam;
  std::mt19937_64 rng(21);
  for (const Backend& b : every_backend())
    for (int n : {0, 1, 3, 6, 9, 12})
      for (Order order : kOrders)
        for (Normalization norm : kNorms) {
          const std::size_t rows = n <= 9 ? 3 : 1, size = std::size_t{1} << n;
          const auto values = oracle::random_vector<float>(rows * size, rng);
          std::vector<T> x(values.begin(), values.end());
          if constexpr (!std::is_same_v<T, float>)
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = T(values[i] * 100.0f);  // 16-bit: rounded inputs
          const WhtOptions options{order, norm, Accumulation::float64};
          const auto want = double_rounded_once(x, n, options, b, rows);
          WhtPlan<T>(n, options, b).execute(x, rows, size);
          ASSERT_TRUE(same_bits(x, want)) << "n=" << n << " order=" << to_string(order)
                                          << " norm=" << to_string(norm) << " backend=" << b.name() << " "
                                          << b.variant();
        }
}

// Against the O(N²) definition in long double: |ŷ − s·y| ≤ u_T·|s·y| + (n+3)·2^-53·s·‖x‖₁, plus the
// oracle's own rounding (N·2^-63·s·‖x‖₁) and, for 16-bit types, half the subnormal spacing.
TYPED_TEST(WhtAccumulation, StaysWithinTheTighterBound) {
  using T = TypeParam;
  const long double u_t = std::is_same_v<T, float>               ? 0x1p-24L
                          : std::is_same_v<T, fastconv::float16> ? 0x1p-11L
                                                                 : 0x1p-8L;
  const long double subnormal = std::is_same_v<T, fastconv::float16> ? 0x1p-25L : 0x1p-134L;
  std::mt19937_64 rng(22);
  for (int n = 0; n <= 10; ++n)
    for (Order order : kOrders) {
      const auto m = oracle::walsh_matrix(n, order);
      for (Normalization norm : kNorms) {
        const auto values = oracle::random_vector<float>(std::size_t{1} << n, rng);
        std::vector<T> x(values.begin(), values.end());
        std::vector<long double> wide(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) wide[i] = static_cast<float>(x[i]);
        const auto want = oracle::transform(m, wide);
        const long double s = scale_of(n, norm), l1 = oracle::l1(wide);
        WhtPlan<T>(n, {order, norm, Accumulation::float64}, Backend::cpu()).execute(x);
        for (std::size_t k = 0; k < x.size(); ++k) {
          const long double exact = want[k] * s;
          const long double tol = u_t * std::fabs(exact) + (n + 3) * 0x1p-53L * s * l1 +
                                  std::ldexp(1.0L, n - 63) * s * l1 + subnormal;
          ASSERT_LE(std::fabs(static_cast<float>(x[k]) - exact), tol)
              << "n=" << n << " order=" << to_string(order) << " norm=" << to_string(norm) << " k=" << k;
        }
      }
    }
}

// Integer-valued floats whose transform is exact in double: float64 accumulation gives the exact
// (int64) result correctly rounded, where the float transform rounds at every stage.
TEST(WhtAccumulationFloat, IntegerValuedDataAreCorrectlyRounded) {
  constexpr int n = 20;
  std::mt19937_64 rng(23);
  const auto ints = oracle::random_vector<std::int64_t>(std::size_t{1} << n, rng, -(1 << 20), 1 << 20);
  std::vector<float> x(ints.begin(), ints.end()), native = x;  // |x| ≤ 2^20: exact in float
  auto exact = ints;
  fastconv::wht(exact);
  fastconv::wht(x, {.accumulation = Accumulation::float64});
  fastconv::wht(native);
  std::size_t differ = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    ASSERT_EQ(x[k], static_cast<float>(exact[k])) << k;
    differ += native[k] != x[k];
  }
  EXPECT_GT(differ, x.size() / 2) << "the float transform should round |y| up to 2^40 at every stage";
}

// Double and integer data are computed as before.
TEST(WhtAccumulationFloat, DoubleAndIntegerDataAreUnaffected) {
  std::mt19937_64 rng(24);
  auto d = oracle::random_vector<double>(1 << 12, rng), d_native = d;
  fastconv::wht(d, {.normalization = Normalization::orthonormal, .accumulation = Accumulation::float64});
  fastconv::wht(d_native, {.normalization = Normalization::orthonormal});
  EXPECT_TRUE(same_bits(d, d_native));
  auto i = oracle::random_vector<std::int32_t>(1 << 12, rng), i_native = i;
  fastconv::wht(i, {.accumulation = Accumulation::float64});
  fastconv::wht(i_native);
  EXPECT_EQ(i, i_native);
}

// One plan, two threads on different data: the per-call widened copies keep them apart.
TEST(WhtAccumulationFloat, OnePlanRunsOnSeveralThreads) {
  std::mt19937_64 rng(25);
  const WhtPlan<float> plan(16, {.accumulation = Accumulation::float64}, Backend::cpu(1));
  std::vector<std::vector<float>> data(4), want(4);
  for (std::size_t t = 0; t < data.size(); ++t) {
    data[t] = oracle::random_vector<float>(1 << 16, rng);
    want[t] = data[t];
    plan.execute(want[t]);
  }
  std::vector<std::thread> threads;
  for (auto& x : data) threads.emplace_back([&plan, &x] { plan.execute(x); });
  for (auto& t : threads) t.join();
  for (std::size_t t = 0; t < data.size(); ++t) EXPECT_TRUE(same_bits(data[t], want[t])) << t;
}

TEST(WhtAccumulationFloat, NamesParseAndPrint) {
  EXPECT_EQ(fastconv::parse_accumulation("native"), Accumulation::native);
  EXPECT_EQ(fastconv::parse_accumulation("float64"), Accumulation::float64);
  EXPECT_EQ(fastconv::parse_accumulation("double"), Accumulation::float64);
  EXPECT_EQ(fastconv::parse_accumulation("Float64"), std::nullopt);
  EXPECT_EQ(fastconv::parse_accumulation(""), std::nullopt);
  EXPECT_EQ(to_string(Accumulation::native), "native");
  EXPECT_EQ(to_string(Accumulation::float64), "float64");
  EXPECT_EQ(WhtPlan<float>(3, {.accumulation = Accumulation::float64}).options().accumulation, Accumulation::float64);
}

// A backend without double precision (an OpenCL device without cl_khr_fp64) refuses the double
// kernel; the refusal is restated as the option's. Other errors pass unchanged.
TEST(WhtAccumulationFloat, ABackendWithoutDoublePrecisionIsAnUnsupportedError) {
  const auto refuse = [] {
    throw fastconv::Error(fastconv::ErrorCode::unsupported,
                          "OpenCL device X has no double precision (cl_khr_fp64): use float32, or another device");
  };
  try {
    fastconv::detail::in_double(refuse);
    FAIL() << "no error";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::unsupported);
    EXPECT_STREQ(e.what(), "float64 accumulation needs double precision: OpenCL device X has no double precision "
                           "(cl_khr_fp64): use float32, or another device");
  }
  try {
    fastconv::detail::in_double([] { throw fastconv::Error(fastconv::ErrorCode::device, "lost"); });
    FAIL() << "no error";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::device);
    EXPECT_STREQ(e.what(), "lost");
  }
  for (const auto& d : fastconv::devices())
    if (d.backend == "opencl" && !d.fp64) {
      try {
        WhtPlan<float>(4, {.accumulation = Accumulation::float64}, Backend::opencl("", d.id));
        ADD_FAILURE() << d.name << " has no fp64 but made a double plan";
      } catch (const fastconv::Error& e) {
        EXPECT_EQ(e.code(), fastconv::ErrorCode::unsupported);
        EXPECT_EQ(std::string(e.what()).rfind("float64 accumulation needs double precision: OpenCL device ", 0), 0u)
            << e.what();
      }
    }
}

}  // namespace
