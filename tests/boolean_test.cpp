// BooleanFunction: every spectrum and statistic against the O(N²) definitions written out here,
// algebraic immunity against exhaustive search and plain Gaussian elimination, SageMath's
// documented values, known theorems, the text forms and their errors, and the cpu backend
// against the reference backend on larger functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/walsh.hpp"
#include "fastconv/fastconv.hpp"

using fastconv::Backend;
using fastconv::BooleanFunction;
using fastconv::Error;
using fastconv::ErrorCode;
using fastconv::Histogram;
using fastconv::LinearStructure;

namespace {

// --- functions to test ---------------------------------------------------------------------

BooleanFunction from_rule(int n, auto rule) {
  std::vector<std::uint8_t> values(std::size_t{1} << n);
  for (std::uint64_t x = 0; x < values.size(); ++x) values[x] = rule(x) ? 1 : 0;
  return BooleanFunction::from_values(values);
}

/// Each value 1 with probability `ones` (a fair coin by default).
BooleanFunction random_function(int n, std::uint64_t seed, double ones = 0.5) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coin(ones);
  return from_rule(n, [&](std::uint64_t) { return coin(rng); });
}

bool dot(std::uint64_t a, std::uint64_t x) { return std::popcount(a & x) % 2 != 0; }

BooleanFunction majority(int n) {
  return from_rule(n, [n](std::uint64_t x) { return 2 * std::popcount(x) > n; });
}

/// x0x1 ⊕ x2x3 ⊕ …: bent for n even.
BooleanFunction inner_product(int n) {
  return from_rule(n, [n](std::uint64_t x) {
    bool v = false;
    for (int i = 0; i + 1 < n; i += 2) v ^= ((x >> i) & (x >> (i + 1)) & 1) != 0;
    return v;
  });
}

/// Random functions and ones with structure: constants, affine (every a a linear structure),
/// bent, resilient (x0 ⊕ x1 ⊕ g), a single point, majority.
std::vector<BooleanFunction> functions_of(int n) {
  std::vector<BooleanFunction> fs;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) fs.push_back(random_function(n, 100 * seed + n));
  fs.push_back(random_function(n, 7 + n, 0.2));
  fs.push_back(BooleanFunction(n));
  fs.push_back(from_rule(n, [](std::uint64_t) { return true; }));
  const std::uint64_t mask = (std::uint64_t{0x5A5A5A5A} >> 1) & ((std::uint64_t{1} << n) - 1);
  fs.push_back(from_rule(n, [&](std::uint64_t x) { return dot(mask, x); }));
  fs.push_back(from_rule(n, [&](std::uint64_t x) { return !dot(mask, x); }));
  fs.push_back(inner_product(n));
  const BooleanFunction g = random_function(n, 999);
  if (n >= 2)
    fs.push_back(from_rule(n, [&](std::uint64_t x) { return ((x ^ (x >> 1)) & 1) != g(x & ~std::uint64_t{3}); }));
  fs.push_back(from_rule(n, [](std::uint64_t x) { return x == 3; }));
  fs.push_back(majority(n));
  return fs;
}

// --- the definitions -----------------------------------------------------------------------

std::vector<std::int64_t> walsh_by_definition(const BooleanFunction& f) {
  std::vector<std::int64_t> w(f.size(), 0);
  for (std::uint64_t a = 0; a < f.size(); ++a)
    for (std::uint64_t x = 0; x < f.size(); ++x) w[a] += (f(x) != dot(a, x)) ? -1 : 1;
  return w;
}

std::vector<std::int64_t> autocorrelation_by_definition(const BooleanFunction& f) {
  std::vector<std::int64_t> d(f.size(), 0);
  for (std::uint64_t a = 0; a < f.size(); ++a)
    for (std::uint64_t x = 0; x < f.size(); ++x) d[a] += f(x) != f(x ^ a) ? -1 : 1;
  return d;
}

/// Coefficient of Π_{i∈u} x_i: the XOR of f over the subsets of u.
std::vector<bool> anf_by_definition(const BooleanFunction& f) {
  std::vector<bool> anf(f.size(), false);
  for (std::uint64_t u = 0; u < f.size(); ++u)
    for (std::uint64_t x = 0; x < f.size(); ++x)
      if ((x & ~u) == 0 && f(x)) anf[u] = !anf[u];
  return anf;
}

