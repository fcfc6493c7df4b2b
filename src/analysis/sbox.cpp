// SBox: construction, structure and the full tables (LAT, DDT, BCT, ACT). The streamed
// statistics are in sbox_stats.cpp, the row kernels in sbox_kernels.cpp.
#include "fastconv/sbox.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "analysis/anf.hpp"
#include "analysis/sbox_kernels.hpp"
#include "core/memory.hpp"
#include "fastconv/error.hpp"

namespace fastconv {
namespace {

int input_bits_of(std::size_t entries) {
  if (entries < 2 || !std::has_single_bit(entries) || entries > (std::size_t{1} << SBox::max_input_bits))
    throw Error(ErrorCode::invalid_argument, "S-box: the look-up table has " + std::to_string(entries) +
                                                 " entries; it needs 2^n of them for n = 1 … " +
                                                 std::to_string(SBox::max_input_bits));
  return std::countr_zero(entries);
}

int output_bits_of(std::span<const std::uint32_t> lut, std::optional<int> m) {
  if (m && (*m < 1 || *m > SBox::max_output_bits))
    throw Error(ErrorCode::invalid_argument, "S-box: m = " + std::to_string(*m) + " output bits is outside 1 … " +
                                                 std::to_string(SBox::max_output_bits));
  const std::uint32_t largest = *std::max_element(lut.begin(), lut.end());
  const int bits = m.value_or(std::max(1, static_cast<int>(std::bit_width(largest))));
  if (bits < 32 && largest >> bits != 0) {
    const auto at = static_cast<std::size_t>(
        std::find_if(lut.begin(), lut.end(), [&](std::uint32_t v) { return v >> bits != 0; }) - lut.begin());
    throw Error(ErrorCode::invalid_argument, "S-box: value " + std::to_string(lut[at]) + " at index " +
                                                 std::to_string(at) + " does not fit m = " + std::to_string(bits) +
                                                 " bits");
  }
  return bits;
}

/// Refuses (unsupported) a table past max_table_bits or past the memory available.
void require_table(int n, int m, std::string_view name, std::uint64_t bytes) {
  if (n > SBox::max_table_bits || m > SBox::max_table_bits)
    throw Error(ErrorCode::unsupported, "S-box " + std::string(name) + ": full tables are offered up to " +
                                            std::to_string(SBox::max_table_bits) +
                                            " input and output bits; this S-box has n = " + std::to_string(n) +
                                            ", m = " + std::to_string(m));
  detail::require_memory(
      bytes, "the " + std::string(name) + " of a " + std::to_string(n) + "×" + std::to_string(m) + "-bit S-box");
}

/// `count` zeros, from `kHugePagesFrom` bytes on in memory backed by huge pages where the kernel
/// offers them: a fresh 64 MiB table in 4 KiB pages takes 16384 page faults, measured here at
/// 53 ms against 10 ms in 2 MiB pages — more than computing a 12-bit DDT.
template <class T>
std::vector<T> zeros_on_huge_pages(std::size_t count) {
  // glibc maps blocks this large on their own (its largest mmap threshold), so the advice never
  // reaches the heap that smaller allocations share.
  constexpr std::size_t kHugePagesFrom = std::size_t{32} << 20;
  std::vector<T> values;
  values.reserve(count);
  if (count * sizeof(T) >= kHugePagesFrom) detail::advise_huge_pages(values.data(), count * sizeof(T));
  values.resize(count);
  return values;
}

/// A zero table of 2^n × 2^m entries, after require_table (with `extra_bytes` more needed beside it).
template <class T>
Table<T> new_table(int n, int m, std::string_view name, std::uint64_t extra_bytes = 0) {
  require_table(n, m, name, (sizeof(T) << (n + m)) + extra_bytes);
  const std::size_t rows = std::size_t{1} << n, cols = std::size_t{1} << m;
  return {rows, cols, zeros_on_huge_pages<T>(rows * cols)};
}

}  // namespace

std::string_view to_string(LatScale scale) noexcept {
  switch (scale) {
    case LatScale::fourier_coefficient:
      return "fourier_coefficient";
    case LatScale::absolute_bias:
      return "absolute_bias";
    case LatScale::bias:
      return "bias";
    case LatScale::correlation:
      return "correlation";
  }
  return "?";
}

std::optional<LatScale> parse_lat_scale(std::string_view name) noexcept {
  for (LatScale scale : {LatScale::fourier_coefficient, LatScale::absolute_bias, LatScale::bias, LatScale::correlation})
    if (name == to_string(scale)) return scale;
  return std::nullopt;
}

SBox::SBox(std::vector<std::uint32_t> lut, std::optional<int> m)
    : lut_(std::move(lut)), n_(input_bits_of(lut_.size())), m_(output_bits_of(lut_, m)) {}

// --- tables ------------------------------------------------------------------------------------

// The LAT is the 2-D WHT of the graph of S: LAT[a][b] = Σ_{x,y} [y = S(x)]·(−1)^(a·x ⊕ b·y), and
// with the indicator stored at x·2^m + y one WHT of 2^(n+m) points leaves LAT[a][b] at a·2^m + b.
Table<std::int32_t> SBox::lat(const Backend& backend) const {
  Table<std::int32_t> table = new_table<std::int32_t>(n_, m_, "LAT");
  for (std::size_t x = 0; x < lut_.size(); ++x) table.values[(x << m_) | lut_[x]] = 1;
  // In the ring Z/2^32 the words read as int32 are exact: |LAT| ≤ 2^n.
  backend.impl()
      .make_wht(n_ + m_, detail::Word::u32, Order::hadamard)
      ->execute(table.values.data(), 1, table.values.size(), 1.0);
  return table;
}

Table<double> SBox::lat(LatScale scale, const Backend& backend) const {
  require_table(n_, m_, "LAT", (sizeof(double) + sizeof(std::int32_t)) << (n_ + m_));
  const Table<std::int32_t> coefficients = lat(backend);
  const int shift = scale == LatScale::fourier_coefficient ? 0
                    : scale == LatScale::absolute_bias     ? 1
                    : scale == LatScale::bias              ? n_ + 1
                                                           : n_;
  Table<double> table{coefficients.rows, coefficients.cols, zeros_on_huge_pages<double>(coefficients.values.size())};
  const auto count = static_cast<std::ptrdiff_t>(table.values.size());
#pragma omp parallel for schedule(static) if (table.values.size() >= analysis::kParallelFrom)
  for (std::ptrdiff_t i = 0; i < count; ++i)
    table.values[static_cast<std::size_t>(i)] = std::ldexp(coefficients.values[static_cast<std::size_t>(i)], -shift);
  return table;
}

Table<std::int32_t> SBox::ddt() const {
  Table<std::int32_t> table = new_table<std::int32_t>(n_, m_, "DDT");
  table.values[0] = static_cast<std::int32_t>(lut_.size());
  const auto rows = static_cast<std::ptrdiff_t>(table.rows);
#pragma omp parallel for schedule(dynamic, 16) if (table.values.size() >= analysis::kParallelFrom)
  for (std::ptrdiff_t a = 1; a < rows; ++a) {
    (void)analysis::add_ddt_row(lut_, static_cast<std::uint32_t>(a),
                                analysis::DenseRow{table.values.data() + static_cast<std::size_t>(a) * table.cols});
  }
  return table;
}

Table<std::int32_t> SBox::bct() const {
  analysis::require_permutation(lut_, n_, m_, "BCT");
  const int threads = omp_get_max_threads();
  Table<std::int32_t> table =
      new_table<std::int32_t>(n_, m_, "BCT", std::uint64_t(threads) * analysis::BoomerangRows::bytes(n_));
  std::fill_n(table.values.begin(), table.cols, static_cast<std::int32_t>(lut_.size()));
  const auto rows = static_cast<std::ptrdiff_t>(table.rows);
  std::vector<analysis::BoomerangRows> scratch(static_cast<std::size_t>(threads), analysis::BoomerangRows(n_));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) if (table.values.size() >= analysis::kParallelFrom)
  for (std::ptrdiff_t a = 1; a < rows; ++a) {
    analysis::BoomerangRows& pairs = scratch[static_cast<std::size_t>(omp_get_thread_num())];
    const analysis::DenseRow row{table.values.data() + static_cast<std::size_t>(a) * table.cols};
    (void)pairs.add_pairs(pairs.add_differences(lut_, static_cast<std::uint32_t>(a), row));
    row.values[0] = static_cast<std::int32_t>(lut_.size());
  }
  return table;
}

