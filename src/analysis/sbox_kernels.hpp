// src/analysis/sbox_kernels.hpp — the row kernels shared by the S-box tables (sbox.cpp) and the
// streamed statistics (sbox_stats.cpp). A look-up table `lut` has 2^n entries below 2^m.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend_impl.hpp"
#include "fastconv/backend.hpp"

namespace fastconv::analysis {

/// Below this many table entries, or steps of work, a parallel region costs more than it saves.
inline constexpr std::uint64_t kParallelFrom = std::uint64_t{1} << 16;

/// b·s: the parity of b & s.
[[nodiscard]] constexpr bool dot(std::uint32_t b, std::uint32_t s) noexcept { return __builtin_parity(b & s) != 0; }

/// The first x whose value an earlier x' already took, as (x', x); nullopt when all differ.
[[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> first_repeat(std::span<const std::uint32_t> lut);

/// An invalid_argument Error "S-box <what>: …" unless S is a permutation (n = m, no repeat).
void require_permutation(std::span<const std::uint32_t> lut, int n, int m, std::string_view what);

// Rows are small handles on storage owned elsewhere, passed to the kernels by value and
// returned, so that their state stays in registers in the hot loops.

/// A table row, added to in place. add() returns the entry as it was.
struct DenseRow {
  std::int32_t* values;
  std::int32_t add(std::uint32_t i, std::int32_t amount) const noexcept {
    const std::int32_t old = values[i];
    values[i] = old + amount;
    return old;
  }
};

/// A row that is mostly zero (the statistics reuse one per thread) and notes each entry that
/// stops being zero, so that it is reduced and cleared without a pass over all of it.
struct SparseRow {
  std::int32_t* values;    ///< all zero to begin with
  std::uint32_t* nonzero;  ///< room for one more index than the row has entries
  std::size_t count = 0;   ///< nonzero[0, count) are the nonzero entries, each once

  /// Adds to entry i and returns it as it was. Branch-free: the index is always written and
  /// kept only when the entry was zero.
  std::int32_t add(std::uint32_t i, std::int32_t amount) noexcept {
    const std::int32_t old = values[i];
    values[i] = old + amount;
    nonzero[count] = i;
    count += old == 0;
    return old;
  }
  [[nodiscard]] std::span<const std::uint32_t> nonzero_entries() const noexcept { return {nonzero, count}; }
};

/// Adds row a ≠ 0 of the DDT to `row` (2^m entries): 2 at S(x) ⊕ S(x ⊕ a) for one x of each
/// pair {x, x ⊕ a}.
template <class Row>
[[nodiscard]] Row add_ddt_row(std::span<const std::uint32_t> lut, std::uint32_t a, Row row) {
  // x and x ⊕ a differ in a's highest bit: the x with that bit clear stand for their pairs.
  const std::size_t high = std::bit_floor(a);
  const std::uint32_t* s = lut.data();
  for (std::size_t base = 0; base < lut.size(); base += 2 * high)
    for (std::size_t x = base; x < base + high; ++x) row.add(s[x] ^ s[x ^ a], 2);
  return row;
}

/// Rows of the BCT of a permutation, with the scratch they need (one per thread).
///
/// For a fixed a, let γ(x) = S(x) ⊕ S(x ⊕ a). With u = S⁻¹(S(x) ⊕ b) the BCT condition
/// S⁻¹(S(x) ⊕ b) ⊕ S⁻¹(S(x ⊕ a) ⊕ b) = a says S(u ⊕ a) = S(x ⊕ a) ⊕ b, that is γ(u) = γ(x).
/// So BCT[a][b] counts the ordered pairs (y1, y2) with y1 ⊕ y2 = b inside each group
/// Y_γ = {S(x) : γ(x) = γ}. A group is made of pairs {S(x), S(x) ⊕ γ}; from one representative
/// r_i of each, the pairs inside one representative's pair add 2 at 0 and 2 at γ (2^n at 0
/// and DDT[a][γ] at γ in all), and two representatives i < j add 4 at r_i ⊕ r_j and 4 at
/// r_i ⊕ r_j ⊕ γ (never at 0: the values of a permutation differ). A row costs 2^(n−1) steps
/// plus Σ_γ k_γ(k_γ − 1) with k_γ = DDT[a][γ] / 2 (2^n / 4 for a random permutation).
///
/// A row is made in two steps, add_differences then add_pairs, so that the statistics can
/// read the DDT row in between.
class BoomerangRows {
 public:
  explicit BoomerangRows(int n);
  /// The bytes a BoomerangRows for n bits holds.
  [[nodiscard]] static std::uint64_t bytes(int n) noexcept { return std::uint64_t{12} << n; }

  /// Adds DDT row a ≠ 0 to `row` (2^n entries, all zero on entry) and links the
  /// representatives of each γ.
  template <class Row>
  [[nodiscard]] Row add_differences(std::span<const std::uint32_t> lut, std::uint32_t a, Row row);
  /// Adds the pairs of representatives: `row` becomes BCT row a but for BCT[a][0] = 2^n.
  template <class Row>
  [[nodiscard]] Row add_pairs(Row row) const;

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  /// Per γ: the last representative linked with that γ. Read only once this row has linked
  /// one, which the row's DDT entry tells (it starts at 0), so it is never cleared.
  std::vector<std::uint32_t> last_of_group_;
  /// Per representative i: S(x_i), γ(x_i), and the previous representative of its group.
  std::vector<std::uint32_t> value_, difference_, previous_;
  /// The representatives that have a previous one: only they start pairs.
  std::vector<std::uint32_t> followers_;
  std::size_t follower_count_ = 0;
};

template <class Row>
Row BoomerangRows::add_differences(std::span<const std::uint32_t> lut, std::uint32_t a, Row row) {
  const std::uint32_t* s = lut.data();
  std::uint32_t* last = last_of_group_.data();
  std::uint32_t *value = value_.data(), *difference = difference_.data(), *previous = previous_.data();
  std::uint32_t* followers = followers_.data();
  std::size_t follower_count = 0;
  const std::size_t high = std::bit_floor(a);
  std::uint32_t i = 0;
  for (std::size_t base = 0; base < lut.size(); base += 2 * high)
    for (std::size_t x = base; x < base + high; ++x, ++i) {
      const std::uint32_t g = s[x] ^ s[x ^ a];
      const bool follows = row.add(g, 2) != 0;
      // Branch-free (a follower or not is a coin toss): kNone is all ones.
      previous[i] = last[g] | (static_cast<std::uint32_t>(follows) - 1);
      last[g] = i;
      value[i] = s[x];
      difference[i] = g;
      followers[follower_count] = i;  // branch-free: kept only if it follows
      follower_count += follows;
    }
  follower_count_ = follower_count;
  return row;
}

template <class Row>
Row BoomerangRows::add_pairs(Row row) const {
  const std::uint32_t *value = value_.data(), *difference = difference_.data(), *previous = previous_.data();
  for (std::size_t f = 0; f < follower_count_; ++f) {
    const std::uint32_t i = followers_[f];
    for (std::uint32_t j = previous[i]; j != kNone; j = previous[j]) {
      const std::uint32_t d = value[i] ^ value[j];
      row.add(d, 4);
      row.add(d ^ difference[i], 4);
    }
  }
  return row;
}

/// The columns of the LAT — the Walsh spectra of the components x ↦ b·S(x) — a batch of
/// consecutive b at a time, computed on a backend in the ring Z/2^32 (|LAT| ≤ 2^n is exact).
///
/// The 2^k components b = (h << k) | j that share their high bits h are one WHT of 2^(n+k)
/// points: of g(y, x) = (−1)^{(h << k)·S(x)} where y = S(x) mod 2^k, else 0, at y·2^n + x.
/// Its coefficient at j·2^n + a is Σₓ (−1)^{a·x ⊕ (h << k)·S(x) ⊕ j·S(x)} = LAT[a][b]: the
/// transform does the low k output bits as well, so the input is sparse and the rows are
/// filled without a parity per entry.
class LatColumns {
 public:
  LatColumns(std::span<const std::uint32_t> lut, int n, int m, const Backend& backend);
  /// How many columns a batch holds (a power of two dividing 2^m).
  [[nodiscard]] std::uint64_t batch_columns() const noexcept { return std::uint64_t{1} << (k_ + rows_log2_); }
  [[nodiscard]] std::uint64_t batch_count() const noexcept { return (std::uint64_t{1} << m_) / batch_columns(); }
  /// The bytes a LatColumns of this shape holds.
  [[nodiscard]] static std::uint64_t bytes(int n, int m);
  /// Computes batch i: columns b = i·batch_columns() + c, column c at c·2^n (row a at + a).
  [[nodiscard]] std::span<const std::int32_t> compute(std::uint64_t i);

 private:
  void fill(std::uint64_t first_high);

  std::span<const std::uint32_t> lut_;
  int n_, m_, k_, rows_log2_;
  std::unique_ptr<detail::WhtKernel> kernel_;
  std::vector<std::uint32_t> words_;
};

/// Every a in [1, 2^n) by increasing Hamming weight (then increasing a).
[[nodiscard]] std::vector<std::uint32_t> nonzero_by_weight(int n);

/// The ANFs of the m coordinate functions x ↦ bit i of S(x), words_for(n) words each.
[[nodiscard]] std::vector<std::uint64_t> coordinate_anfs(std::span<const std::uint32_t> lut, int n, int m);

}  // namespace fastconv::analysis
