// S-boxes: every table, scale and statistic against the definitions written out naively here,
// published values (AES, PRESENT, Gold APN functions), 12-bit tables against slower independent
// paths, structure, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "fastconv/fastconv.hpp"

using fastconv::Backend;
using fastconv::ErrorCode;
using fastconv::Histogram;
using fastconv::LatScale;
using fastconv::SBox;
using fastconv::Table;

namespace {

// --- the definitions, naively --------------------------------------------------------------------

using Lut = std::vector<std::uint32_t>;
using Matrix = std::vector<std::vector<std::int64_t>>;

int parity(std::uint64_t v) { return std::popcount(v) & 1; }
int sign(std::uint64_t v) { return parity(v) ? -1 : 1; }

Matrix naive_lat(const Lut& s, int n, int m) {
  Matrix t(std::size_t{1} << n, std::vector<std::int64_t>(std::size_t{1} << m));
  for (std::size_t a = 0; a < t.size(); ++a)
    for (std::size_t b = 0; b < t[a].size(); ++b)
      for (std::size_t x = 0; x < s.size(); ++x) t[a][b] += sign((a & x) ^ (b & s[x]));
  return t;
}

Matrix naive_ddt(const Lut& s, int n, int m) {
  Matrix t(std::size_t{1} << n, std::vector<std::int64_t>(std::size_t{1} << m));
  for (std::size_t a = 0; a < t.size(); ++a)
    for (std::size_t x = 0; x < s.size(); ++x) ++t[a][s[x ^ a] ^ s[x]];
  return t;
}

Matrix naive_act(const Lut& s, int n, int m) {
  Matrix t(std::size_t{1} << n, std::vector<std::int64_t>(std::size_t{1} << m));
  for (std::size_t a = 0; a < t.size(); ++a)
    for (std::size_t b = 0; b < t[a].size(); ++b)
      for (std::size_t x = 0; x < s.size(); ++x) t[a][b] += sign(b & (s[x] ^ s[x ^ a]));
  return t;
}

Lut naive_inverse(const Lut& s) {
  Lut inv(s.size());
  for (std::size_t x = 0; x < s.size(); ++x) inv[s[x]] = static_cast<std::uint32_t>(x);
  return inv;
}

Matrix naive_bct(const Lut& s) {
  const Lut inv = naive_inverse(s);
  Matrix t(s.size(), std::vector<std::int64_t>(s.size()));
  for (std::size_t a = 0; a < s.size(); ++a)
    for (std::size_t b = 0; b < s.size(); ++b)
      for (std::size_t x = 0; x < s.size(); ++x) t[a][b] += (inv[s[x] ^ b] ^ inv[s[x ^ a] ^ b]) == a;
  return t;
}

// ANF by its definition: the coefficient of u is the XOR of f(x) over every x ⊆ u.
int naive_degree(const Lut& s, int n, std::uint32_t b) {
  int degree = -1;
  for (std::uint32_t u = 0; u < (1u << n); ++u) {
    int coefficient = 0;
    for (std::uint32_t x = u;; x = (x - 1) & u) {
      coefficient ^= parity(b & s[x]);
      if (x == 0) break;
    }
    if (coefficient) degree = std::max(degree, std::popcount(u));
  }
  return degree;
}

template <class T>
bool same(const Table<T>& got, const Matrix& want, long double scale = 1) {
  if (got.rows != want.size() || got.cols != want[0].size()) return false;
  for (std::size_t a = 0; a < got.rows; ++a)
    for (std::size_t b = 0; b < got.cols; ++b)
      if (static_cast<long double>(got(a, b)) != static_cast<long double>(want[a][b]) * scale) return false;
  return true;
}

struct Extremes {
  std::int64_t largest = 0;
  Histogram spectrum;
};

/// The largest |entry| and the histogram of |entry| over rows ≥ first_row and columns ≥ first_col.
Extremes extremes(const Matrix& t, std::size_t first_row, std::size_t first_col) {
  std::vector<std::uint64_t> counts;
  for (std::size_t a = first_row; a < t.size(); ++a)
    for (std::size_t b = first_col; b < t[a].size(); ++b) {
      const auto v = static_cast<std::size_t>(std::abs(t[a][b]));
      if (v >= counts.size()) counts.resize(v + 1);
      ++counts[v];
    }
  Extremes e;
  for (std::size_t v = 0; v < counts.size(); ++v)
    if (counts[v] != 0) e.spectrum[static_cast<std::int64_t>(v)] = counts[v];
  e.largest = e.spectrum.empty() ? 0 : e.spectrum.rbegin()->first;
  return e;
}

Lut random_lut(int n, int m, bool permutation, std::mt19937_64& rng) {
  Lut s(std::size_t{1} << n);
  if (permutation) {
    std::iota(s.begin(), s.end(), 0u);
    std::shuffle(s.begin(), s.end(), rng);
  } else {
    std::uniform_int_distribution<std::uint32_t> value(0, (1u << m) - 1);
    for (auto& v : s) v = value(rng);
  }
  return s;
}

/// The random S-boxes the definitions are checked on: every n, m in 1 … 6, a few wider ones up
/// to 8 bits, and a permutation of every n in 1 … 8.
std::vector<SBox> random_sboxes() {
  std::mt19937_64 rng(2024);
  std::vector<SBox> boxes;
  for (int n = 1; n <= 8; ++n) {
    for (int m = 1; m <= 8; ++m)
      if ((n <= 6 && m <= 6) || m == 1 || m == n || m + n == 11) boxes.emplace_back(random_lut(n, m, false, rng), m);
    boxes.emplace_back(random_lut(n, n, true, rng), n);
  }
  return boxes;
}

std::string label(const SBox& s) {
  return "n=" + std::to_string(s.input_bits()) + " m=" + std::to_string(s.output_bits()) +
         (s.is_permutation() ? " permutation" : "");
}

// --- published S-boxes ----------------------------------------------------------------------------

constexpr std::array<std::uint32_t, 256> kAes = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76, 0xca, 0x82, 0xc9,
    0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0, 0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f,
    0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15, 0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07,
    0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75, 0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3,
    0x29, 0xe3, 0x2f, 0x84, 0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58,
    0xcf, 0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8, 0x51, 0xa3,
    0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2, 0xcd, 0x0c, 0x13, 0xec, 0x5f,
    0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73, 0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88,
    0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb, 0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac,
    0x62, 0x91, 0x95, 0xe4, 0x79, 0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a,
    0xae, 0x08, 0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a, 0x70,
    0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e, 0xe1, 0xf8, 0x98, 0x11,
    0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf, 0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42,
    0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16};