Histogram histogram_of(const std::vector<std::int64_t>& values) {
  Histogram h;
  for (const auto v : values) ++h[v];
  return h;
}

std::uint64_t max_magnitude(const std::vector<std::int64_t>& values, std::size_t first) {
  std::uint64_t m = 0;
  for (std::size_t i = first; i < values.size(); ++i)
    m = std::max<std::uint64_t>(m, static_cast<std::uint64_t>(std::abs(values[i])));
  return m;
}

// --- the spectra against the definitions -----------------------------------------------------

void expect_walsh_statistics(const BooleanFunction& f, const Backend& backend) {
  const int n = f.num_variables();
  const auto w = walsh_by_definition(f);
  ASSERT_EQ(f.walsh_spectrum(backend), w);
  const std::uint64_t linearity = max_magnitude(w, 0);
  EXPECT_EQ(f.linearity(backend), linearity);
  EXPECT_EQ(f.nonlinearity(backend), (f.size() - linearity) / 2);
  EXPECT_EQ(f.walsh_histogram(backend), histogram_of(w));

  const bool flat =
      std::all_of(w.begin(), w.end(), [&](auto v) { return static_cast<std::uint64_t>(std::abs(v)) == linearity; });
  EXPECT_EQ(f.is_bent(backend), n % 2 == 0 && flat && linearity == (std::uint64_t{1} << (n / 2)));
  const bool plateaued = std::all_of(
      w.begin(), w.end(), [&](auto v) { return v == 0 || static_cast<std::uint64_t>(std::abs(v)) == linearity; });
  EXPECT_EQ(f.plateau_amplitude(backend), plateaued ? std::optional(linearity) : std::nullopt);

  int ci = n;  // the largest m with W(a) = 0 for 1 ≤ wt(a) ≤ m
  for (std::uint64_t a = 1; a < f.size(); ++a)
    if (w[a] != 0) ci = std::min(ci, std::popcount(a) - 1);
  EXPECT_EQ(f.correlation_immunity(backend), ci);
  EXPECT_EQ(f.resiliency_order(backend), w[0] == 0 ? ci : -1);
  EXPECT_EQ(f.is_balanced(), w[0] == 0);
  EXPECT_EQ(f.weight(), (f.size() - static_cast<std::uint64_t>(w[0])) / 2);
}

void expect_autocorrelation_statistics(const BooleanFunction& f, const Backend& backend) {
  const auto d = autocorrelation_by_definition(f);
  ASSERT_EQ(f.autocorrelation(backend), d);
  EXPECT_EQ(f.absolute_indicator(backend), max_magnitude(d, 1));
  std::uint64_t squares = 0;
  for (const auto v : d) squares += static_cast<std::uint64_t>(v * v);
  EXPECT_EQ(f.sum_of_squares_indicator(backend), squares);
  EXPECT_EQ(f.autocorrelation_histogram(backend), histogram_of(d));
  std::vector<LinearStructure> structures;
  for (std::uint64_t a = 0; a < f.size(); ++a)
    if (static_cast<std::uint64_t>(std::abs(d[a])) == f.size()) structures.push_back({a, d[a] < 0});
  EXPECT_EQ(f.linear_structures(backend), structures);
}

void expect_summary_agrees(const BooleanFunction& f, const Backend& backend) {
  const auto s = fastconv::summarize(f, backend);
  EXPECT_EQ(s.n, f.num_variables());
  EXPECT_EQ(s.weight, f.weight());
  EXPECT_EQ(s.balanced, f.is_balanced());
  EXPECT_EQ(s.nonlinearity, f.nonlinearity(backend));
  EXPECT_EQ(s.linearity, f.linearity(backend));
  EXPECT_EQ(s.absolute_indicator, f.absolute_indicator(backend));
  EXPECT_EQ(s.sum_of_squares_indicator, f.sum_of_squares_indicator(backend));
  EXPECT_EQ(s.algebraic_degree, f.algebraic_degree());
  EXPECT_EQ(s.correlation_immunity, f.correlation_immunity(backend));
  EXPECT_EQ(s.resiliency, f.resiliency_order(backend));
  EXPECT_EQ(s.is_bent, f.is_bent(backend));
  EXPECT_EQ(s.plateau_amplitude, f.plateau_amplitude(backend));
  EXPECT_EQ(s.walsh_histogram, f.walsh_histogram(backend));
  EXPECT_EQ(s.autocorrelation_histogram, f.autocorrelation_histogram(backend));
}

