// fastconv/types.hpp — element types the transforms accept.
#pragma once

#include <bit>
#include <cstddef>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace fastconv {

namespace detail {

// The conversions are branch-free (selects, not jumps) so that loops over arrays vectorise.
// Highway 1.0.3's DemoteTo cannot stand in: it truncates to bfloat16, and to float16 too on
// CPUs without F16C.

/// IEEE binary16 bits of `value`, rounded to nearest even (F. Giesen's formulation).
constexpr std::uint16_t float16_bits(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
  // NaN: quiet, with the top of the payload kept (as F16C and CUDA's cvt do).
  const std::uint32_t nan = 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  // Below 2^-14 (subnormal or zero): adding 0.5 lines |value| up with the float's last bits,
  // in units of 2^-24, and the addition itself rounds to nearest even.
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(std::bit_cast<float>(magnitude) + 0.5f) - 0x3f000000u;
  // Normal: rebias the exponent (127 → 15) and round off 13 bits; a carry out of the
  // fraction moves to the next binade, or to infinity past 65504.
  const std::uint32_t normal = (magnitude - 0x38000000u + 0xfffu + ((magnitude >> 13) & 1u)) >> 13;
  const std::uint32_t result = magnitude > 0x7f800000u   ? nan
                               : magnitude >= 0x47800000u ? 0x7c00u  // ≥ 65536: infinity
                               : magnitude < 0x38800000u  ? subnormal
                                                          : normal;
  return static_cast<std::uint16_t>(sign | result);
}

/// The float that IEEE binary16 bits `h` stand for (exact; a NaN comes out quiet, with its
/// sign and payload, as F16C's vcvtph2ps makes it and IEEE 754's conversions do).
constexpr float float_from_float16(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, fraction = h & 0x3ffu;
  const std::uint32_t normal = ((exponent + 112u) << 23) | (fraction << 13);
  const std::uint32_t special = 0x7f800000u | (fraction << 13) | (fraction != 0 ? 0x400000u : 0u);  // infinity, NaN
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(static_cast<float>(fraction) * 0x1p-24f);
  return std::bit_cast<float>(sign | (exponent == 0 ? subnormal : exponent == 31 ? special : normal));
}

/// bfloat16 bits of `value` (the top half of the float), rounded to nearest even.
constexpr std::uint16_t bfloat16_bits(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
  // A carry out of the kept fraction moves to the next binade, or to infinity.
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  return static_cast<std::uint16_t>(nan ? (bits >> 16) | 0x40u : rounded);  // NaN: quiet, payload kept
}

constexpr float float_from_bfloat16(std::uint16_t h) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

/// `value` rounded to float with round-to-odd: an inexact result is the float towards zero
/// with its last bit set. Rounding that to nearest again, to a format at least two bits
/// narrower (float16, bfloat16), gives the same as rounding `value` directly (Boldo and
/// Melquiond, 2008): a double or an integer is rounded once, not twice. long double holds
/// every double and every 64-bit integer exactly (x86-64: 64-bit significand; AArch64: 113).
constexpr float float_round_to_odd(long double value) noexcept {
  const float nearest = static_cast<float>(value);
  if (static_cast<long double>(nearest) == value || value != value) return nearest;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(nearest);
  if ((nearest < 0 ? -nearest : nearest) > (value < 0 ? -value : value)) --bits;  // back towards zero
  return std::bit_cast<float>(bits | 1u);
}

}  // namespace detail

/// IEEE 754 binary16 ("half"), as stored: 1 sign, 5 exponent and 10 fraction bits; largest
/// finite value 65504. A trivially copyable 2-byte value with the layout of CUDA's __half.
struct float16 {
  std::uint16_t bits;