const Lut kPresent = {0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2};

/// x·y in GF(2^n) = GF(2)[t] / (poly), poly given with its t^n bit.
std::uint32_t gf_multiply(std::uint32_t x, std::uint32_t y, int n, std::uint32_t poly) {
  std::uint32_t product = 0;
  for (; y != 0; y >>= 1) {
    if (y & 1) product ^= x;
    x <<= 1;
    if (x >> n) x ^= poly;
  }
  return product;
}

/// The Gold function x ↦ x^3 over GF(2^n): APN for every n, a permutation for odd n.
SBox gold_cube(int n, std::uint32_t poly) {
  Lut s(std::size_t{1} << n);
  for (std::uint32_t x = 0; x < s.size(); ++x) s[x] = gf_multiply(gf_multiply(x, x, n, poly), x, n, poly);
  return SBox(s, n);
}

void expect_error(ErrorCode code, const std::function<void()>& call, const std::string& says = {}) {
  try {
    call();
    ADD_FAILURE() << "no Error thrown";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

// --- tables ----------------------------------------------------------------------------------------

TEST(SBoxTables, MatchTheDefinitionsOnRandomSBoxes) {
  for (const SBox& s : random_sboxes()) {
    const Lut lut(s.lut().begin(), s.lut().end());
    const int n = s.input_bits(), m = s.output_bits();
    const Matrix lat = naive_lat(lut, n, m);
    EXPECT_TRUE(same(s.lat(), lat)) << label(s);
    EXPECT_TRUE(same(s.lat(LatScale::fourier_coefficient), lat)) << label(s);
    EXPECT_TRUE(same(s.lat(LatScale::absolute_bias), lat, 0.5L)) << label(s);
    EXPECT_TRUE(same(s.lat(LatScale::bias), lat, std::ldexp(1.0L, -(n + 1)))) << label(s);
    EXPECT_TRUE(same(s.lat(LatScale::correlation), lat, std::ldexp(1.0L, -n))) << label(s);
    EXPECT_TRUE(same(s.ddt(), naive_ddt(lut, n, m))) << label(s);
    EXPECT_TRUE(same(s.act(), naive_act(lut, n, m))) << label(s);
    if (s.is_permutation()) {
      EXPECT_TRUE(same(s.bct(), naive_bct(lut))) << label(s);
    }
  }
}

TEST(SBoxTables, LatIsTheSameOnEveryBackend) {
  std::mt19937_64 rng(5);
  const SBox s(random_lut(7, 5, false, rng), 5);
  EXPECT_EQ(s.lat(Backend::reference()), s.lat(Backend::cpu()));
  EXPECT_EQ(s.lat(Backend::cpu(1)), s.lat(Backend::cpu()));
  EXPECT_EQ(s.act(Backend::reference()), s.act(Backend::cpu()));
}

TEST(SBoxTables, LatScaleNamesRoundTrip) {
  for (LatScale scale : {LatScale::fourier_coefficient, LatScale::absolute_bias, LatScale::bias, LatScale::correlation})
    EXPECT_EQ(fastconv::parse_lat_scale(fastconv::to_string(scale)), scale);
  EXPECT_EQ(fastconv::to_string(LatScale::absolute_bias), "absolute_bias");
  EXPECT_FALSE(fastconv::parse_lat_scale("walsh").has_value());
}

// 12-bit tables against slower paths that share no code with the library.
class SBoxTwelveBits : public ::testing::Test {
 protected:
  static constexpr int kBits = 12;
  std::mt19937_64 rng{12};
  Lut lut = random_lut(kBits, kBits, true, rng);
  SBox s{lut};
};

// Column b of the LAT: the Walsh transform of (−1)^(b·S(x)), by the textbook butterflies.
TEST_F(SBoxTwelveBits, LatColumnsAreWalshTransformsOfTheComponents) {
  const Table<std::int32_t> lat = s.lat();
  std::vector<std::int32_t> column(lut.size());
  for (std::uint32_t b = 0; b < lut.size(); ++b) {
    for (std::size_t x = 0; x < lut.size(); ++x) column[x] = sign(b & lut[x]);
    for (std::size_t h = 1; h < column.size(); h *= 2)
      for (std::size_t i = 0; i < column.size(); ++i)
        if ((i & h) == 0) {
          const std::int32_t u = column[i], v = column[i + h];
          column[i] = u + v;
          column[i + h] = u - v;
        }
    for (std::size_t a = 0; a < lut.size(); ++a) ASSERT_EQ(lat(a, b), column[a]) << "a=" << a << " b=" << b;
  }
}

TEST_F(SBoxTwelveBits, DdtCountsEveryPair) {
  const Table<std::int32_t> ddt = s.ddt();
  EXPECT_TRUE(same(ddt, naive_ddt(lut, kBits, kBits)));
}

// ACT row a: Σₓ (−1)^(b·δ) over the differences δ = S(x) ⊕ S(x ⊕ a), by textbook butterflies.
TEST_F(SBoxTwelveBits, ActRowsAreWalshTransformsOfTheDifferences) {
  const Table<std::int32_t> act = s.act();
  std::vector<std::int32_t> row(lut.size());
  for (std::size_t a = 0; a < lut.size(); ++a) {
    std::fill(row.begin(), row.end(), 0);
    for (std::size_t x = 0; x < lut.size(); ++x) ++row[lut[x] ^ lut[x ^ a]];
    for (std::size_t h = 1; h < row.size(); h *= 2)
      for (std::size_t i = 0; i < row.size(); ++i)
        if ((i & h) == 0) {
          const std::int32_t u = row[i], v = row[i + h];
          row[i] = u + v;
          row[i + h] = u - v;
        }
    for (std::size_t b = 0; b < lut.size(); ++b) ASSERT_EQ(act(a, b), row[b]) << "a=" << a << " b=" << b;
  }
}

// Whole BCT by Dunkelman's algorithm (SageMath's), and 16 of its rows by the definition.
TEST_F(SBoxTwelveBits, BctMatchesDunkelmanAndTheDefinition) {
  const Table<std::int32_t> bct = s.bct();
  const Lut inv = naive_inverse(lut);
  std::vector<std::vector<std::uint32_t>> groups(lut.size());
  std::vector<std::int32_t> row(lut.size());
  for (std::size_t a = 0; a < lut.size(); ++a) {
    for (auto& g : groups) g.clear();
    for (std::uint32_t y = 0; y < lut.size(); ++y) groups[y ^ lut[inv[y] ^ a]].push_back(y);
    std::fill(row.begin(), row.end(), 0);
    for (const auto& g : groups)
      for (std::uint32_t y1 : g)
        for (std::uint32_t y2 : g) ++row[y1 ^ y2];
    for (std::size_t b = 0; b < lut.size(); ++b) ASSERT_EQ(bct(a, b), row[b]) << "a=" << a << " b=" << b;
  }
  for (int i = 0; i < 16; ++i) {
    const std::size_t a = rng() % lut.size();
    for (std::size_t b = 0; b < lut.size(); ++b) {
      std::int32_t count = 0;
      for (std::size_t x = 0; x < lut.size(); ++x) count += (inv[lut[x] ^ b] ^ inv[lut[x ^ a] ^ b]) == a;
      ASSERT_EQ(bct(a, b), count) << "a=" << a << " b=" << b;
    }
  }
}

// Streamed statistics (several batches of LAT columns at 12 bits) against the checked tables.
TEST_F(SBoxTwelveBits, StreamedStatisticsMatchTheTables) {
  const auto as_matrix = [](const Table<std::int32_t>& t) {
    Matrix m(t.rows, std::vector<std::int64_t>(t.cols));
    for (std::size_t a = 0; a < t.rows; ++a)
      for (std::size_t b = 0; b < t.cols; ++b) m[a][b] = t(a, b);
    return m;
  };
  const Extremes differential = extremes(as_matrix(s.ddt()), 1, 0);
  const Extremes linear = extremes(as_matrix(s.lat()), 0, 1);
  const Extremes boomerang = extremes(as_matrix(s.bct()), 1, 1);
  const fastconv::SBoxSummary summary = s.summary();
  EXPECT_EQ(summary.differential_uniformity, static_cast<std::uint64_t>(differential.largest));
  EXPECT_EQ(summary.differential_spectrum, differential.spectrum);
  EXPECT_EQ(summary.linearity, static_cast<std::uint64_t>(linear.largest));
  EXPECT_EQ(summary.absolute_walsh_spectrum, linear.spectrum);
  EXPECT_EQ(summary.boomerang_uniformity, static_cast<std::uint64_t>(boomerang.largest));
  EXPECT_EQ(summary.boomerang_spectrum, boomerang.spectrum);
}

// --- statistics ------------------------------------------------------------------------------------

TEST(SBoxStatistics, MatchTheDefinitionsOnRandomSBoxes) {
  for (const SBox& s : random_sboxes()) {
    const Lut lut(s.lut().begin(), s.lut().end());
    const int n = s.input_bits(), m = s.output_bits();
    const Matrix lat = naive_lat(lut, n, m);
    const Extremes differential = extremes(naive_ddt(lut, n, m), 1, 0);
    const Extremes linear = extremes(lat, 0, 1);
    const auto du = static_cast<std::uint64_t>(differential.largest);
    EXPECT_EQ(s.differential_uniformity(), du) << label(s);
    EXPECT_EQ(s.differential_spectrum(), differential.spectrum) << label(s);
    EXPECT_EQ(s.is_apn(), n == m && du == 2) << label(s);  // APN is defined for n = m only
    EXPECT_EQ(s.linearity(), static_cast<std::uint64_t>(linear.largest)) << label(s);
    EXPECT_EQ(s.nonlinearity(), (std::uint64_t{1} << (n - 1)) - static_cast<std::uint64_t>(linear.largest) / 2)
        << label(s);
    EXPECT_EQ(s.absolute_walsh_spectrum(), linear.spectrum) << label(s);

    int linear_branch = (1 << n) + (1 << m);  // SageMath's start: the value for a constant S
    for (std::size_t a = 1; a < lat.size(); ++a)
      for (std::size_t b = 1; b < lat[a].size(); ++b)
        if (lat[a][b] != 0) linear_branch = std::min(linear_branch, std::popcount(a) + std::popcount(b));
    EXPECT_EQ(s.linear_branch_number(), linear_branch) << label(s);
    int differential_branch = n + m;
    for (std::uint32_t x = 0; x < lut.size(); ++x)
      for (std::uint32_t y = 0; y < lut.size(); ++y)
        if (x != y)
          differential_branch = std::min(differential_branch, std::popcount(x ^ y) + std::popcount(lut[x] ^ lut[y]));
    EXPECT_EQ(s.differential_branch_number(), differential_branch) << label(s);

    Histogram degrees;
    int max_coordinate_degree = 0;
    for (std::uint32_t b = 1; b < (1u << m); ++b) ++degrees[naive_degree(lut, n, b)];
    for (int i = 0; i < m; ++i) max_coordinate_degree = std::max(max_coordinate_degree, naive_degree(lut, n, 1u << i));
    EXPECT_EQ(s.degree_spectrum(), degrees) << label(s);
    EXPECT_EQ(s.min_degree(), degrees.begin()->first) << label(s);
    EXPECT_EQ(s.max_degree(), max_coordinate_degree) << label(s);

    std::uint64_t fixed = 0;
    for (std::uint32_t x = 0; x < lut.size(); ++x) fixed += lut[x] == x;
    EXPECT_EQ(s.fixed_points().size(), fixed) << label(s);

    const fastconv::SBoxSummary summary = s.summary();
    EXPECT_EQ(summary.n, n);
    EXPECT_EQ(summary.m, m);
    EXPECT_EQ(summary.bijective, s.is_permutation());
    EXPECT_EQ(summary.differential_uniformity, du);
    EXPECT_EQ(summary.differential_spectrum, differential.spectrum);
    EXPECT_EQ(summary.is_apn, n == m && du == 2);
    EXPECT_EQ(summary.linearity, static_cast<std::uint64_t>(linear.largest));
    EXPECT_EQ(summary.nonlinearity, s.nonlinearity());
    EXPECT_EQ(summary.absolute_walsh_spectrum, linear.spectrum);
    EXPECT_EQ(summary.linear_branch_number, linear_branch);
    EXPECT_EQ(summary.differential_branch_number, differential_branch);
    EXPECT_EQ(summary.degree_spectrum, degrees);
    EXPECT_EQ(summary.min_degree, degrees.begin()->first);
    EXPECT_EQ(summary.max_degree, max_coordinate_degree);
    EXPECT_EQ(summary.fixed_points, fixed);

    if (s.is_permutation()) {
      const Extremes boomerang = extremes(naive_bct(lut), 1, 1);
      EXPECT_EQ(s.boomerang_uniformity(), static_cast<std::uint64_t>(boomerang.largest)) << label(s);
      EXPECT_EQ(s.boomerang_spectrum(), boomerang.spectrum) << label(s);
      EXPECT_EQ(summary.boomerang_uniformity, static_cast<std::uint64_t>(boomerang.largest));
      EXPECT_EQ(summary.boomerang_spectrum, boomerang.spectrum);
    } else {
      EXPECT_FALSE(summary.boomerang_uniformity.has_value());
      EXPECT_TRUE(summary.boomerang_spectrum.empty());
    }
  }
}

TEST(SBoxStatistics, ConstantSBoxesFollowSageMath) {
  const SBox zero(Lut(8, 0));
  EXPECT_EQ(zero.output_bits(), 1);
  EXPECT_EQ(zero.max_degree(), 0);   // SageMath's maximum starts at 0
  EXPECT_EQ(zero.min_degree(), -1);  // the zero component, as SageMath's zero polynomial
  EXPECT_EQ(zero.degree_spectrum(), (Histogram{{-1, 1}}));
  EXPECT_EQ(zero.linear_branch_number(), (1 << 3) + (1 << 1));  // no LAT[a][b] ≠ 0 with a, b ≠ 0
  EXPECT_EQ(zero.differential_uniformity(), 8u);
  EXPECT_EQ(zero.linearity(), 8u);
  EXPECT_EQ(zero.nonlinearity(), 0u);
}

TEST(SBoxStatistics, ProgressIsReportedForEveryStage) {
  std::mt19937_64 rng(3);
  const SBox s(random_lut(10, 10, true, rng));
  std::map<std::string, std::vector<double>> seen;
  fastconv::AnalysisOptions options;
  options.progress = [&](std::string_view stage, double fraction) { seen[std::string(stage)].push_back(fraction); };
  (void)s.summary(options);
  for (const char* stage : {"differential", "linear", "degree", "boomerang"}) {
    const std::vector<double>& fractions = seen[stage];
    ASSERT_FALSE(fractions.empty()) << stage;
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end())) << stage;
    EXPECT_GT(fractions.front(), 0.0) << stage;
    EXPECT_EQ(fractions.back(), 1.0) << stage;
  }
}

