// Algebraic immunity: the smallest d such that f or f ⊕ 1 has a nonzero annihilator g of
// degree ≤ d (g·f = 0), decided by linear algebra over GF(2) with M4RI.
//
// A g of degree ≤ d vanishing on supp f is a kernel vector of the evaluation matrix (points of
// supp f × monomials of degree ≤ d). Two reductions keep the systems small enough for a random
// balanced function of 16 variables to take a second or two:
// - the values of g at the points of weight ≤ d determine g (those points are an information
//   set of the Reed–Muller code), so only f's zeros of weight ≤ d are unknowns, and only f's
//   support of weight > d gives equations (annihilators_directly);
// - splitting on the last variable, g = (g0, g1) annihilates f = (f0, f1) iff g0 and g1
//   annihilate the halves and their degree-d parts agree (join_halves), so large systems become
//   two half-size ones and a small one joining their solutions.
#include <m4ri/m4ri.h>

#include <array>
#include <bit>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "analysis/anf.hpp"
#include "fastconv/boolean.hpp"
#include "fastconv/error.hpp"

namespace fastconv {
namespace {

using analysis::words_for;
using Table = std::vector<std::uint64_t>;  // a packed truth table (or ANF) of 2^n bits

struct MatrixDeleter {
  void operator()(mzd_t* m) const noexcept { mzd_free(m); }
};
using Matrix = std::unique_ptr<mzd_t, MatrixDeleter>;

// This M4RI is built without OpenMP, and then its allocation caches are not synchronised: one
// thread at a time may use it.
std::mutex m4ri_mutex;

bool bit(std::span<const std::uint64_t> table, std::uint64_t x) { return (table[x >> 6] >> (x & 63)) & 1; }

/// Σ_{k ≤ d} C(n, k): the number of monomials of degree ≤ d in n variables.
std::uint64_t monomials(int n, int d) {
  std::uint64_t total = 0, binomial = 1;  // C(n, k)
  for (int k = 0; k <= d && k <= n; ++k) {
    total += binomial;
    binomial = binomial * static_cast<std::uint64_t>(n - k) / static_cast<std::uint64_t>(k + 1);
  }
  return total;
}

constexpr int kMaxN = BooleanFunction::max_algebraic_immunity_variables;

/// kPartialBinomialParity[m][k] = Σ_{j ≤ k} C(m, j) mod 2.
constexpr auto kPartialBinomialParity = [] {
  std::array<std::array<std::uint8_t, kMaxN + 1>, kMaxN + 1> binomial{}, partial{};
  for (int m = 0; m <= kMaxN; ++m) {
    binomial[m][0] = 1;
    for (int j = 1; j <= m; ++j) binomial[m][j] = binomial[m - 1][j - 1] ^ (j < m ? binomial[m - 1][j] : 0);
    std::uint8_t sum = 0;
    for (int k = 0; k <= kMaxN; ++k) partial[m][k] = sum ^= binomial[m][k];
  }
  return partial;
}();

/// Calls visit(j) for every column j where row r of m holds a 1, in increasing order.
template <class Visit>
void for_each_one(const mzd_t* m, rci_t r, Visit visit) {
  const word* row = m->rows[r];
  for (wi_t i = 0; i < m->width; ++i) {
    for (word w = row[i] & (i + 1 == m->width ? m->high_bitmask : ~word{0}); w != 0; w &= w - 1)
      visit(static_cast<rci_t>(i * m4ri_radix + std::countr_zero(w)));
  }
}

/// Bit u set iff wt(u) ≤ d: the monomials of degree ≤ d.
Table low_degree_mask(int n, int d) {
  Table mask(words_for(n), 0);
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << n); ++u)
    if (std::popcount(u) <= d) mask[u >> 6] |= std::uint64_t{1} << (u & 63);
  return mask;
}

/// The vectors v with a·v = 0, as the rows of a matrix (null when only v = 0). Overwrites a.
Matrix kernel_rows(mzd_t* a) {
  mzd_t* columns = mzd_kernel_left_pluq(a, 0);
  if (columns == nullptr) return nullptr;
  Matrix rows(mzd_transpose(nullptr, columns));
  mzd_free(columns);
  return rows;
}

