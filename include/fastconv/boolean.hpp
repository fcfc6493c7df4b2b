// fastconv/boolean.hpp — Boolean functions and their Walsh-spectral properties.
//
// Conventions are SageMath's (sage.crypto.boolean_function) and sboxU's:
// - f is given by its truth table f(0 … 2^n−1); bit i of x is the variable x_i.
// - A hex truth table is the integer Σ f(x)·2^x written most-significant digit first, so
//   f(0) is the lowest bit of the last digit ("0x" optional; 2^n/4 digits, one for n < 2).
// - Walsh W_f(a) = Σₓ (−1)^(f(x) ⊕ a·x); autocorrelation Δ_f(a) = Σₓ (−1)^(f(x) ⊕ f(x⊕a)).
//
// Every result is exact. Spectra are computed with the WHT of the chosen backend in exact
// integer arithmetic: the Walsh spectrum in Z/2^32 (|W| ≤ 2^n is recovered exactly for every
// n ≤ 32), the autocorrelation as the WHT of W² (Wiener–Khinchin), so f of 32 variables costs
// 2^32 four-byte words of memory for its Walsh spectrum. A request whose working memory does not
// fit the machine is refused with an Error saying how much it needs.
//
// A BooleanFunction is an immutable value; its const methods may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastconv/backend.hpp"

namespace fastconv {

/// A distribution: value → how many points take it, by increasing value.
using Histogram = std::map<std::int64_t, std::uint64_t>;

/// A linear structure (a, c): f(x ⊕ a) ⊕ f(x) = c for every x.
struct LinearStructure {
  std::uint64_t a = 0;
  bool c = false;
  friend bool operator==(const LinearStructure&, const LinearStructure&) = default;
};

/// A Boolean function of n ≤ 32 variables, its truth table packed 64 values to a word.
class BooleanFunction {
 public:
  static constexpr int max_variables = 32;
  /// Algebraic immunity is computed up to this many variables.
  static constexpr int max_algebraic_immunity_variables = 16;

  /// The zero function of n variables (invalid_argument outside [0, 32]).
  explicit BooleanFunction(int n);

  /// From a hex truth table (SageMath's convention, above); n from its length unless given.
  /// invalid_argument names the first character that is not a hex digit, or the wrong length.
  static BooleanFunction from_hex(std::string_view hex, std::optional<int> n = std::nullopt);
  /// From 2^n values, each 0 or 1 (invalid_argument names the first other one, or the length).
  static BooleanFunction from_values(std::span<const std::uint8_t> values);
  /// From a packed truth table: bit x % 64 of words[x / 64] is f(x); 2^n bits, n ≤ 32.
  static BooleanFunction from_words(std::span<const std::uint64_t> words, int n);
  /// From a file holding either a hex truth table with a "0x" prefix, or 0/1 values separated
  /// by whitespace or commas (or written together, "0110…"). Errors name the file and position.
  static BooleanFunction from_file(const std::filesystem::path& path);
  /// The same from a file's text; `source` names it in errors (e.g. "<stdin>").
  static BooleanFunction from_text(std::string_view text, std::string_view source);

  [[nodiscard]] int num_variables() const noexcept { return n_; }
  /// 2^n, the number of points.
  [[nodiscard]] std::uint64_t size() const noexcept { return std::uint64_t{1} << n_; }
  /// f(x) for x < 2^n.
  [[nodiscard]] bool operator()(std::uint64_t x) const noexcept { return (words_[x >> 6] >> (x & 63)) & 1; }
  /// The packed truth table (ceil(2^n / 64) words; bits past 2^n are zero).
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_; }
  /// The hex truth table, most-significant digit first, without a prefix.
  [[nodiscard]] std::string to_hex() const;
  friend bool operator==(const BooleanFunction&, const BooleanFunction&) = default;

  /// Hamming weight: the number of x with f(x) = 1.
  [[nodiscard]] std::uint64_t weight() const noexcept;
  [[nodiscard]] bool is_balanced() const noexcept;