// --- published values ------------------------------------------------------------------------------

// The table typed above is the AES S-box: the inverse in GF(2^8) mod x^8+x^4+x^3+x+1, then the
// affine map b ⊕ rotl(b,1) ⊕ rotl(b,2) ⊕ rotl(b,3) ⊕ rotl(b,4) ⊕ 0x63.
TEST(SBoxPublished, AesTableIsTheAesSBox) {
  for (std::uint32_t x = 0; x < 256; ++x) {
    std::uint32_t inverse = 0;
    for (std::uint32_t y = 1; y < 256 && x != 0; ++y)
      if (gf_multiply(x, y, 8, 0x11B) == 1) inverse = y;
    const auto rotl = [&](int k) { return ((inverse << k) | (inverse >> (8 - k))) & 0xFF; };
    EXPECT_EQ(kAes[x], inverse ^ rotl(1) ^ rotl(2) ^ rotl(3) ^ rotl(4) ^ 0x63) << x;
  }
}

TEST(SBoxPublished, Aes) {
  const SBox aes(Lut(kAes.begin(), kAes.end()));
  EXPECT_EQ(aes.input_bits(), 8);
  EXPECT_EQ(aes.output_bits(), 8);
  EXPECT_TRUE(aes.is_permutation());
  EXPECT_EQ(aes.differential_uniformity(), 4u);
  EXPECT_EQ(aes.differential_spectrum(), (Histogram{{0, 32895}, {2, 32130}, {4, 255}}));
  EXPECT_FALSE(aes.is_apn());
  EXPECT_EQ(aes.linearity(), 32u);
  EXPECT_EQ(aes.nonlinearity(), 112u);
  EXPECT_EQ(aes.max_degree(), 7);
  EXPECT_EQ(aes.min_degree(), 7);
  EXPECT_EQ(aes.degree_spectrum(), (Histogram{{7, 255}}));
  EXPECT_EQ(aes.boomerang_uniformity(), 6u);
  EXPECT_TRUE(aes.fixed_points().empty());
  const fastconv::SBoxSummary summary = aes.summary();
  EXPECT_EQ(summary.boomerang_uniformity, 6u);
  EXPECT_EQ(summary.nonlinearity, 112u);
  EXPECT_EQ(summary.fixed_points, 0u);
}

