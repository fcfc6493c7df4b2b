// Fuzz target: Boolean functions' truth tables — BooleanFunction::from_hex (a hex truth table,
// with or without "0x", n given or from the length) and BooleanFunction::from_file (hex with
// "0x", or 0/1 values). The first byte picks the reader (and n); the rest is its input. What is
// read must print back (to_hex) as the table read, and rebuild from its packed words.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "fastconv/boolean.hpp"
#include "fuzz_util.hpp"

using namespace fastconv;

namespace {

void check_round_trip(const BooleanFunction& f) {
  fuzz::check(f.num_variables() >= 0 && f.num_variables() <= BooleanFunction::max_variables, "n out of range");
  fuzz::check(BooleanFunction::from_hex(f.to_hex(), f.num_variables()) == f, "from_hex(to_hex()) differs");
  fuzz::check(BooleanFunction::from_words(f.words(), f.num_variables()) == f, "from_words(words()) differs");
  fuzz::check(f.weight() <= f.size(), "weight above 2^n");
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::single_threaded();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view input = fuzz::as_text(data + 1, size - 1);
  BooleanFunction f(0);
  if (mode % 3 == 2) {  // a file
    const std::filesystem::path path = fuzz::write_scratch("tt.txt", input);
    if (fuzz::error_naming(path.string(), [&] { f = BooleanFunction::from_file(path); })) return 0;
  } else {
    // n from the length, or given: −2 … 37, beyond both ends of 0 … 32.
    const std::optional<int> n = mode % 3 == 0 ? std::nullopt : std::optional<int>(mode / 3 % 40 - 2);
    if (fuzz::error_of([&] { f = BooleanFunction::from_hex(input, n); })) return 0;
    if (n) fuzz::check(f.num_variables() == *n, "from_hex ignored the n given");
    const bool prefix = input.size() >= 2 && input[0] == '0' && (input[1] | 0x20) == 'x';
    const std::string_view digits = input.substr(prefix ? 2 : 0);
    fuzz::check(f.to_hex() == lower(digits), "to_hex() is not the table read");
  }
  check_round_trip(f);
  return 0;
}
