// BooleanFunction: construction, the text forms (hex, 0/1 values, files), weight and ANF.
// The spectral methods are in boolean_spectra.cpp, algebraic immunity in algebraic_immunity.cpp.
#include "fastconv/boolean.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <sstream>

#include "analysis/anf.hpp"
#include "core/files.hpp"
#include "fastconv/error.hpp"

namespace fastconv {
namespace {

using analysis::words_for;

constexpr std::string_view kBlanks = " \t\r\n\v\f";

[[noreturn]] void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

void check_variables(int n, std::string_view what) {
  if (n < 0 || n > BooleanFunction::max_variables)
    fail(ErrorCode::invalid_argument, std::string(what) + ": " + std::to_string(n) + " variables is outside 0 … " +
                                          std::to_string(BooleanFunction::max_variables));
}

/// n for a truth table of `length` values, or −1 if the length is not 2^n with n ≤ 32.
int variables_for_length(std::uint64_t length) {
  if (!std::has_single_bit(length) || length > std::uint64_t{1} << BooleanFunction::max_variables) return -1;
  return std::countr_zero(length);
}

std::string length_rule() { return "a truth table has 2^n values (1, 2, 4, 8, …) for n ≤ 32"; }

// --- hex: Σ f(x)·2^x, most-significant digit first ------------------------------------------

/// Digits of a hex table of n variables: 2^n/4, and one for n < 2.
std::uint64_t hex_digits_for(int n) { return n < 2 ? 1 : std::uint64_t{1} << (n - 2); }

/// n for a hex table of `digits` digits (n ≥ 2), or −1.
int variables_for_hex_digits(std::uint64_t digits) {
  const int n = variables_for_length(digits);
  return n < 0 || n + 2 > BooleanFunction::max_variables ? -1 : n + 2;
}

std::string hex_length_rule() { return "a hex truth table of n variables has 2^(n−2) digits (one for n < 2), n ≤ 32"; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The offset of the first character of `text` that is not a hex digit, or npos.
std::size_t first_non_hex(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (hex_value(text[i]) < 0) return i;
  return std::string_view::npos;
}

std::string_view without_hex_prefix(std::string_view text) {
  return text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? text.substr(2) : text;
}

/// Valid hex digits, hex_digits_for(n) of them: the last digit holds f(0) … f(3).
std::vector<std::uint64_t> pack_hex(std::string_view digits, int n) {
  std::vector<std::uint64_t> words(words_for(n), 0);
  for (std::size_t k = 0; k < digits.size(); ++k) {
    const std::size_t nibble = digits.size() - 1 - k;  // digit k from the right
    words[nibble / 16] |= static_cast<std::uint64_t>(hex_value(digits[k])) << (4 * (nibble % 16));
  }
  return words;
}

std::string quoted(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  std::ostringstream code;
  code << "byte 0x" << std::hex << static_cast<int>(static_cast<unsigned char>(c));
  return code.str();
}

// --- files ---------------------------------------------------------------------------------

/// "line L, column C" (1-based) of a byte offset.
std::string place_of(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  const std::size_t line_start = before.rfind('\n');
  const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return "line " + std::to_string(std::count(before.begin(), before.end(), '\n') + 1) + ", column " +
         std::to_string(column);
}

BooleanFunction hex_file(const std::string& name, std::string_view text, std::size_t start) {
  const std::size_t end = std::min(text.find_first_of(kBlanks, start), text.size());
  if (const std::size_t after = text.find_first_not_of(kBlanks, end); after != std::string_view::npos)
    fail(ErrorCode::io,
         name + ": " + place_of(text, after) + ": text after the hex truth table (a file holds one table)");
  const std::string_view digits = text.substr(start + 2, end - start - 2);
  if (const std::size_t bad = first_non_hex(digits); bad != std::string_view::npos)
    fail(ErrorCode::io,
         name + ": " + place_of(text, start + 2 + bad) + ": " + quoted(digits[bad]) + " is not a hex digit");
  const int n = variables_for_hex_digits(digits.size());
  if (n < 0)
    fail(ErrorCode::io,
         name + ": the hex truth table has " + std::to_string(digits.size()) + " digits; " + hex_length_rule());
  return BooleanFunction::from_hex(digits, n);
}

BooleanFunction values_file(const std::string& name, std::string_view text) {
  std::vector<std::uint8_t> values;
  bool comma = true;  // the last value's separator was a comma (or no value yet): a comma now leaves a value out
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '0' || c == '1') {
      values.push_back(static_cast<std::uint8_t>(c - '0'));
      comma = false;
    } else if (c == ',') {
      if (comma)
        fail(ErrorCode::io, name + ": " + place_of(text, i) + ": a value is missing before this comma" +
                                (values.empty() ? " (the first)" : " (two commas in a row)"));
      comma = true;
    } else if (kBlanks.find(c) == std::string_view::npos) {
      fail(ErrorCode::io, name + ": " + place_of(text, i) + ": " + quoted(c) +
                              " is not a truth-table value (0 or 1), a comma or a blank");
    }
  }
  if (variables_for_length(values.size()) < 0)
    fail(ErrorCode::io, name + ": " + std::to_string(values.size()) + " values; " + length_rule());
  return BooleanFunction::from_values(values);
}

}  // namespace