TEST(BooleanSpectra, MatchTheDefinitionsForN0To12) {
  for (int n = 0; n <= 12; ++n) {
    // O(4^n) definitions: above 10 variables a few functions keep the test quick.
    const auto fs = n <= 10
                        ? functions_of(n)
                        : std::vector{random_function(n, 1), inner_product(n), majority(n), random_function(n, 2, 0.1)};
    for (const auto& f : fs) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", f = " + f.to_hex().substr(0, 32));
      expect_walsh_statistics(f, Backend::best());
      expect_autocorrelation_statistics(f, Backend::best());
      expect_summary_agrees(f, Backend::best());
    }
  }
}

TEST(BooleanSpectra, ReferenceBackendMatchesTheDefinitions) {
  for (int n : {0, 1, 2, 5, 7}) {
    for (const auto& f : functions_of(n)) {
      expect_walsh_statistics(f, Backend::reference());
      expect_autocorrelation_statistics(f, Backend::reference());
    }
  }
}

TEST(BooleanSpectra, KnownFunctions) {
  // x0x1 ⊕ x2x3 ⊕ x4x5 is bent: |W| = 8 everywhere, nonlinearity 28.
  const BooleanFunction ip = inner_product(6);
  EXPECT_TRUE(ip.is_bent());
  EXPECT_EQ(ip.nonlinearity(), 28u);
  EXPECT_EQ(ip.walsh_histogram(), (Histogram{{-8, 28}, {8, 36}}));
  EXPECT_FALSE(inner_product(7).is_bent());              // n odd
  EXPECT_EQ(inner_product(7).plateau_amplitude(), 16u);  // x6 is free: semi-bent
  // An affine function: linearity 2^n, every a a linear structure.
  const BooleanFunction affine = from_rule(4, [](std::uint64_t x) { return !dot(0b0110, x); });
  EXPECT_EQ(affine.nonlinearity(), 0u);
  EXPECT_EQ(affine.walsh_spectrum()[0b0110], -16);
  EXPECT_EQ(affine.linear_structures().size(), 16u);
  EXPECT_EQ(affine.linear_structures()[3], (LinearStructure{3, true}));  // (0110)·(0011) = 1
}

TEST(BooleanSpectra, MajorityByTheDefinitions) {
  // MAJ_n is balanced for n odd, and nl(MAJ_n) = 2^(n−1) − C(n−1, (n−1)/2).
  const BooleanFunction maj3 = majority(3), maj5 = majority(5);
  EXPECT_EQ(maj3.weight(), 4u);
  EXPECT_EQ(maj5.weight(), 16u);
  EXPECT_TRUE(maj3.is_balanced());
  EXPECT_TRUE(maj5.is_balanced());
  EXPECT_EQ(maj3.nonlinearity(), 2u);
  EXPECT_EQ(maj5.nonlinearity(), 10u);
  EXPECT_EQ(maj3.algebraic_degree(), 2);  // x0x1 ⊕ x0x2 ⊕ x1x2
  EXPECT_EQ(maj3.to_hex(), "e8");
  EXPECT_EQ(maj3.correlation_immunity(), 0);
}