TEST(SBoxPublished, Present) {
  const SBox present(kPresent);
  EXPECT_EQ(present.differential_uniformity(), 4u);
  EXPECT_EQ(present.linearity(), 8u);
  EXPECT_EQ(present.max_degree(), 3);
  EXPECT_EQ(present.min_degree(), 2);
  EXPECT_EQ(present.boomerang_uniformity(), 16u);
  EXPECT_EQ(present.differential_branch_number(), 3);
  EXPECT_EQ(present.linear_branch_number(), 2);
  // SageMath's documentation prints PRESENT's BCT; rows 1 and 15 of it.
  const Table<std::int32_t> bct = present.bct();
  const std::vector<std::int32_t> row1 = {16, 0, 4, 4, 0, 16, 4, 4, 4, 4, 0, 0, 4, 4, 0, 0};
  const std::vector<std::int32_t> row15 = {16, 8, 0, 0, 8, 0, 0, 0, 0, 0, 0, 8, 0, 0, 8, 16};
  EXPECT_TRUE(std::equal(row1.begin(), row1.end(), bct.row(1).begin()));
  EXPECT_TRUE(std::equal(row15.begin(), row15.end(), bct.row(15).begin()));
}

// x^3 is APN over every GF(2^n); for odd n it is an almost bent permutation (linearity
// 2^((n+1)/2)) and, being an APN permutation, has boomerang uniformity 2.
// APN is defined for n = m only (SageMath raises an error otherwise): a 2×16 S-box whose
// differential uniformity is 2 had been reported as APN.
TEST(SBoxPublished, ApnIsDefinedForEqualSizesOnly) {
  const SBox wide({0, 1, 2, 65535});
  ASSERT_EQ(wide.output_bits(), 16);
  EXPECT_EQ(wide.differential_uniformity(), 2u);
  EXPECT_FALSE(wide.is_apn());
  EXPECT_FALSE(wide.summary().is_apn);
}

