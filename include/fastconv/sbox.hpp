// fastconv/sbox.hpp — vectorial Boolean functions (S-boxes) and their cryptographic tables.
//
// Conventions are sboxU's and SageMath's (sage.crypto.sbox):
// - S maps n input bits to m output bits, given by its look-up table S(0 … 2^n−1).
// - LAT[a][b] = Σₓ (−1)^(a·x ⊕ b·S(x)) (input mask a, output mask b; sboxU's `lat`). SageMath's
//   default scale `absolute_bias` is LAT/2; `bias` is LAT/2^(n+1), `correlation` LAT/2^n, and
//   `fourier_coefficient` LAT itself.
// - DDT[a][b] = #{x : S(x⊕a) ⊕ S(x) = b}.
// - BCT[a][b] = #{x : S⁻¹(S(x)⊕b) ⊕ S⁻¹(S(x⊕a)⊕b) = a} (permutations only).
// - ACT[a][b] = Σₓ (−1)^(b·(S(x) ⊕ S(x⊕a))).
// - Uniformities and linearity leave out the trivial row/column as SageMath does:
//   differential uniformity over a ≠ 0, linearity over b ≠ 0, boomerang uniformity over
//   a, b ≠ 0; nonlinearity = 2^(n−1) − linearity/2.
//
// Full tables have 2^(n+m) entries and are offered for n, m ≤ 16 (memory permitting: a 16-bit
// table takes 16 GiB). Every statistic (uniformities, spectra, degrees, branch numbers) is
// streamed row by row and never materialises a table, so a 16-bit S-box is analysed in well
// under 1 GiB; the Walsh transforms run batched on the chosen backend, the rest on all threads.
//
// An SBox is an immutable value; its const methods may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fastconv/backend.hpp"
#include "fastconv/boolean.hpp"

namespace fastconv {

/// A dense rows × cols table, row-major.
template <class T>
struct Table {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<T> values;

  [[nodiscard]] T operator()(std::size_t r, std::size_t c) const { return values[r * cols + c]; }
  [[nodiscard]] std::span<const T> row(std::size_t r) const { return {values.data() + r * cols, cols}; }
  friend bool operator==(const Table&, const Table&) = default;
};

/// The scale of a linear approximation table (SageMath's names).
enum class LatScale {
  fourier_coefficient,  ///< LAT[a][b] itself (sboxU's lat; the default)
  absolute_bias,        ///< LAT/2: #{x : a·x = b·S(x)} − 2^(n−1) (SageMath's default)
  bias,                 ///< LAT/2^(n+1)
  correlation,          ///< LAT/2^n
};
std::string_view to_string(LatScale scale) noexcept;
/// "fourier_coefficient", "absolute_bias", "bias", "correlation".
std::optional<LatScale> parse_lat_scale(std::string_view name) noexcept;

/// Options of the streamed analyses.
struct AnalysisOptions {
  /// Where the batched Walsh transforms run.
  Backend backend = Backend::best();
  /// Called now and then from the calling thread with the stage ("differential", "linear",
  /// "degree", "boomerang") and the fraction of it done, in [0, 1].
  std::function<void(std::string_view stage, double fraction)> progress;
};

class SBox;

/// Everything `fastconv sbox analyze` prints (the spectra are histograms value → count).
struct SBoxSummary {
  int n = 0;
  int m = 0;
  bool bijective = false;
  std::uint64_t differential_uniformity = 0;
  Histogram differential_spectrum;  ///< DDT[a][b] → count over a ≠ 0 and every b
  std::uint64_t linearity = 0;
  std::uint64_t nonlinearity = 0;
  Histogram absolute_walsh_spectrum;  ///< |LAT[a][b]| → count over b ≠ 0 and every a
  int max_degree = 0;                 ///< SageMath's max_degree: the largest degree of a coordinate (at least 0)
  int min_degree = 0;                 ///< SageMath's min_degree: the smallest degree of a component b ≠ 0 (or −1)
  Histogram degree_spectrum;          ///< degree → number of components b ≠ 0
  std::optional<std::uint64_t> boomerang_uniformity;  ///< permutations only
  Histogram boomerang_spectrum;                       ///< BCT[a][b] → count over a, b ≠ 0 (permutations)
  std::uint64_t fixed_points = 0;
  bool is_apn = false;  ///< n = m and differential uniformity 2 (APN is defined for n = m only, as in SageMath)
  int differential_branch_number = 0;
  int linear_branch_number = 0;
};

/// An S-box S: F_2^n → F_2^m, n ≤ 24, m ≤ 32.
class SBox {
 public:
  static constexpr int max_input_bits = 24;
  static constexpr int max_output_bits = 32;
  /// Largest n and m of a full table (lat, ddt, bct, act).
  static constexpr int max_table_bits = 16;

  /// From its look-up table; n from the length (a power of two, 2 … 2^24), m given (1 … 32) or
  /// else the bit length of the largest value (at least 1). invalid_argument names the first
  /// value ≥ 2^m.
  explicit SBox(std::vector<std::uint32_t> lut, std::optional<int> m = std::nullopt);