// The n = 32 decoding cannot be run (16 GiB), so it is checked on the residues themselves.
TEST(BooleanSpectra, DecodesResiduesMod2To32ForEveryN) {
  using fastconv::analysis::walsh_coefficient;
  constexpr std::int64_t two32 = std::int64_t{1} << 32;
  // F = ±2^31 read 0x80000000: f = a·x (f(0) = 0) has W(a) = +2^32, f = a·x ⊕ 1 has −2^32.
  EXPECT_EQ(walsh_coefficient(0x80000000u, 32, false), two32);
  EXPECT_EQ(walsh_coefficient(0x80000000u, 32, true), -two32);
  EXPECT_EQ(walsh_coefficient(0x7FFFFFFFu, 32, false), -(two32 - 2));
  EXPECT_EQ(walsh_coefficient(0x80000001u, 32, true), two32 - 2);
  EXPECT_EQ(walsh_coefficient(0xFFFFFFFFu, 32, false), 2);
  EXPECT_EQ(walsh_coefficient(1u, 32, true), -2);
  EXPECT_EQ(walsh_coefficient(0u, 32, true), 0);
  // Below n = 32 every residue reads signed: |F| ≤ 2^30.
  EXPECT_EQ(walsh_coefficient(0xC0000000u, 31, true), two32 / 2);
  EXPECT_EQ(walsh_coefficient(0x40000000u, 31, false), -two32 / 2);
  // The same rule on the affine functions of a small n, through the whole pipeline.
  for (bool c : {false, true}) {
    const BooleanFunction f = from_rule(6, [c](std::uint64_t x) { return dot(0b101101, x) != c; });
    EXPECT_EQ(f.walsh_spectrum()[0b101101], c ? -64 : 64);
  }
}

// --- larger functions: cpu against reference, and spot checks by the definitions -----------

TEST(BooleanSpectra, CpuMatchesReferenceAt20Variables) {
  const BooleanFunction f = random_function(20, 2024);
  const auto w = f.walsh_spectrum(Backend::cpu());
  const auto d = f.autocorrelation(Backend::cpu());
  ASSERT_EQ(w, f.walsh_spectrum(Backend::reference()));
  ASSERT_EQ(d, f.autocorrelation(Backend::reference()));
  EXPECT_EQ(fastconv::summarize(f, Backend::cpu()).walsh_histogram, histogram_of(w));
  EXPECT_EQ(fastconv::summarize(f, Backend::reference()).autocorrelation_histogram, histogram_of(d));
  // Parseval, Σ Δ = W(0)², and a few coefficients by their definition.
  long double energy = 0;
  std::int64_t delta_sum = 0;
  for (std::size_t a = 0; a < w.size(); ++a) {
    energy += static_cast<long double>(w[a]) * static_cast<long double>(w[a]);
    delta_sum += d[a];
  }
  EXPECT_EQ(energy, std::ldexp(1.0L, 40));
  EXPECT_EQ(delta_sum, w[0] * w[0]);
  for (std::uint64_t a : {std::uint64_t{1}, std::uint64_t{0x5A5A5}, std::uint64_t{0xFFFFF}}) {
    std::int64_t wa = 0, da = 0;
    for (std::uint64_t x = 0; x < f.size(); ++x) {
      wa += f(x) != dot(a, x) ? -1 : 1;
      da += f(x) != f(x ^ a) ? -1 : 1;
    }
    EXPECT_EQ(w[a], wa);
    EXPECT_EQ(d[a], da);
  }
  EXPECT_EQ(f.linearity(Backend::cpu()), max_magnitude(w, 0));
  EXPECT_EQ(f.linearity(Backend::cpu(1)), max_magnitude(w, 0));
}

// Asked for alone, an indicator past 64 bits is an overflow Error; in the summary it is unset
// and the rest stands (the summary had thrown it all away: at n = 32 for every function).
TEST(BooleanSpectra, SumOfSquaresOverflowIsAnError) {
  // An affine function of 22 variables: Δ = ±2^22 everywhere, Σ Δ² = 2^66.
  const BooleanFunction f = from_rule(22, [](std::uint64_t x) { return dot(0x2A0001, x); });
  try {
    (void)f.sum_of_squares_indicator();
    ADD_FAILURE() << "no overflow";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
    EXPECT_NE(std::string(e.what()).find("73786976294838206464"), std::string::npos) << e.what();  // 2^66
  }
  const auto s = fastconv::summarize(f);
  EXPECT_FALSE(s.sum_of_squares_indicator.has_value());
  EXPECT_EQ(s.absolute_indicator, f.size());
  EXPECT_EQ(s.linearity, f.size());  // affine: one Walsh value of ±2^22
  EXPECT_EQ(s.nonlinearity, 0u);
  EXPECT_EQ(s.algebraic_degree, 1);
  EXPECT_TRUE(s.balanced);
  const auto structures = f.linear_structures();
  ASSERT_EQ(structures.size(), f.size());
  EXPECT_EQ(structures[0x200001], (LinearStructure{0x200001, false}));
  EXPECT_EQ(structures[0x200000], (LinearStructure{0x200000, true}));
  EXPECT_EQ(f.absolute_indicator(), f.size());
}