TEST(SBoxPublished, GoldCubeIsApn) {
  const std::map<int, std::uint32_t> polys = {{3, 0xB}, {4, 0x13}, {5, 0x25}, {6, 0x43}, {7, 0x83}, {8, 0x11B}};
  for (const auto& [n, poly] : polys) {
    const SBox cube = gold_cube(n, poly);
    EXPECT_TRUE(cube.is_apn()) << n;
    EXPECT_EQ(cube.differential_uniformity(), 2u) << n;
    EXPECT_EQ(cube.max_degree(), 2) << n;
    EXPECT_EQ(cube.is_permutation(), n % 2 == 1) << n;
    if (n % 2 == 1) {
      EXPECT_EQ(cube.linearity(), std::uint64_t{1} << ((n + 1) / 2)) << n;
      EXPECT_EQ(cube.boomerang_uniformity(), 2u) << n;
    }
  }
}

// --- structure -------------------------------------------------------------------------------------

TEST(SBoxStructure, OutputBitsDefaultToTheLargestValue) {
  EXPECT_EQ(SBox(Lut{0, 0}).output_bits(), 1);
  EXPECT_EQ(SBox(Lut{0, 1, 2, 3}).output_bits(), 2);
  EXPECT_EQ(SBox(Lut{0, 4}).output_bits(), 3);
  EXPECT_EQ(SBox(Lut{0, 4}, 8).output_bits(), 8);
  EXPECT_EQ(SBox(Lut{0, 0xFFFFFFFFu}).output_bits(), 32);
  EXPECT_EQ(SBox(kPresent).input_bits(), 4);
  EXPECT_EQ(SBox(kPresent).size(), 16u);
  EXPECT_EQ(SBox(kPresent)(3), 0xBu);
  EXPECT_EQ(SBox(kPresent), SBox(kPresent, 4));
}