/// A basis of the annihilators of degree ≤ d of f (n variables), from one system. With g's
/// values at the points x of weight ≤ d as unknowns, Möbius-transforming twice gives, at any y,
///   g(y) = Σ_{x ⊆ y, wt x ≤ d} g(x)·(Σ_{j ≤ d − wt x} C(wt y − wt x, j) mod 2).
/// g vanishes on supp f: its unknowns are its values at the zeros of f of weight ≤ d, and every
/// point of supp f of weight > d is an equation.
std::vector<Table> annihilators_directly(std::span<const std::uint64_t> f, int n, int d) {
  std::vector<std::uint8_t> weight(std::size_t{1} << n);
  std::vector<std::int32_t> unknown_of(std::size_t{1} << n, -1);
  std::vector<std::uint32_t> unknowns, equations;
  for (std::uint32_t x = 0; x < (std::uint32_t{1} << n); ++x) {
    weight[x] = static_cast<std::uint8_t>(std::popcount(x));
    const bool low = weight[x] <= d;
    if (low && !bit(f, x)) {
      unknown_of[x] = static_cast<std::int32_t>(unknowns.size());
      unknowns.push_back(x);
    } else if (!low && bit(f, x)) {
      equations.push_back(x);
    }
  }
  if (unknowns.empty()) return {};
  const auto columns = static_cast<rci_t>(unknowns.size());
  Matrix kernel;
  if (equations.empty()) {
    kernel.reset(mzd_init(columns, columns));
    mzd_set_ui(kernel.get(), 1);  // every unknown is free
  } else {
    Matrix system(mzd_init(static_cast<rci_t>(equations.size()), columns));
    for (std::size_t r = 0; r < equations.size(); ++r) {
      const std::uint32_t y = equations[r];
      auto add = [&](std::uint32_t x, std::int32_t column) {
        if (kPartialBinomialParity[weight[y] - weight[x]][d - weight[x]])
          mzd_write_bit(system.get(), static_cast<rci_t>(r), column, 1);
      };
      // The unknowns x ⊆ y: among every subset of y, or among the unknowns, whichever is fewer.
      if (unknowns.size() < (std::size_t{1} << weight[y])) {
        for (rci_t j = 0; j < columns; ++j)
          if ((unknowns[j] & ~y) == 0) add(unknowns[j], j);
      } else {
        for (std::uint32_t x = y;; x = (x - 1) & y) {
          if (unknown_of[x] >= 0) add(x, unknown_of[x]);
          if (x == 0) break;
        }
      }
    }
    kernel = kernel_rows(system.get());
  }
  std::vector<Table> basis;
  if (!kernel) return basis;
  const Table mask = low_degree_mask(n, d);
  for (rci_t r = 0; r < kernel->nrows; ++r) {
    Table g(words_for(n), 0);  // g at the points of weight ≤ d, 0 elsewhere
    for_each_one(kernel.get(), r, [&](rci_t j) { g[unknowns[j] >> 6] |= std::uint64_t{1} << (unknowns[j] & 63); });
    analysis::moebius_transform(g, n);  // its ANF coefficients of degree ≤ d are g's own
    for (std::size_t i = 0; i < g.size(); ++i) g[i] &= mask[i];
    analysis::moebius_transform(g, n);
    basis.push_back(std::move(g));
  }
  return basis;
}