// --- ANF and degree ------------------------------------------------------------------------

TEST(BooleanAnf, MatchesTheDefinition) {
  for (int n = 0; n <= 10; ++n) {
    for (const auto& f : functions_of(n)) {
      const auto want = anf_by_definition(f);
      const BooleanFunction anf = f.algebraic_normal_form();
      int degree = -1;
      for (std::uint64_t u = 0; u < f.size(); ++u) {
        ASSERT_EQ(anf(u), want[u]) << "n = " << n << ", u = " << u;
        if (want[u]) degree = std::max(degree, std::popcount(u));
      }
      EXPECT_EQ(f.algebraic_degree(), degree);
      EXPECT_EQ(anf.algebraic_normal_form(), f);  // the Möbius transform is an involution
    }
  }
  EXPECT_EQ(BooleanFunction(5).algebraic_degree(), -1);
  EXPECT_EQ(BooleanFunction::from_hex("1", 0).algebraic_degree(), 0);
}

// --- algebraic immunity --------------------------------------------------------------------

/// Exhaustive: every nonzero g of degree ≤ d (Gray code over its ANF coefficients), n ≤ 6.
int algebraic_immunity_by_search(const BooleanFunction& f) {
  const int n = f.num_variables();
  const std::uint64_t all = n == 6 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.size()) - 1;
  const std::uint64_t table = f.words()[0], complement = ~table & all;
  for (int d = 0; d <= n; ++d) {
    std::vector<std::uint64_t> monomial_tables;  // the truth table of Π_{i∈u} x_i
    for (std::uint64_t u = 0; u < f.size(); ++u) {
      if (std::popcount(u) > d) continue;
      std::uint64_t t = 0;
      for (std::uint64_t x = 0; x < f.size(); ++x)
        if ((x & u) == u) t |= std::uint64_t{1} << x;
      monomial_tables.push_back(t);
    }
    std::uint64_t g = 0;
    for (std::uint64_t i = 1; i < (std::uint64_t{1} << monomial_tables.size()); ++i) {
      g ^= monomial_tables[static_cast<std::size_t>(std::countr_zero(i))];
      if ((g & table) == 0 || (g & complement) == 0) return d;
    }
  }
  return n;
}

/// The rank over GF(2) of rows given as bitsets, by plain Gaussian elimination.
std::size_t rank_of(std::vector<std::vector<std::uint64_t>> rows, std::size_t columns) {
  std::size_t rank = 0;
  for (std::size_t c = 0; c < columns && rank < rows.size(); ++c) {
    const auto has = [c](const std::vector<std::uint64_t>& r) { return (r[c / 64] >> (c % 64)) & 1; };
    const auto pivot = std::find_if(rows.begin() + static_cast<std::ptrdiff_t>(rank), rows.end(), has);
    if (pivot == rows.end()) continue;
    std::iter_swap(rows.begin() + static_cast<std::ptrdiff_t>(rank), pivot);
    const std::uint64_t* const p = rows[rank].data();  // pointers: a fifth faster in the sanitizer build
    for (std::size_t r = rank + 1; r < rows.size(); ++r)
      if (has(rows[r])) {
        std::uint64_t* const q = rows[r].data();
        for (std::size_t i = 0; i < rows[r].size(); ++i) q[i] ^= p[i];
      }
    ++rank;
  }
  return rank;
}