BooleanFunction::BooleanFunction(int n) : n_(n) {
  check_variables(n, "Boolean function");
  words_.assign(words_for(n), 0);
}

BooleanFunction::BooleanFunction(int n, std::vector<std::uint64_t> words) : n_(n), words_(std::move(words)) {}

BooleanFunction BooleanFunction::from_hex(std::string_view hex, std::optional<int> n) {
  const std::string_view digits = without_hex_prefix(hex);
  const std::size_t prefix = hex.size() - digits.size();
  if (const std::size_t bad = first_non_hex(digits); bad != std::string_view::npos)
    fail(ErrorCode::invalid_argument, "hex truth table: " + quoted(digits[bad]) + " at position " +
                                          std::to_string(prefix + bad + 1) + " is not a hex digit");
  if (digits.empty()) fail(ErrorCode::invalid_argument, "hex truth table is empty");
  if (n) check_variables(*n, "hex truth table");
  const int vars = n ? *n : variables_for_hex_digits(digits.size());
  if (vars < 0 || digits.size() != hex_digits_for(vars))
    fail(ErrorCode::invalid_argument,
         "hex truth table has " + std::to_string(digits.size()) + " digits" +
             (n ? ", not the " + std::to_string(hex_digits_for(vars)) + " of " + std::to_string(vars) + " variables"
                : "") +
             "; " + hex_length_rule());
  if (vars < 2 && hex_value(digits[0]) >> (1 << vars) != 0)
    fail(ErrorCode::invalid_argument, "hex truth table: digit " + quoted(digits[0]) + " is too large for " +
                                          std::to_string(vars) + (vars == 1 ? " variable" : " variables") +
                                          " (at most " + std::to_string((1 << (1 << vars)) - 1) + ")");
  return {vars, pack_hex(digits, vars)};
}

BooleanFunction BooleanFunction::from_values(std::span<const std::uint8_t> values) {
  const int n = variables_for_length(values.size());
  if (n < 0)
    fail(ErrorCode::invalid_argument, "truth table has " + std::to_string(values.size()) + " values; " + length_rule());
  std::vector<std::uint64_t> words(words_for(n), 0);
  for (std::size_t x = 0; x < values.size(); ++x) {
    if (values[x] > 1)
      fail(ErrorCode::invalid_argument,
           "truth table value " + std::to_string(values[x]) + " at index " + std::to_string(x) + " is not 0 or 1");
    words[x / 64] |= static_cast<std::uint64_t>(values[x]) << (x % 64);
  }
  return {n, std::move(words)};
}

BooleanFunction BooleanFunction::from_words(std::span<const std::uint64_t> words, int n) {
  check_variables(n, "packed truth table");
  if (words.size() != words_for(n))
    fail(ErrorCode::invalid_argument, "packed truth table of " + std::to_string(n) + " variables has " +
                                          std::to_string(words.size()) + " words, not " + std::to_string(words_for(n)));
  if (n < 6 && words[0] >> (1 << n) != 0)
    fail(ErrorCode::invalid_argument, "packed truth table of " + std::to_string(n) + " variables: bit " +
                                          std::to_string(std::countr_zero(words[0] >> (1 << n)) + (1 << n)) +
                                          " is set, past the 2^n = " + std::to_string(1 << n) + " values");
  return {n, std::vector<std::uint64_t>(words.begin(), words.end())};
}

BooleanFunction BooleanFunction::from_file(const std::filesystem::path& path) {
  return from_text(detail::InputFile(path).read_rest(), path.string());  // an io Error names the file and why
}

BooleanFunction BooleanFunction::from_text(std::string_view text, std::string_view source) {
  const std::string name(source);
  const std::size_t start = text.find_first_not_of(kBlanks);
  if (start == std::string::npos) fail(ErrorCode::io, name + ": no truth table: the file is empty");
  const std::string_view rest = std::string_view(text).substr(start);
  if (without_hex_prefix(rest).size() != rest.size()) return hex_file(name, text, start);
  return values_file(name, text);
}

std::string BooleanFunction::to_hex() const {
  constexpr char kDigits[] = "0123456789abcdef";
  const std::uint64_t digits = hex_digits_for(n_);
  std::string hex(digits, '0');
  for (std::uint64_t k = 0; k < digits; ++k)  // k counts from the right
    hex[digits - 1 - k] = kDigits[(words_[k / 16] >> (4 * (k % 16))) & 15];
  return hex;
}

std::uint64_t BooleanFunction::weight() const noexcept {
  const auto count = static_cast<std::int64_t>(words_.size());
  std::uint64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) if (count >= (std::int64_t{1} << 16))
  for (std::int64_t i = 0; i < count; ++i)
    total += static_cast<std::uint64_t>(std::popcount(words_[static_cast<std::size_t>(i)]));
  return total;
}

bool BooleanFunction::is_balanced() const noexcept { return 2 * weight() == size(); }

BooleanFunction BooleanFunction::algebraic_normal_form() const {
  std::vector<std::uint64_t> anf = words_;
  analysis::moebius_transform(anf, n_);
  return {n_, std::move(anf)};
}

int BooleanFunction::algebraic_degree() const { return analysis::max_set_weight(algebraic_normal_form().words(), n_); }

}  // namespace fastconv