  [[nodiscard]] int input_bits() const noexcept { return n_; }
  [[nodiscard]] int output_bits() const noexcept { return m_; }
  [[nodiscard]] std::size_t size() const noexcept { return lut_.size(); }
  [[nodiscard]] std::uint32_t operator()(std::uint32_t x) const { return lut_[x]; }
  [[nodiscard]] std::span<const std::uint32_t> lut() const noexcept { return lut_; }
  friend bool operator==(const SBox&, const SBox&) = default;

  // --- full tables: 2^n rows (a) × 2^m columns (b); memory is checked first ----------------
  [[nodiscard]] Table<std::int32_t> lat(const Backend& backend = Backend::best()) const;
  /// The LAT in another scale (exact: every entry is a multiple of a power of two).
  [[nodiscard]] Table<double> lat(LatScale scale, const Backend& backend = Backend::best()) const;
  [[nodiscard]] Table<std::int32_t> ddt() const;
  /// invalid_argument unless S is a permutation.
  [[nodiscard]] Table<std::int32_t> bct() const;
  [[nodiscard]] Table<std::int32_t> act(const Backend& backend = Backend::best()) const;

  // --- streamed statistics -------------------------------------------------------------------
  [[nodiscard]] std::uint64_t differential_uniformity() const;
  [[nodiscard]] Histogram differential_spectrum() const;
  /// Almost perfect nonlinear: n = m and differential uniformity 2 (false where n ≠ m, for which
  /// APN is not defined; SageMath raises an error there).
  [[nodiscard]] bool is_apn() const;
  [[nodiscard]] std::uint64_t linearity(const Backend& backend = Backend::best()) const;
  [[nodiscard]] std::uint64_t nonlinearity(const Backend& backend = Backend::best()) const;
  [[nodiscard]] Histogram absolute_walsh_spectrum(const Backend& backend = Backend::best()) const;
  /// invalid_argument unless S is a permutation.
  [[nodiscard]] std::uint64_t boomerang_uniformity() const;
  [[nodiscard]] Histogram boomerang_spectrum() const;
  /// The largest algebraic degree of a coordinate (of any component), at least 0 as in SageMath.
  [[nodiscard]] int max_degree() const;
  /// The smallest algebraic degree of a component b ≠ 0; −1 if one is the zero function.
  [[nodiscard]] int min_degree() const;
  /// Algebraic degree → number of components b ≠ 0 (−1 for the zero function).
  [[nodiscard]] Histogram degree_spectrum() const;
  /// min over x ≠ y of wt(x ⊕ y) + wt(S(x) ⊕ S(y)) (SageMath's differential_branch_number).
  [[nodiscard]] int differential_branch_number() const;
  /// min over a ≠ 0 and b with LAT[a][b] ≠ 0 of wt(a) + wt(b) (SageMath's linear_branch_number;
  /// as LAT[a][0] = 0 for a ≠ 0, b ≠ 0 too). A constant S has no such pair: then SageMath's
  /// starting value 2^n + 2^m (INT_MAX if that does not fit).
  [[nodiscard]] int linear_branch_number(const Backend& backend = Backend::best()) const;
  /// Every statistic above (the boomerang ones for permutations), each table streamed once;
  /// for a permutation the DDT and BCT rows share one pass, whose progress is reported under
  /// both "differential" and "boomerang".
  [[nodiscard]] SBoxSummary summary(const AnalysisOptions& options = {}) const;

  // --- structure -------------------------------------------------------------------------------
  [[nodiscard]] bool is_permutation() const noexcept;
  /// The inverse permutation (invalid_argument unless S is one).
  [[nodiscard]] SBox inverse() const;
  /// Every x with S(x) = x, increasing.
  [[nodiscard]] std::vector<std::uint32_t> fixed_points() const;
  /// The cycle type of a permutation: cycle length → number of cycles (invalid_argument otherwise).
  [[nodiscard]] std::map<std::uint64_t, std::uint64_t> cycle_type() const;
  /// The component x ↦ b·S(x) (b < 2^m).
  [[nodiscard]] BooleanFunction component_function(std::uint32_t b) const;
  /// The coordinate x ↦ bit i of S(x) (i < m).
  [[nodiscard]] BooleanFunction coordinate_function(int i) const;

 private:
  std::vector<std::uint32_t> lut_;
  int n_ = 0;
  int m_ = 0;
};

/// Well-known S-boxes by name, as SageMath's sage.crypto.sboxes has them: "aes" (Rijndael's, FIPS 197:
/// the inverse in GF(2^8) followed by its affine map), "present" (PRESENT's 4-bit S-box, CHES 2007).
/// nullopt for any other name.
[[nodiscard]] std::optional<SBox> named_sbox(std::string_view name);
/// The names named_sbox() knows.
[[nodiscard]] std::vector<std::string_view> named_sbox_names();

}  // namespace fastconv
