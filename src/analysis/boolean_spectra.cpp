// BooleanFunction's Walsh and autocorrelation spectra and statistics, and summarize(): each a
// WHT on the backend and one pass over its result (analysis/walsh.hpp).
#include "analysis/walsh.hpp"
#include "core/exact.hpp"
#include "core/memory.hpp"
#include "fastconv/boolean.hpp"
#include "fastconv/error.hpp"

namespace fastconv {
namespace {

using analysis::AutocorrelationStatistics;
using analysis::WalshStatistics;

std::string of_function(std::string_view what, int n) {
  return std::string(what) + " of a Boolean function of " + std::to_string(n) + " variables";
}

/// The statistics need only F mod 2^32: 4 bytes a point, 16 GiB at n = 32.
WalshStatistics walsh_pass(const BooleanFunction& f, const Backend& backend, bool with_histogram) {
  const int n = f.num_variables();
  detail::require_memory(4 * f.size(), of_function("the Walsh spectrum", n));
  const auto transform = detail::allocate_words<std::uint32_t>(f.size());
  analysis::zero_one_transform(f.words(), n, backend, transform.get());
  return analysis::walsh_statistics(transform.get(), n, f.weight(), f(0), with_histogram);
}

AutocorrelationStatistics autocorrelation_pass(const BooleanFunction& f, const Backend& backend, bool with_histogram,
                                               bool with_linear_structures) {
  const int n = f.num_variables();
  detail::require_memory(8 * f.size(), of_function("the autocorrelation", n));
  const auto buffer = detail::allocate_words<std::uint64_t>(f.size());
  analysis::zero_one_transform(f.words(), n, backend, buffer.get());
  const int shift = analysis::autocorrelation_transform(buffer.get(), n, f.weight(), backend);
  return analysis::autocorrelation_statistics(buffer.get(), n, shift, with_histogram, with_linear_structures);
}

/// Σ Δ² fits 64 bits or is an overflow Error.
std::uint64_t checked_sum_of_squares(detail::u128 sum, int n) {
  if (sum > ~std::uint64_t{0})
    throw Error(ErrorCode::overflow, of_function("the sum-of-squares indicator", n) + " is " + detail::to_string(sum) +
                                         ", more than a uint64 holds");
  return static_cast<std::uint64_t>(sum);
}

/// Parseval: Σ W² = 2^(2n) ≤ 2^n·L², with equality iff every |W| = L.
bool is_bent(const WalshStatistics& s, int n) { return n % 2 == 0 && s.max_magnitude == std::uint64_t{1} << (n / 2); }

/// Parseval: Σ W² = 2^(2n) ≤ nonzero·L², with equality iff every nonzero |W| = L.
std::optional<std::uint64_t> plateau_amplitude(const WalshStatistics& s, int n) {
  const detail::u128 l = s.max_magnitude;
  if (s.nonzero * l * l != detail::u128{1} << (2 * n)) return std::nullopt;
  return s.max_magnitude;
}

}  // namespace

std::vector<std::int64_t> BooleanFunction::walsh_spectrum(const Backend& backend) const {
  detail::require_memory(8 * size(), of_function("the Walsh spectrum", n_));
  std::vector<std::int64_t> spectrum(size());
  // int64 and uint64 may alias: F is computed in place in Z/2^64, where it is exact.
  auto* residues = reinterpret_cast<std::uint64_t*>(spectrum.data());
  analysis::zero_one_transform(words(), n_, backend, residues);
  const auto count = static_cast<std::int64_t>(size());
#pragma omp parallel for schedule(static) if (count >= (std::int64_t{1} << 18))
  for (std::int64_t a = 1; a < count; ++a) spectrum[a] = analysis::walsh_coefficient(residues[a], n_, (*this)(0));
  spectrum[0] = count - 2 * static_cast<std::int64_t>(weight());
  return spectrum;
}

std::uint64_t BooleanFunction::linearity(const Backend& backend) const {
  return walsh_pass(*this, backend, false).max_magnitude;
}

std::uint64_t BooleanFunction::nonlinearity(const Backend& backend) const { return (size() - linearity(backend)) / 2; }

Histogram BooleanFunction::walsh_histogram(const Backend& backend) const {
  return walsh_pass(*this, backend, true).histogram;
}

bool BooleanFunction::is_bent(const Backend& backend) const {
  return fastconv::is_bent(walsh_pass(*this, backend, false), n_);
}

std::optional<std::uint64_t> BooleanFunction::plateau_amplitude(const Backend& backend) const {
  return fastconv::plateau_amplitude(walsh_pass(*this, backend, false), n_);
}

int BooleanFunction::correlation_immunity(const Backend& backend) const {
  return walsh_pass(*this, backend, false).correlation_immunity;
}

int BooleanFunction::resiliency_order(const Backend& backend) const {
  return is_balanced() ? correlation_immunity(backend) : -1;
}

std::vector<std::int64_t> BooleanFunction::autocorrelation(const Backend& backend) const {
  detail::require_memory(8 * size(), of_function("the autocorrelation", n_));
  std::vector<std::int64_t> delta(size());
  auto* residues = reinterpret_cast<std::uint64_t*>(delta.data());
  analysis::zero_one_transform(words(), n_, backend, residues);
  const int shift = analysis::autocorrelation_transform(residues, n_, weight(), backend);
  const auto count = static_cast<std::int64_t>(size());
#pragma omp parallel for schedule(static) if (count >= (std::int64_t{1} << 18))
  for (std::int64_t a = 0; a < count; ++a) delta[a] >>= shift;  // exact: 2^shift·Δ(a)
  return delta;
}

std::uint64_t BooleanFunction::absolute_indicator(const Backend& backend) const {
  return autocorrelation_pass(*this, backend, false, false).absolute_indicator;
}

std::uint64_t BooleanFunction::sum_of_squares_indicator(const Backend& backend) const {
  return checked_sum_of_squares(autocorrelation_pass(*this, backend, false, false).sum_of_squares, n_);
}

Histogram BooleanFunction::autocorrelation_histogram(const Backend& backend) const {
  return autocorrelation_pass(*this, backend, true, false).histogram;
}

std::vector<LinearStructure> BooleanFunction::linear_structures(const Backend& backend) const {
  return autocorrelation_pass(*this, backend, false, true).linear_structures;
}

BooleanSummary summarize(const BooleanFunction& f, const Backend& backend) {
  const int n = f.num_variables();
  const std::uint64_t weight = f.weight();
  // One buffer in Z/2^64 serves both spectra: F first, then 2^shift·Δ in its place.
  detail::require_memory(8 * f.size(), of_function("the summary", n));
  const auto buffer = detail::allocate_words<std::uint64_t>(f.size());
  analysis::zero_one_transform(f.words(), n, backend, buffer.get());
  WalshStatistics walsh = analysis::walsh_statistics(buffer.get(), n, weight, f(0), true);
  const int shift = analysis::autocorrelation_transform(buffer.get(), n, weight, backend);
  AutocorrelationStatistics autocorrelation = analysis::autocorrelation_statistics(buffer.get(), n, shift, true, false);

  BooleanSummary s;
  s.n = n;
  s.weight = weight;
  s.balanced = 2 * weight == f.size();
  s.linearity = walsh.max_magnitude;
  s.nonlinearity = (f.size() - walsh.max_magnitude) / 2;
  s.absolute_indicator = autocorrelation.absolute_indicator;
  if (autocorrelation.sum_of_squares <= ~std::uint64_t{0})
    s.sum_of_squares_indicator = static_cast<std::uint64_t>(autocorrelation.sum_of_squares);
  s.algebraic_degree = f.algebraic_degree();
  s.correlation_immunity = walsh.correlation_immunity;
  s.resiliency = s.balanced ? walsh.correlation_immunity : -1;
  s.is_bent = is_bent(walsh, n);
  s.plateau_amplitude = plateau_amplitude(walsh, n);
  s.walsh_histogram = std::move(walsh.histogram);
  s.autocorrelation_histogram = std::move(autocorrelation.histogram);
  return s;
}

}  // namespace fastconv
