// Full-array scans behind exact integer results (exact.hpp), compiled for AVX-512, AVX2 and
// the baseline and chosen at load time (GCC function multiversioning): they run once per exact
// transform or convolution, over all of the data.
#include "core/exact.hpp"

#include <algorithm>
#include <type_traits>

namespace fastconv::detail {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FASTCONV_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FASTCONV_CLONES
#endif

template <class I>
[[gnu::always_inline]] inline Norms norms_of(const I* v, std::size_t n) noexcept {
  // The maximum through the signed min and max, which reduce in vector registers (|x| per
  // element does not); Σ|v| in 64-bit partial sums, which vectorise where 128-bit ones do not.
  // An int32's |v| ≤ 2^31, so 2^32 of them sum below 2^63; an int64's is summed as its low
  // and high 32 bits, each below 2^32.
  constexpr std::size_t kChunk = std::size_t{1} << 32;
  Norms result;
  I lo = 0, hi = 0;
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t end = std::min(n, start + kChunk);
    std::uint64_t low = 0, high = 0;
    for (std::size_t i = start; i < end; ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
      const std::uint64_t m = magnitude(v[i]);
      if constexpr (sizeof(I) <= 4) {
        low += m;
      } else {
        low += m & 0xFFFFFFFFu;
        high += m >> 32;
      }
    }
    result.l1 += (u128{high} << 32) + low;
  }
  result.max = std::max(magnitude(lo), magnitude(hi));
  return result;
}

template <class I>
[[gnu::always_inline]] inline std::uint64_t magnitude_bound_of(const I* v, std::size_t n) noexcept {
  using U = std::make_unsigned_t<I>;
  // OR of v ^ (v >> (bits−1)) = |v| − [v < 0], and of the signs; in kLanes independent
  // accumulators (four 512-bit registers' worth), so that the ORs do not wait on each other:
  // one chain ran at a third of the speed of the loads. (Inlined: each clone vectorises it.)
  constexpr std::size_t kLanes = 4 * 64 / sizeof(I);
  constexpr int kSign = sizeof(I) * 8 - 1;
  U ones[kLanes] = {}, signs[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j) {
      const U s = static_cast<U>(v[i + j] >> kSign);
      ones[j] |= static_cast<U>(v[i + j]) ^ s;
      signs[j] |= s;
    }
  for (; i < n; ++i) {
    const U s = static_cast<U>(v[i] >> kSign);
    ones[0] |= static_cast<U>(v[i]) ^ s;
    signs[0] |= s;
  }
  U all_ones = 0, all_signs = 0;
  for (std::size_t j = 0; j < kLanes; ++j) {
    all_ones |= ones[j];
    all_signs |= signs[j];
  }
  return static_cast<std::uint64_t>(all_ones) + (all_signs != 0 ? 1 : 0);
}

}  // namespace

FASTCONV_CLONES std::uint64_t magnitude_bound(std::span<const std::int32_t> values) noexcept {
  return magnitude_bound_of(values.data(), values.size());
}

FASTCONV_CLONES std::uint64_t magnitude_bound(std::span<const std::int64_t> values) noexcept {
  return magnitude_bound_of(values.data(), values.size());
}

FASTCONV_CLONES Norms norms(std::span<const std::int32_t> values) noexcept {
  return norms_of(values.data(), values.size());
}

FASTCONV_CLONES Norms norms(std::span<const std::int64_t> values) noexcept {
  return norms_of(values.data(), values.size());
}

Ring choose_ring(u128 bound, int log2n) {
  if (below_power_of_two(bound, log2n, 63)) return Ring::u64;
  if (below_power_of_two(bound, log2n, 127)) return Ring::u128;
  return Ring::none;
}

[[noreturn]] void throw_too_wide(std::string_view op, std::string_view type, u128 bound, int log2n) {
  throw Error(ErrorCode::overflow,
              std::string(op) + " of " + std::string(type) + " data may overflow: its values are bounded only by " +
                  (bound == ~u128{0} ? std::string("2^128 or more") : to_string(bound)) + " and computing them exactly at 2^" + std::to_string(log2n) +
                  " points would need more than 128 bits; scale the inputs down or use a floating-point dtype");
}

}  // namespace fastconv::detail