/// f·g = 0 for a nonzero g of degree ≤ d iff the evaluation matrix (points of supp f × monomials
/// of degree ≤ d) has rank below the number of monomials.
bool has_annihilator_by_rank(const BooleanFunction& f, bool complement, int d) {
  std::vector<std::uint64_t> monomials;
  for (std::uint64_t u = 0; u < f.size(); ++u)
    if (std::popcount(u) <= d) monomials.push_back(u);
  std::vector<std::vector<std::uint64_t>> rows;
  for (std::uint64_t x = 0; x < f.size(); ++x) {
    if (f(x) == complement) continue;
    std::vector<std::uint64_t> row((monomials.size() + 63) / 64, 0);
    for (std::size_t j = 0; j < monomials.size(); ++j)
      if ((x & monomials[j]) == monomials[j]) row[j / 64] |= std::uint64_t{1} << (j % 64);
    rows.push_back(std::move(row));
  }
  return rank_of(std::move(rows), monomials.size()) < monomials.size();
}

int algebraic_immunity_by_rank(const BooleanFunction& f) {
  for (int d = 0;; ++d)
    if (has_annihilator_by_rank(f, false, d) || has_annihilator_by_rank(f, true, d)) return d;
}

TEST(BooleanAlgebraicImmunity, MatchesExhaustiveSearchUpTo6Variables) {
  for (int n = 0; n <= 6; ++n) {
    for (const auto& f : functions_of(n))
      EXPECT_EQ(f.algebraic_immunity(), algebraic_immunity_by_search(f)) << f.to_hex();
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const BooleanFunction f = random_function(n, seed, 0.3 + 0.02 * static_cast<double>(seed));
      EXPECT_EQ(f.algebraic_immunity(), algebraic_immunity_by_search(f)) << f.to_hex();
    }
  }
}

// n = 10 … 12 also takes the path that splits a system in halves.
TEST(BooleanAlgebraicImmunity, MatchesPlainEliminationUpTo12Variables) {
  for (int n = 7; n <= 12; ++n) {
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      const BooleanFunction f = random_function(n, 50 + seed, 0.3 + 0.05 * static_cast<double>(seed));
      EXPECT_EQ(f.algebraic_immunity(), algebraic_immunity_by_rank(f)) << "n = " << n << ", seed " << seed;
    }
    const BooleanFunction low = from_rule(n, [](std::uint64_t x) { return (x & 7) == 7 || x == 1; });
    EXPECT_EQ(low.algebraic_immunity(), algebraic_immunity_by_rank(low)) << "n = " << n;
  }
}

TEST(BooleanAlgebraicImmunity, KnownValues) {
  // AI(MAJ_n) = ⌈n/2⌉ (Dalai, Maitra and Sarkar, 2006).
  for (int n = 1; n <= 13; ++n) EXPECT_EQ(majority(n).algebraic_immunity(), (n + 1) / 2) << "n = " << n;
  EXPECT_EQ(BooleanFunction(4).algebraic_immunity(), 0);
  EXPECT_EQ(from_rule(4, [](std::uint64_t) { return true; }).algebraic_immunity(), 0);
  EXPECT_EQ(from_rule(9, [](std::uint64_t x) { return (x & 1) != 0; }).algebraic_immunity(), 1);
  EXPECT_EQ(inner_product(8).algebraic_immunity(), 2);  // quadratic, and constant on no hyperplane
  // SageMath: B = BooleanFunction(x^254) over GF(2^8), the trace of the inverse: nonlinearity 112, AI 4.
  const BooleanFunction trace_inverse = from_rule(8, [](std::uint64_t x) {
    auto mul = [](unsigned a, unsigned b) {
      unsigned p = 0;
      for (; b != 0; b >>= 1, a = (a << 1) ^ (a & 0x80 ? 0x11B : 0))
        if (b & 1) p ^= a;
      return p & 0xFF;
    };
    unsigned y = 1, t = 0;
    for (int i = 0; i < 254; ++i) y = mul(y, static_cast<unsigned>(x));
    for (int i = 0; i < 8; ++i, y = mul(y, y)) t ^= y;  // Tr(y) = y + y^2 + … + y^128
    return t == 1;
  });
  EXPECT_EQ(trace_inverse.nonlinearity(), 112u);
  EXPECT_EQ(trace_inverse.algebraic_immunity(), 4);
}

