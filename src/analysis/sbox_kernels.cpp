#include "analysis/sbox_kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <string>

#include "analysis/anf.hpp"
#include "fastconv/error.hpp"

namespace fastconv::analysis {

std::optional<std::pair<std::size_t, std::size_t>> first_repeat(std::span<const std::uint32_t> lut) {
  // Only asked of tables whose values are below their length (n = m), so they index `taken`.
  std::vector<std::uint32_t> taken(lut.size());  // x + 1 of the x that took each value, 0 if none
  for (std::size_t x = 0; x < lut.size(); ++x) {
    if (taken[lut[x]] != 0) return std::pair{std::size_t{taken[lut[x]] - 1}, x};
    taken[lut[x]] = static_cast<std::uint32_t>(x + 1);
  }
  return std::nullopt;
}

void require_permutation(std::span<const std::uint32_t> lut, int n, int m, std::string_view what) {
  const std::string prefix = "S-box " + std::string(what) + ": S is not a permutation";
  if (n != m)
    throw Error(ErrorCode::invalid_argument,
                prefix + " (it maps " + std::to_string(n) + " bits to " + std::to_string(m) + ")");
  if (const auto repeat = first_repeat(lut))
    throw Error(ErrorCode::invalid_argument, prefix + " (S(" + std::to_string(repeat->first) + ") = S(" +
                                                 std::to_string(repeat->second) +
                                                 ") = " + std::to_string(lut[repeat->second]) + ")");
}

BoomerangRows::BoomerangRows(int n)
    : last_of_group_(std::size_t{1} << n),
      value_(std::size_t{1} << (n - 1)),
      difference_(std::size_t{1} << (n - 1)),
      previous_(std::size_t{1} << (n - 1)),
      followers_((std::size_t{1} << (n - 1)) + 1) {}

namespace {

// Low output bits done by the transform (k): each adds a stage to 2^(n+k) points and spares
// the fill a parity for 2^k − 1 of every 2^k entries (measured at n = 15, one thread: k = 4 in
// 3.2 s, k = 0 in 5.1 s). The row length matters too: the cpu backend spreads rows of up to
// 2^15 points over its threads a row per task, but splits a longer row among them at a barrier
// per pass — on a busy machine that made the 12-bit linear statistics 30 times slower with
// rows of 2^16 points. So k = 4, lowered to 3 and 2 at n = 12 and 13 to keep rows of 2^15.
constexpr int kRowParallelLog2 = 15;
constexpr int kTransformedOutputBits = 4;
constexpr int kFewestTransformedOutputBits = 2;
// A batch holds about this many words (16 MiB), several rows when they are short.
constexpr int kBatchWordsLog2 = 22;

int transformed_output_bits(int n, int m) {
  const int fitting = kRowParallelLog2 - n;  // the k that keeps rows within 2^15 points
  const int k =
      fitting >= kFewestTransformedOutputBits ? std::min(fitting, kTransformedOutputBits) : kTransformedOutputBits;
  return std::min(m, k);
}
int rows_log2_for(int n, int m) {
  const int k = transformed_output_bits(n, m);
  return std::clamp(kBatchWordsLog2 - (n + k), 0, m - k);
}

}  // namespace

LatColumns::LatColumns(std::span<const std::uint32_t> lut, int n, int m, const Backend& backend)
    : lut_(lut),
      n_(n),
      m_(m),
      k_(transformed_output_bits(n, m)),
      rows_log2_(rows_log2_for(n, m)),
      kernel_(backend.impl().make_wht(n + k_, detail::Word::u32, Order::hadamard)),
      words_(std::size_t{1} << (n + k_ + rows_log2_)) {}

std::uint64_t LatColumns::bytes(int n, int m) {
  return std::uint64_t{4} << (n + transformed_output_bits(n, m) + rows_log2_for(n, m));
}

void LatColumns::fill(std::uint64_t first_high) {
  const std::size_t row_words = std::size_t{1} << (n_ + k_);
  const std::size_t rows = std::size_t{1} << rows_log2_;
  const std::uint32_t low_mask = (std::uint32_t{1} << k_) - 1;
  const std::size_t points = lut_.size();
  std::uint32_t* words = words_.data();
  const std::uint32_t* s = lut_.data();
  constexpr std::size_t kChunk = std::size_t{1} << 14;
  const auto chunks = static_cast<std::ptrdiff_t>(words_.size() / std::min(kChunk, words_.size()));
  const std::size_t chunk = words_.size() / static_cast<std::size_t>(chunks);
#pragma omp parallel if (words_.size() >= kParallelFrom)
  {
#pragma omp for schedule(static)
    for (std::ptrdiff_t c = 0; c < chunks; ++c) std::memset(words + static_cast<std::size_t>(c) * chunk, 0, chunk * 4);
#pragma omp for schedule(static) collapse(2)
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t x = 0; x < points; ++x) {
        const auto high = static_cast<std::uint32_t>((first_high + r) << k_);
        words[r * row_words + (std::size_t{s[x] & low_mask} << n_) + x] = dot(high, s[x]) ? ~std::uint32_t{0} : 1;
      }
  }
}

std::span<const std::int32_t> LatColumns::compute(std::uint64_t i) {
  fill(i << rows_log2_);
  kernel_->execute(words_.data(), std::size_t{1} << rows_log2_, std::size_t{1} << (n_ + k_), 1.0);
  // The ring Z/2^32 holds the exact |LAT| ≤ 2^n: its words read as int32 are the entries.
  return {reinterpret_cast<const std::int32_t*>(words_.data()), words_.size()};
}

std::vector<std::uint32_t> nonzero_by_weight(int n) {
  std::vector<std::uint32_t> order((std::size_t{1} << n) - 1);
  std::iota(order.begin(), order.end(), 1u);
  std::stable_sort(order.begin(), order.end(),
                   [](std::uint32_t x, std::uint32_t y) { return std::popcount(x) < std::popcount(y); });
  return order;
}

std::vector<std::uint64_t> coordinate_anfs(std::span<const std::uint32_t> lut, int n, int m) {
  const std::size_t words = words_for(n);
  std::vector<std::uint64_t> anfs(words * static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if ((std::uint64_t(m) << n) >= kParallelFrom)
  for (int i = 0; i < m; ++i) {
    const std::span<std::uint64_t> anf(anfs.data() + static_cast<std::size_t>(i) * words, words);
    for (std::size_t x = 0; x < lut.size(); ++x) anf[x / 64] |= std::uint64_t{(lut[x] >> i) & 1} << (x % 64);
    moebius_transform(anf, n);
  }
  return anfs;
}

}  // namespace fastconv::analysis