TEST(SBoxStructure, InverseFixedPointsAndCycles) {
  std::mt19937_64 rng(9);
  for (int n = 1; n <= 10; ++n) {
    const Lut lut = random_lut(n, n, true, rng);
    const SBox s(lut, n);
    const SBox inverse = s.inverse();
    EXPECT_EQ(Lut(inverse.lut().begin(), inverse.lut().end()), naive_inverse(lut));
    EXPECT_EQ(inverse.inverse(), s);
    std::vector<std::uint32_t> fixed;
    std::map<std::uint64_t, std::uint64_t> cycles;
    for (std::uint32_t x = 0; x < lut.size(); ++x) {
      if (lut[x] == x) fixed.push_back(x);
      std::uint32_t y = lut[x];
      std::uint64_t length = 1;
      bool smallest = true;  // count each cycle once, from its smallest member
      for (; y != x; y = lut[y], ++length) smallest = smallest && y > x;
      if (smallest) ++cycles[length];
    }
    EXPECT_EQ(s.fixed_points(), fixed);
    EXPECT_EQ(s.cycle_type(), cycles);
  }
  EXPECT_EQ(SBox(Lut{1, 2, 3, 0, 5, 4, 6, 7}).cycle_type(),
            (std::map<std::uint64_t, std::uint64_t>{{1, 2}, {2, 1}, {4, 1}}));
}