TEST(BooleanAlgebraicImmunity, RefusesMoreThan16Variables) {
  try {
    (void)BooleanFunction(17).algebraic_immunity();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("at most 16"), std::string::npos) << e.what();
  }
}

// --- SageMath's documented examples ----------------------------------------------------------

TEST(BooleanSage, DocumentedValues) {
  const BooleanFunction bent = BooleanFunction::from_hex("0113077C165E76A8");
  EXPECT_EQ(bent.num_variables(), 6);
  EXPECT_TRUE(bent.is_bent());
  EXPECT_EQ(bent.nonlinearity(), 28u);
  EXPECT_EQ(bent.to_hex(), "0113077c165e76a8");
  // B = BooleanFunction(5); B[1] = B[3] = 1: nonlinearity 2.
  EXPECT_EQ(from_rule(5, [](std::uint64_t x) { return x == 1 || x == 3; }).nonlinearity(), 2u);
  EXPECT_EQ(BooleanFunction::from_hex("7969817CC5893BA6AC326E47619F5AD0").correlation_immunity(), 2);
  EXPECT_EQ(BooleanFunction::from_hex("03").autocorrelation(), (std::vector<std::int64_t>{8, 8, 0, 0, 0, 0, 0, 0}));
}

// --- text forms ----------------------------------------------------------------------------

void expect_error(auto call, ErrorCode code, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no error (expected one saying \"" << fragment << "\")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BooleanHex, RoundTripsAndFollowsSageMath) {
  for (int n = 0; n <= 12; ++n)
    for (const auto& f : functions_of(n)) EXPECT_EQ(BooleanFunction::from_hex(f.to_hex(), n), f);
  for (int n = 2; n <= 12; ++n) {
    const BooleanFunction f = random_function(n, 5);
    EXPECT_EQ(BooleanFunction::from_hex("0x" + f.to_hex()), f);
  }
  // f(0) is the lowest bit of the last digit.
  const BooleanFunction f = BooleanFunction::from_hex("0X1e");
  EXPECT_EQ(f.num_variables(), 3);
  for (std::uint64_t x = 0; x < 8; ++x) EXPECT_EQ(f(x), ((0x1e >> x) & 1) != 0);
  EXPECT_EQ(BooleanFunction::from_hex("A").num_variables(), 2);
  EXPECT_EQ(BooleanFunction::from_hex("1", 0).weight(), 1u);
  EXPECT_EQ(BooleanFunction::from_hex("2", 1).to_hex(), "2");
  EXPECT_EQ(BooleanFunction(0).to_hex(), "0");
}

TEST(BooleanHex, Errors) {
  using BF = BooleanFunction;
  expect_error([] { (void)BF::from_hex("0x12g4"); }, ErrorCode::invalid_argument,
               "'g' at position 5 is not a hex digit");
  expect_error([] { (void)BF::from_hex("123"); }, ErrorCode::invalid_argument, "has 3 digits");
  expect_error([] { (void)BF::from_hex(""); }, ErrorCode::invalid_argument, "empty");
  expect_error([] { (void)BF::from_hex("0x"); }, ErrorCode::invalid_argument, "empty");
  expect_error([] { (void)BF::from_hex("1234", 3); }, ErrorCode::invalid_argument, "not the 2 of 3 variables");
  expect_error([] { (void)BF::from_hex("2", 0); }, ErrorCode::invalid_argument,
               "too large for 0 variables (at most 1)");
  expect_error([] { (void)BF::from_hex("4", 1); }, ErrorCode::invalid_argument, "too large for 1 variable (at most 3)");
  expect_error([] { (void)BF::from_hex("1", 33); }, ErrorCode::invalid_argument, "33 variables is outside 0 … 32");
}

TEST(BooleanConstruction, ValuesWordsAndErrors) {
  const std::vector<std::uint8_t> values = {0, 1, 1, 0, 1, 0, 0, 1};
  const BooleanFunction f = BooleanFunction::from_values(values);
  EXPECT_EQ(f.num_variables(), 3);
  EXPECT_EQ(f.words()[0], 0x96u);
  EXPECT_EQ(BooleanFunction::from_words(f.words(), 3), f);
  const std::vector<std::uint64_t> wide(2, ~std::uint64_t{0});
  EXPECT_EQ(BooleanFunction::from_words(wide, 7).weight(), 128u);
  EXPECT_EQ(BooleanFunction(1).size(), 2u);

  const std::vector<std::uint8_t> two = {0, 1, 2, 0}, three = {0, 1, 1};
  expect_error([&] { (void)BooleanFunction::from_values(two); }, ErrorCode::invalid_argument,
               "value 2 at index 2 is not 0 or 1");
  expect_error([&] { (void)BooleanFunction::from_values(three); }, ErrorCode::invalid_argument, "has 3 values");
  expect_error([&] { (void)BooleanFunction::from_values({}); }, ErrorCode::invalid_argument, "has 0 values");
  const std::vector<std::uint64_t> stray = {0x1F};
  expect_error([&] { (void)BooleanFunction::from_words(stray, 2); }, ErrorCode::invalid_argument, "bit 4 is set");
  expect_error([&] { (void)BooleanFunction::from_words(wide, 6); }, ErrorCode::invalid_argument, "has 2 words, not 1");
  expect_error([] { (void)BooleanFunction(33); }, ErrorCode::invalid_argument, "33 variables");
  expect_error([] { (void)BooleanFunction(-1); }, ErrorCode::invalid_argument, "-1 variables");
}

class BooleanFile : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("fastconv_boolean_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                       "_" + std::to_string(files_.size()) + ".txt");
    std::ofstream(path, std::ios::binary) << text;
    files_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const auto& p : files_) std::filesystem::remove(p);
  }
  std::vector<std::filesystem::path> files_;
};

