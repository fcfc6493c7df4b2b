// src/analysis/walsh.hpp — the spectral passes behind BooleanFunction: the WHT of a truth
// table's 0/1 values in a ring, what it says about the Walsh spectrum, and the autocorrelation
// as the WHT of the squared spectrum. Every statistic is gathered in one pass on all threads.
//
// The WHT runs on the 0/1 values, F(a) = Σₓ f(x)(−1)^(a·x), not on the ±1 values: then
// |F(a)| ≤ 2^(n−1) for a ≠ 0, which fits Z/2^32 for every n ≤ 32 (the ±1 transform, |W| ≤ 2^n,
// would not), and W(a) = 2^n·[a = 0] − 2·F(a).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"
#include "fastconv/boolean.hpp"

namespace fastconv::analysis {

/// F(a), a ≠ 0, from its residue mod 2^32. The signed reading is exact while |F| < 2^31, i.e.
/// for n < 32; at n = 32, F = 2^31 and F = −2^31 share the residue 0x80000000. Either makes f
/// affine: F(a) = 2^31 only for f = a·x ⊕ 1 and −2^31 only for f = a·x (the support is a
/// hyperplane), so f(0) tells them apart.
constexpr std::int64_t zero_one_coefficient(std::uint32_t residue, int n, bool f_at_zero) noexcept {
  constexpr std::int64_t half = std::int64_t{1} << 31;
  if (n == 32 && residue == 0x80000000u) return f_at_zero ? half : -half;
  return static_cast<std::int32_t>(residue);
}

/// F(a) from its residue mod 2^64: |F| ≤ 2^32 always reads exactly.
constexpr std::int64_t zero_one_coefficient(std::uint64_t residue, int /*n*/, bool /*f_at_zero*/) noexcept {
  return static_cast<std::int64_t>(residue);
}

/// W_f(a) for a ≠ 0 from the residue of F(a).
template <class W>
constexpr std::int64_t walsh_coefficient(W residue, int n, bool f_at_zero) noexcept {
  return -2 * zero_one_coefficient(residue, n, f_at_zero);
}

/// out[x] = f(x) for the 2^n bits of a packed truth table (W = uint32_t or uint64_t).
template <class W>
void spread_bits(std::span<const std::uint64_t> words, int n, W* out);

/// out (2^n words) = F, the WHT of f's 0/1 values in W's ring (Z/2^32 or Z/2^64), on `backend`.
template <class W>
void zero_one_transform(std::span<const std::uint64_t> words, int n, const Backend& backend, W* out);

/// Parseval (Σ W² = 2^(2n)) makes the linearity L and the number of nonzero coefficients enough
/// for the rest: f is bent iff L = 2^(n/2), and plateaued iff nonzero·L² = 2^(2n).
struct WalshStatistics {
  std::uint64_t max_magnitude = 0;  ///< max |W(a)| over every a: the linearity
  std::uint64_t nonzero = 0;        ///< #{a : W(a) ≠ 0}
  int correlation_immunity = 0;     ///< the largest m ≤ n with W(a) = 0 for 1 ≤ wt(a) ≤ m
  Histogram histogram;              ///< W value → count, when asked for
};

/// The Walsh statistics of f from F (2^n residues, zero_one_transform), its weight and f(0).
template <class W>
WalshStatistics walsh_statistics(const W* transform, int n, std::uint64_t weight, bool f_at_zero, bool with_histogram);

/// In place, n ≥ 0: F (exact, from zero_one_transform<uint64_t>) becomes 2^s·Δ_f(a) mod 2^64, the
/// WHT of the squared Walsh spectrum (Wiener–Khinchin: Σ_b W(b)²(−1)^(a·b) = 2^n·Δ(a)); returns s.
/// For n ≥ 2 the squares are of W/2, so s = n − 2 and every value stays below 2^62 in magnitude.
int autocorrelation_transform(std::uint64_t* buffer, int n, std::uint64_t weight, const Backend& backend);

struct AutocorrelationStatistics {
  std::uint64_t absolute_indicator = 0;            ///< max |Δ(a)| over a ≠ 0
  detail::u128 sum_of_squares = 0;                 ///< Σ_a Δ(a)²
  Histogram histogram;                             ///< when asked for
  std::vector<LinearStructure> linear_structures;  ///< when asked for, by increasing a
};

/// The autocorrelation statistics from 2^n words holding 2^shift·Δ(a) (autocorrelation_transform).
AutocorrelationStatistics autocorrelation_statistics(const std::uint64_t* scaled, int n, int shift, bool with_histogram,
                                                     bool with_linear_structures);

}  // namespace fastconv::analysis