TEST(SBoxStructure, IsPermutationNeedsNEqualM) {
  EXPECT_TRUE(SBox(Lut{1, 0}).is_permutation());
  EXPECT_FALSE(SBox(Lut{1, 0}, 2).is_permutation());
  EXPECT_FALSE(SBox(Lut{1, 1, 2, 3}).is_permutation());
}

TEST(SBoxStructure, ComponentAndCoordinateFunctions) {
  const SBox s(Lut(kAes.begin(), kAes.end()));
  for (std::uint32_t b : {1u, 0x53u, 0x80u, 0xFFu}) {
    const fastconv::BooleanFunction f = s.component_function(b);
    EXPECT_EQ(f.num_variables(), 8);
    for (std::uint32_t x = 0; x < 256; ++x) EXPECT_EQ(f(x), parity(b & kAes[x]) == 1) << b << " " << x;
  }
  for (int i = 0; i < 8; ++i) {
    const fastconv::BooleanFunction f = s.coordinate_function(i);
    for (std::uint32_t x = 0; x < 256; ++x) EXPECT_EQ(f(x), ((kAes[x] >> i) & 1) == 1) << i << " " << x;
  }
  const SBox small(Lut{3, 1, 2, 0});
  EXPECT_EQ(small.component_function(3).num_variables(), 2);
  for (std::uint32_t x = 0; x < 4; ++x) EXPECT_EQ(small.component_function(3)(x), parity(3 & small(x)) == 1);
}

