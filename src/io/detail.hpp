// src/io/detail.hpp — helpers shared by the I/O module's sources; not part of its interface.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include "fastconv/error.hpp"
#include "core/files.hpp"
#include "io/array_io.hpp"

namespace fastconv::io::detail {

/// Throws Error(code, "<source>: <what>").
[[noreturn]] void fail(ErrorCode code, std::string_view source, std::string_view what);

/// `text` with every byte that is not printable ASCII written as \xNN: a file's bytes quoted in a
/// message stay on one line and cannot drive the terminal.
std::string printable(std::string_view text);

/// A token read from a file, quoted for a message: printable, its first 40 bytes and "…" after
/// a longer one ('abc', '\x1b[2J', '0123…'), so that neither a control byte nor a line of
/// megabytes without a separator reaches the terminal as it is.
std::string quoted_token(std::string_view token);
/// The bytes of a token quoted_token shows.
inline constexpr std::size_t kQuotedTokenBytes = 40;

/// "element 7", or "element 7 (row 1, column 3)" for a 2-D array; indices are 0-based.
std::string element_place(const Array& array, std::size_t index);

/// Appends the shortest text that reads back as `value` ("0.1", "1", "-3"); a float is
/// written as the shortest float, not the shortest double, so 0.1f prints as "0.1". A 16-bit
/// float is written as the float it equals (float16 0.1 prints as "0.099975586": the value
/// stored), which reads back to the same 16-bit value.
template <TransformElement T>
void append_value(std::string& out, T value) {
  if constexpr (HalfFloat<T>) {
    append_value(out, static_cast<float>(value));
  } else {
    std::array<char, 32> buffer{};
    char* const first = buffer.data();
    char* const last = first + buffer.size();
    auto result = std::to_chars(first, last, value);
    if constexpr (std::is_floating_point_v<T>) {
      // The plain form prints 2^70 as 1180591620717411303424, which would read back as an
      // out-of-range integer; the scientific form keeps such a value recognisably a float.
      if (std::abs(value) >= T(0x1p63)) result = std::to_chars(first, last, value, std::chars_format::scientific);
    }
    out.append(first, result.ptr);
  }
}

template <TransformElement T>
std::string format_value(T value) {
  std::string text;
  append_value(text, value);
  return text;
}

/// Calls `f` with a value-initialised element of the type `dtype` names.
template <class F>
decltype(auto) with_element(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    case DType::int32: return f(std::int32_t{});
    case DType::float16: return f(float16{});
    case DType::bfloat16: return f(bfloat16{});
    case DType::int64: break;
  }
  return f(std::int64_t{});
}

/// Throws invalid_argument unless the array's rows * cols equals its number of values.
void require_consistent(const Array& array, std::string_view target);

/// Throws invalid_argument naming the first NaN or infinity in `array`.
void reject_non_finite(const Array& array, std::string_view source);

/// Hands the text form of `array` (as write_text prints it) to `sink` in pieces.
void write_text_chunks(const Array& array, const std::function<void(std::string_view)>& sink);

/// The complete .npy version 1.0 header (magic to trailing '\n') for `array`.
std::string npy_header(const Array& array);
/// The same for values of `dtype` in a C-order array of `shape`.
std::string npy_header(DType dtype, const std::vector<std::uint64_t>& shape);

using fastconv::detail::AtomicFile;
using fastconv::detail::InputFile;

/// Reads `count` little-endian values of `dtype` from `file` into a 1-D Array; the caller
/// has checked that the file holds them, so nothing is allocated on a header's word alone.
Array read_values(InputFile& file, DType dtype, std::size_t count);

/// The bytes of the array's values, in memory (little-endian) order.
std::string_view value_bytes(const Array& array);

}  // namespace fastconv::io::detail