  float16() = default;
  /// `value` rounded to nearest, ties to even; beyond ±65504 (from ±65520 on) ±infinity; NaN
  /// stays NaN (quiet, sign and leading payload bits kept).
  constexpr explicit float16(float value) noexcept : bits(detail::float16_bits(value)) {}
  /// The same from a double or an integer, rounded once (not first to float, then again).
  template <class A>
    requires std::is_arithmetic_v<A> && (!std::same_as<A, float>)
  constexpr explicit float16(A value) noexcept : float16(detail::float_round_to_odd(static_cast<long double>(value))) {}
  /// Exact: every float16 is a float.
  constexpr operator float() const noexcept { return detail::float_from_float16(bits); }

  static constexpr float16 from_bits(std::uint16_t bits) noexcept {
    float16 h{};
    h.bits = bits;
    return h;
  }
};

/// bfloat16 (the top 16 bits of a float: 1 sign, 8 exponent and 7 fraction bits): float's
/// range with 8 significant bits. A trivially copyable 2-byte value with the layout of CUDA's
/// __nv_bfloat16.
struct bfloat16 {
  std::uint16_t bits;

  bfloat16() = default;
  /// `value` rounded to nearest, ties to even (beyond the largest finite bfloat16: ±infinity);
  /// NaN stays NaN (quiet, sign and leading payload bits kept).
  constexpr explicit bfloat16(float value) noexcept : bits(detail::bfloat16_bits(value)) {}
  /// The same from a double or an integer, rounded once.
  template <class A>
    requires std::is_arithmetic_v<A> && (!std::same_as<A, float>)
  constexpr explicit bfloat16(A value) noexcept
      : bfloat16(detail::float_round_to_odd(static_cast<long double>(value))) {}
  /// Exact: every bfloat16 is a float.
  constexpr operator float() const noexcept { return detail::float_from_bfloat16(bits); }

  static constexpr bfloat16 from_bits(std::uint16_t bits) noexcept {
    bfloat16 h{};
    h.bits = bits;
    return h;
  }
};

static_assert(sizeof(float16) == 2 && std::is_trivially_copyable_v<float16>);
static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16>);

/// The element types of arrays fastconv transforms.
enum class DType { float32, float64, int32, int64, float16, bfloat16 };

/// A type the transforms and convolutions accept: float, double, int32_t, int64_t.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> ||
                  std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t>;

/// A 16-bit floating-point storage type: float16 or bfloat16. The WHT loads such values to
/// float, computes in float and rounds each result once on store (wht.hpp); the dyadic
/// operations do not take them (their products and quotients would need a wider type to mean
/// anything: convert to float first).
template <class T>
concept HalfFloat = std::same_as<T, float16> || std::same_as<T, bfloat16>;

/// A type the WHT accepts: an Element or a HalfFloat.
template <class T>
concept TransformElement = Element<T> || HalfFloat<T>;

template <TransformElement T>
inline constexpr DType dtype_of = std::same_as<T, float>          ? DType::float32
                                  : std::same_as<T, double>       ? DType::float64
                                  : std::same_as<T, std::int32_t> ? DType::int32
                                  : std::same_as<T, std::int64_t> ? DType::int64
                                  : std::same_as<T, float16>      ? DType::float16
                                                                  : DType::bfloat16;

/// "float32", "float64", "int32", "int64", "float16", "bfloat16".
std::string_view to_string(DType dtype) noexcept;
/// Parses a dtype name: float32|f4|float, float64|f8|double, int32|i4, int64|i8,
/// float16|f2|half, bfloat16|bf16.
std::optional<DType> parse_dtype(std::string_view name) noexcept;
/// Size of one element in bytes.
constexpr std::size_t size_of(DType dtype) noexcept {
  switch (dtype) {
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::float32:
    case DType::int32: return 4;
    case DType::float64:
    case DType::int64: return 8;
  }
  return 0;
}
constexpr bool is_integer(DType dtype) noexcept {
  return dtype == DType::int32 || dtype == DType::int64;
}
/// float16 or bfloat16: a storage type of the WHT only.
constexpr bool is_half_float(DType dtype) noexcept {
  return dtype == DType::float16 || dtype == DType::bfloat16;
}

}  // namespace fastconv