// --- errors ----------------------------------------------------------------------------------------

TEST(SBoxErrors, LookUpTables) {
  expect_error(
      ErrorCode::invalid_argument,
      [] {
        SBox(Lut{0, 1, 2});
      },
      "3 entries");
  expect_error(
      ErrorCode::invalid_argument, [] { SBox(Lut{}); }, "0 entries");
  expect_error(
      ErrorCode::invalid_argument, [] { SBox(Lut{0}); }, "1 entries");
  Lut wide(256, 1);
  wide[7] = 300;
  expect_error(
      ErrorCode::invalid_argument, [&] { SBox(wide, 8); }, "value 300 at index 7 does not fit m = 8 bits");
  expect_error(
      ErrorCode::invalid_argument,
      [] {
        SBox(Lut{0, 4}, 2);
      },
      "value 4 at index 1");
  expect_error(
      ErrorCode::invalid_argument,
      [] {
        SBox(Lut{0, 1}, 0);
      },
      "m = 0");
  expect_error(
      ErrorCode::invalid_argument,
      [] {
        SBox(Lut{0, 1}, 33);
      },
      "m = 33");
}

TEST(SBoxErrors, PermutationsOnly) {
  const SBox s(Lut{0, 1, 1, 3});
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.bct(); }, "S(1) = S(2) = 1");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.inverse(); }, "not a permutation");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.cycle_type(); }, "not a permutation");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.boomerang_uniformity(); }, "not a permutation");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.boomerang_spectrum(); }, "not a permutation");
  expect_error(
      ErrorCode::invalid_argument,
      [] {
        (void)SBox(Lut{1, 0}, 3).bct();
      },
      "maps 1 bits to 3");
}

TEST(SBoxErrors, TablesOver16Bits) {
  Lut big(std::size_t{1} << 17);
  std::iota(big.begin(), big.end(), 0u);
  const SBox wide_input(big);
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_input.lat(); }, "16");
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_input.lat(LatScale::bias); }, "n = 17");
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_input.ddt(); }, "n = 17");
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_input.bct(); }, "n = 17");
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_input.act(); }, "n = 17");
  const SBox wide_output(Lut{0, 1u << 16});
  expect_error(
      ErrorCode::unsupported, [&] { (void)wide_output.ddt(); }, "m = 17");
}

TEST(SBoxErrors, ComponentMasks) {
  const SBox s(kPresent);
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.component_function(16); }, "b = 16");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.coordinate_function(4); }, "bit 4");
  expect_error(
      ErrorCode::invalid_argument, [&] { (void)s.coordinate_function(-1); }, "bit -1");
}

}  // namespace
