// S-box look-up tables in text and .npy files.
#include "io/lut.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "fastconv/error.hpp"
#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/files.hpp"

namespace fastconv::io {
namespace {

constexpr std::string_view kSeparators = " \t\r\n\v\f,";

[[noreturn]] void bad_lut(std::string_view source, const std::string& why) {
  throw Error(ErrorCode::invalid_argument, "S-box look-up table " + std::string(source) + ": " + why);
}

std::uint32_t parse_value(std::string_view token, std::size_t index, std::string_view source) {
  const bool hex = token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X');
  const std::string_view digits = hex ? token.substr(2) : token;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, hex ? 16 : 10);
  const std::string where = "value " + std::to_string(index) + " " + detail::quoted_token(token);
  if (error == std::errc::result_out_of_range || (error == std::errc{} && end == digits.data() + digits.size() && value > 0xFFFFFFFFu))
    bad_lut(source, where + " does not fit 32 bits");
  if (error != std::errc{} || end != digits.data() + digits.size())
    bad_lut(source, where + " is not a non-negative integer (decimal, or hex written 0x…)");
  return static_cast<std::uint32_t>(value);
}

// The text without comments and with one pair of enclosing brackets removed.
std::string strip(std::string_view text, std::string_view source) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else {
      out += text[i];
    }
  }
  const std::size_t first = out.find_first_not_of(kSeparators);
  if (first != std::string::npos && out[first] == '[') {
    const std::size_t last = out.find_last_not_of(kSeparators);
    if (out[last] != ']') bad_lut(source, "'[' without a closing ']'");
    out[first] = ' ';
    out[last] = ' ';
  }
  return out;
}

}  // namespace

std::vector<std::uint32_t> parse_lut(std::string_view text, std::string_view source) {
  const std::string body = strip(text, source);
  std::vector<std::uint32_t> lut;
  // A comma with no value before it is a value left out ("1,,2", ", 1"); one after the last
  // value is allowed, as in a Python list.
  const auto commas = [&](std::size_t from, std::size_t to) {
    return std::count(body.begin() + static_cast<std::ptrdiff_t>(from), body.begin() + static_cast<std::ptrdiff_t>(to), ',');
  };
  std::size_t pos = body.find_first_not_of(kSeparators), last_end = 0;
  while (pos != std::string::npos) {
    if (commas(last_end, pos) > (lut.empty() ? 0 : 1))
      bad_lut(source, "a value is missing before value " + std::to_string(lut.size()) +
                          (lut.empty() ? " (a comma before the first)" : " (two commas in a row)"));
    const std::size_t end = body.find_first_of(kSeparators, pos);
    const std::string_view token = std::string_view(body).substr(pos, end - pos);
    lut.push_back(parse_value(token, lut.size(), source));
    last_end = end == std::string::npos ? body.size() : end;
    pos = end == std::string::npos ? end : body.find_first_not_of(kSeparators, end);
  }
  if (lut.empty()) bad_lut(source, "no values");
  if (commas(last_end, body.size()) > 1) bad_lut(source, "a value is missing after the last (two commas in a row)");
  return lut;
}

std::vector<std::uint32_t> read_lut(const std::filesystem::path& path) {
  if (!has_npy_extension(path)) return parse_lut(detail::InputFile(path).read_rest(), path.string());
  const Array array = read_npy(path);
  if (!is_integer(array.dtype())) bad_lut(path.string(), "a .npy look-up table must hold integers");
  const Array values = convert(array, DType::int64, path.string());
  std::vector<std::uint32_t> lut;
  lut.reserve(values.size());
  for (const std::int64_t v : values.values<std::int64_t>()) {
    if (v < 0 || v > 0xFFFFFFFF)
      bad_lut(path.string(), "value " + std::to_string(lut.size()) + " (" + std::to_string(v) + ") is not in [0, 2^32)");
    lut.push_back(static_cast<std::uint32_t>(v));
  }
  if (lut.empty()) bad_lut(path.string(), "no values");
  return lut;
}

}  // namespace fastconv::io