// ACT[a][b] = Σ_γ DDT[a][γ]·(−1)^(b·γ): row a is the WHT of DDT row a (|ACT| ≤ 2^n, exact in Z/2^32).
Table<std::int32_t> SBox::act(const Backend& backend) const {
  Table<std::int32_t> table = ddt();
  backend.impl()
      .make_wht(m_, detail::Word::u32, Order::hadamard)
      ->execute(table.values.data(), table.rows, table.cols, 1.0);
  return table;
}

// --- structure ---------------------------------------------------------------------------------

bool SBox::is_permutation() const noexcept { return n_ == m_ && !analysis::first_repeat(lut_); }

SBox SBox::inverse() const {
  analysis::require_permutation(lut_, n_, m_, "inverse");
  std::vector<std::uint32_t> inverse(lut_.size());
  for (std::size_t x = 0; x < lut_.size(); ++x) inverse[lut_[x]] = static_cast<std::uint32_t>(x);
  return SBox(std::move(inverse), m_);
}

std::vector<std::uint32_t> SBox::fixed_points() const {
  std::vector<std::uint32_t> points;
  for (std::size_t x = 0; x < lut_.size(); ++x)
    if (lut_[x] == x) points.push_back(static_cast<std::uint32_t>(x));
  return points;
}

std::map<std::uint64_t, std::uint64_t> SBox::cycle_type() const {
  analysis::require_permutation(lut_, n_, m_, "cycle type");
  std::map<std::uint64_t, std::uint64_t> cycles;
  std::vector<bool> seen(lut_.size());
  for (std::size_t start = 0; start < lut_.size(); ++start) {
    if (seen[start]) continue;
    std::uint64_t length = 0;
    for (std::size_t x = start; !seen[x]; x = lut_[x], ++length) seen[x] = true;
    ++cycles[length];
  }
  return cycles;
}

BooleanFunction SBox::component_function(std::uint32_t b) const {
  if (m_ < 32 && b >> m_ != 0)
    throw Error(ErrorCode::invalid_argument, "S-box component: mask b = " + std::to_string(b) +
                                                 " does not fit m = " + std::to_string(m_) + " output bits");
  std::vector<std::uint64_t> words(analysis::words_for(n_));
  for (std::size_t x = 0; x < lut_.size(); ++x) words[x / 64] |= std::uint64_t{analysis::dot(b, lut_[x])} << (x % 64);
  return BooleanFunction::from_words(words, n_);
}

BooleanFunction SBox::coordinate_function(int i) const {
  if (i < 0 || i >= m_)
    throw Error(ErrorCode::invalid_argument, "S-box coordinate: bit " + std::to_string(i) + " is outside 0 … " +
                                                 std::to_string(m_ - 1) + " (m = " + std::to_string(m_) + ")");
  return component_function(std::uint32_t{1} << i);
}

}  // namespace fastconv