  /// W_f(a) for a = 0 … 2^n−1.
  [[nodiscard]] std::vector<std::int64_t> walsh_spectrum(const Backend& backend = Backend::best()) const;
  /// max over every a of |W_f(a)|.
  [[nodiscard]] std::uint64_t linearity(const Backend& backend = Backend::best()) const;
  /// 2^(n−1) − linearity/2: the distance to the nearest affine function.
  [[nodiscard]] std::uint64_t nonlinearity(const Backend& backend = Backend::best()) const;
  /// W_f value → count.
  [[nodiscard]] Histogram walsh_histogram(const Backend& backend = Backend::best()) const;
  /// n even and |W_f(a)| = 2^(n/2) for every a.
  [[nodiscard]] bool is_bent(const Backend& backend = Backend::best()) const;
  /// The amplitude A if every nonzero |W_f(a)| equals A (f is plateaued), else nullopt.
  [[nodiscard]] std::optional<std::uint64_t> plateau_amplitude(const Backend& backend = Backend::best()) const;
  [[nodiscard]] bool is_plateaued(const Backend& backend = Backend::best()) const {
    return plateau_amplitude(backend).has_value();
  }
  /// The largest m ≤ n with W_f(a) = 0 for every 1 ≤ wt(a) ≤ m (SageMath's correlation_immunity,
  /// except for a constant f: n here, n − 1 from SageMath's loop).
  [[nodiscard]] int correlation_immunity(const Backend& backend = Backend::best()) const;
  /// The correlation immunity if f is balanced, −1 otherwise.
  [[nodiscard]] int resiliency_order(const Backend& backend = Backend::best()) const;

  /// Δ_f(a) for a = 0 … 2^n−1.
  [[nodiscard]] std::vector<std::int64_t> autocorrelation(const Backend& backend = Backend::best()) const;
  /// max over a ≠ 0 of |Δ_f(a)| (0 for n = 0).
  [[nodiscard]] std::uint64_t absolute_indicator(const Backend& backend = Backend::best()) const;
  /// Σ_a Δ_f(a)²; an overflow Error if it does not fit 64 bits (only possible for n ≥ 22).
  [[nodiscard]] std::uint64_t sum_of_squares_indicator(const Backend& backend = Backend::best()) const;
  /// Δ_f value → count.
  [[nodiscard]] Histogram autocorrelation_histogram(const Backend& backend = Backend::best()) const;
  /// Every (a, c) with Δ_f(a) = (−1)^c·2^n, by increasing a; (0, 0) is always the first.
  [[nodiscard]] std::vector<LinearStructure> linear_structures(const Backend& backend = Backend::best()) const;

  /// The algebraic normal form as a truth table: bit u is the coefficient of Π_{i ∈ u} x_i
  /// (the binary Möbius transform).
  [[nodiscard]] BooleanFunction algebraic_normal_form() const;
  /// The largest wt(u) with ANF coefficient 1; −1 for the zero function (as SageMath's zero polynomial).
  [[nodiscard]] int algebraic_degree() const;
  /// The smallest degree of a nonzero g with g·f = 0 or g·(f⊕1) = 0; unsupported for n > 16.
  [[nodiscard]] int algebraic_immunity() const;

 private:
  BooleanFunction(int n, std::vector<std::uint64_t> words);
  int n_ = 0;
  std::vector<std::uint64_t> words_;
};

/// Everything `fastconv boolean analyze` prints, from one pass over each spectrum.
struct BooleanSummary {
  int n = 0;
  std::uint64_t weight = 0;
  bool balanced = false;
  std::uint64_t nonlinearity = 0;
  std::uint64_t linearity = 0;
  std::uint64_t absolute_indicator = 0;
  /// Σ_a Δ(a)², unset where it passes 64 bits (n ≥ 22 for functions with many linear
  /// structures, every function at n = 32: Δ(0)² = 2^64); sum_of_squares_indicator() reports that
  /// as an overflow Error, and the rest of the summary stands.
  std::optional<std::uint64_t> sum_of_squares_indicator;
  int algebraic_degree = -1;
  int correlation_immunity = 0;
  int resiliency = -1;
  bool is_bent = false;
  std::optional<std::uint64_t> plateau_amplitude;  ///< set iff plateaued
  Histogram walsh_histogram;
  Histogram autocorrelation_histogram;
};

/// The summary of f: the Walsh and autocorrelation spectra are each computed once.
[[nodiscard]] BooleanSummary summarize(const BooleanFunction& f, const Backend& backend = Backend::best());

}  // namespace fastconv