/// A basis of the annihilators of degree ≤ d of f = (f0, f1) (n variables, split on x_{n−1}),
/// from bases of those of f0 (`low`) and f1 (`high`). ANF(g0, g1) = ANF(g0) ⊕ x_{n−1}·ANF(g0 ⊕ g1),
/// so for g0, g1 of degree ≤ d, deg (g0, g1) ≤ d iff their degree-d ANF parts agree.
std::vector<Table> join_halves(const std::vector<Table>& low, const std::vector<Table>& high, int n, int d) {
  const int m = n - 1;
  const std::size_t count = low.size() + high.size();
  if (count == 0) return {};
  auto member = [&](std::size_t j) -> const Table& { return j < low.size() ? low[j] : high[j - low.size()]; };

  std::vector<std::int32_t> row_of(std::size_t{1} << m, -1);  // the monomials of degree d
  std::int32_t rows = 0;
  for (std::uint32_t u = 0; u < (std::uint32_t{1} << m); ++u)
    if (std::popcount(u) == d) row_of[u] = rows++;
  Matrix top(mzd_init(rows, static_cast<rci_t>(count)));  // column j: the degree-d part of member j
  for (std::size_t j = 0; j < count; ++j) {
    Table anf = member(j);
    analysis::moebius_transform(anf, m);
    for (std::size_t i = 0; i < anf.size(); ++i)
      for (std::uint64_t w = anf[i]; w != 0; w &= w - 1) {
        const std::uint64_t u = 64 * i + static_cast<std::uint64_t>(std::countr_zero(w));
        if (row_of[u] >= 0) mzd_write_bit(top.get(), row_of[u], static_cast<rci_t>(j), 1);
      }
  }
  // Low members contribute to g0 with a kernel vector's first coordinates, high ones to g1.
  std::vector<Table> basis;
  const Matrix kernel = kernel_rows(top.get());
  if (!kernel) return basis;
  const std::size_t half = words_for(m);
  for (rci_t r = 0; r < kernel->nrows; ++r) {
    Table g(2 * half, 0);
    for_each_one(kernel.get(), r, [&](rci_t column) {
      const auto j = static_cast<std::size_t>(column);
      const std::size_t offset = j < low.size() ? 0 : half;
      for (std::size_t i = 0; i < half; ++i) g[offset + i] ^= member(j)[i];
    });
    basis.push_back(std::move(g));
  }
  return basis;
}

/// Splitting pays once the direct system is large, while the halves have at least 2d variables:
/// then a half with about half its points in its support has about as many of them as it has
/// monomials of degree ≤ d, so its annihilators, and the system joining them, stay few. (Halves of
/// whole words, n − 1 ≥ 6, keep the tables simple.)
bool worth_splitting(int n, int d) { return n - 1 >= 2 * d && n - 1 >= 6 && monomials(n, d) >= 1024; }

std::vector<Table> annihilators(std::span<const std::uint64_t> f, int n, int d) {
  if (!worth_splitting(n, d)) return annihilators_directly(f, n, d);
  const std::size_t half = words_for(n - 1);
  return join_halves(annihilators(f.first(half), n - 1, d), annihilators(f.subspan(half), n - 1, d), n, d);
}

bool has_annihilator(std::span<const std::uint64_t> f, std::uint64_t weight, int n, int d) {
  // Fewer points to vanish on than monomials: a nonzero solution exists without solving.
  return weight < monomials(n, d) || !annihilators(f, n, d).empty();
}

}  // namespace

int BooleanFunction::algebraic_immunity() const {
  if (n_ > max_algebraic_immunity_variables)
    throw Error(ErrorCode::unsupported, "algebraic immunity of a Boolean function of " + std::to_string(n_) +
                                            " variables: it is computed for at most " +
                                            std::to_string(max_algebraic_immunity_variables) +
                                            " variables (its linear systems have about 2^n rows)");
  const std::uint64_t ones = weight();
  if (ones == 0 || ones == size()) return 0;  // the constant 1 annihilates f ⊕ 1 or f
  Table complement = words_;
  for (auto& w : complement) w = ~w;
  if (n_ < 6) complement[0] &= (std::uint64_t{1} << size()) - 1;

  const std::lock_guard lock(m4ri_mutex);
  auto annihilated_at = [&](int d) {
    return has_annihilator(words_, ones, n_, d) || has_annihilator(complement, size() - ones, n_, d);
  };
  // AI ≤ ⌈n/2⌉ (Courtois–Meier): there, f or f ⊕ 1 has fewer points than there are monomials.
  // Most functions of interest reach that bound, and one test settles it: no annihilator of
  // degree ⌈n/2⌉ − 1 means none of a lower degree either.
  const int bound = (n_ + 1) / 2;
  if (bound == 1 || !annihilated_at(bound - 1)) return bound;
  for (int d = 1; d < bound - 1; ++d)
    if (annihilated_at(d)) return d;
  return bound - 1;
}

}  // namespace fastconv
