// fastconv/types.hpp — element types the transforms accept.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fastconv {

/// The element types of arrays fastconv transforms.
enum class DType { float32, float64, int32, int64 };

/// A type the transforms and convolutions accept: float, double, int32_t, int64_t.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> ||
                  std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t>;

template <Element T>
inline constexpr DType dtype_of = std::same_as<T, float>          ? DType::float32
                                  : std::same_as<T, double>       ? DType::float64
                                  : std::same_as<T, std::int32_t> ? DType::int32
                                                                  : DType::int64;

/// "float32", "float64", "int32", "int64".
std::string_view to_string(DType dtype) noexcept;
/// Parses a dtype name: float32|f4|float, float64|f8|double, int32|i4, int64|i8.
std::optional<DType> parse_dtype(std::string_view name) noexcept;
/// Size of one element in bytes.
constexpr std::size_t size_of(DType dtype) noexcept {
  return dtype == DType::float32 || dtype == DType::int32 ? 4 : 8;
}
constexpr bool is_integer(DType dtype) noexcept {
  return dtype == DType::int32 || dtype == DType::int64;
}

}  // namespace fastconv
