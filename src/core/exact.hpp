// src/core/exact.hpp — bounds and checks behind exact integer results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "core/backend_impl.hpp"
#include "fastconv/error.hpp"
#include "fastconv/types.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::detail {

/// |v| without overflow (|INT64_MIN| = 2^63 fits a uint64).
template <class I>
constexpr std::uint64_t magnitude(I v) noexcept {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

/// A bound B with max |v| ≤ B < 2·max |v| + 2 (0 when every value is 0): the OR of the
/// ones'-complement magnitudes, plus one if any value is negative. Bit operations only, so
/// the scan ahead of every exact integer transform costs a fraction of the transform
/// (src/core/exact.cpp); a bound up to 2× loose only moves values within a factor 2 of the
/// overflow limit onto the wide, still exact, path.
std::uint64_t magnitude_bound(std::span<const std::int32_t> values) noexcept;
std::uint64_t magnitude_bound(std::span<const std::int64_t> values) noexcept;

/// Σ|v| (exact for up to 2^32 int32 or 2^64 int64 values) and max |v| (0 for no values): what
/// bounds a dyadic convolution's results (convolution_bound), where a loose bound would cost
/// more than the scan.
struct Norms {
  u128 l1 = 0;
  std::uint64_t max = 0;
};

/// The Norms of `values`, in one scan.
Norms norms(std::span<const std::int32_t> values) noexcept;
Norms norms(std::span<const std::int64_t> values) noexcept;

/// a·b, or the largest u128 if the product does not fit.
inline u128 saturating_mul(u128 a, u128 b) noexcept {
  u128 r;
  return __builtin_mul_overflow(a, b, &r) ? ~u128{0} : r;
}

/// True if bound · 2^shift < 2^bits, i.e. a signed value of magnitude up to that fits `bits`+1 bits signed.
inline bool below_power_of_two(u128 bound, int shift, int bits) noexcept {
  if (shift >= bits) return bound == 0;
  return bound < (u128{1} << (bits - shift));
}

inline std::string to_string(u128 m) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m != 0);
  return digits;
}

inline std::string to_string(i128 v) {
  return v < 0 ? "-" + to_string(u128{0} - static_cast<u128>(v)) : to_string(static_cast<u128>(v));
}

/// The signed value a ring word holds (two's complement of its width).
template <class W>
constexpr i128 signed_value(W w) noexcept {
  if constexpr (std::is_same_v<W, std::uint32_t>) return static_cast<std::int32_t>(w);
  else if constexpr (std::is_same_v<W, std::uint64_t>) return static_cast<std::int64_t>(w);
  else return static_cast<i128>(w);
}

/// The ring word of the same width as integer type I (int32 -> uint32, int64 -> uint64).
template <class I>
using ring_of = std::make_unsigned_t<I>;

template <class I>
constexpr bool fits(i128 v) noexcept {
  return v >= std::numeric_limits<I>::min() && v <= std::numeric_limits<I>::max();
}

/// "int32", "int64", ...
template <class T>
std::string_view type_name() noexcept {
  return to_string(dtype_of<T>);
}

/// The overflow Error of an exact integer operation `op` whose output at `where` is `value`.
template <class I>
[[noreturn]] void throw_overflow(std::string_view op, const std::string& where, i128 value) {
  const std::string type(type_name<I>());
  throw Error(ErrorCode::overflow, std::string(op) + " overflows " + type + ": output " + where + " = " +
                                       to_string(value) + " is outside the " + type + " range; use " +
                                       (std::is_same_v<I, std::int32_t> ? "int64 or " : "") + "a floating-point dtype");
}

/// v / 2^shift as I, the value of an integer WHT normalised by 2^-shift: an invalid_argument
/// Error unless 2^shift divides v, an overflow Error unless the quotient fits I. `where()`
/// names the output ("element 5 of row 2"); built only for the message.
template <class I, class Where>
I checked_wht_quotient(i128 v, int shift, Normalization normalization, const Where& where) {
  const i128 divisor = i128{1} << shift;
  if (v % divisor != 0)
    throw Error(ErrorCode::invalid_argument,
                "WHT with " + std::string(fastconv::to_string(normalization)) + " normalisation of " +
                    std::string(type_name<I>()) + " data is not exact: output " + where() + " = " + to_string(v) +
                    " is not divisible by " + to_string(divisor) + "; use a floating-point dtype");
  if (!fits<I>(v / divisor)) throw_overflow<I>("WHT", where(), v / divisor);
  return static_cast<I>(v / divisor);
}

/// The ring that holds N·C exactly, given |C| ≤ bound: uint64 or uint128 (or none).
enum class Ring { u64, u128, none };
Ring choose_ring(u128 bound, int log2n);

/// Bound on |Σₓ f(x)·g(x ⊕ τ)| from the operands' ‖·‖₁ and max |·|: min(‖f‖₁·max|g|, ‖g‖₁·max|f|).
inline u128 convolution_bound(u128 l1_f, std::uint64_t max_f, u128 l1_g, std::uint64_t max_g) noexcept {
  return std::min(saturating_mul(l1_f, max_g), saturating_mul(l1_g, max_f));
}

/// The overflow Error of a dyadic operation `op` whose exact result would need more than 128 bits.
[[noreturn]] void throw_too_wide(std::string_view op, std::string_view type, u128 bound, int log2n);

}  // namespace fastconv::detail