TEST_F(BooleanFile, ReadsHexAndValues) {
  const BooleanFunction want = BooleanFunction::from_hex("0113077C165E76A8");
  EXPECT_EQ(BooleanFunction::from_file(write("  0x0113077C165E76A8\n")), want);
  const BooleanFunction f = BooleanFunction::from_values(std::vector<std::uint8_t>{0, 1, 1, 0, 1, 0, 0, 1});
  EXPECT_EQ(BooleanFunction::from_file(write("0 1 1 0\n1 0 0 1\n")), f);
  EXPECT_EQ(BooleanFunction::from_file(write("0,1,1,0,1,0,0,1")), f);
  EXPECT_EQ(BooleanFunction::from_file(write("0110\r\n1001\r\n")), f);
  EXPECT_EQ(BooleanFunction::from_file(write("1")).weight(), 1u);
}

TEST_F(BooleanFile, ErrorsNameTheFileAndThePlace) {
  const auto bad_value = write("0 1\n1 2\n");
  expect_error([&] { (void)BooleanFunction::from_file(bad_value); }, ErrorCode::io,
               bad_value.string() + ": line 2, column 3: '2' is not a truth-table value");
  const auto odd = write("0 1 1\n");
  expect_error([&] { (void)BooleanFunction::from_file(odd); }, ErrorCode::io, odd.string() + ": 3 values");
  const auto bad_digit = write("0x01z3\n");
  expect_error([&] { (void)BooleanFunction::from_file(bad_digit); }, ErrorCode::io,
               "line 1, column 5: 'z' is not a hex digit");
  const auto bad_length = write("0x123");
  expect_error([&] { (void)BooleanFunction::from_file(bad_length); }, ErrorCode::io, "has 3 digits");
  const auto trailing = write("0x1234 0x5678");
  expect_error([&] { (void)BooleanFunction::from_file(trailing); }, ErrorCode::io, "line 1, column 8: text after");
  const auto empty = write(" \n");
  expect_error([&] { (void)BooleanFunction::from_file(empty); }, ErrorCode::io, "the file is empty");
  expect_error([] { (void)BooleanFunction::from_file("/nonexistent/truth_table.txt"); }, ErrorCode::io,
               "/nonexistent/truth_table.txt: cannot open: No such file or directory");
  const auto directory = std::filesystem::temp_directory_path();
  expect_error([&] { (void)BooleanFunction::from_file(directory); }, ErrorCode::io,
               directory.string() + ": cannot open: Is a directory");
}

}  // namespace
