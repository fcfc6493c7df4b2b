// Fuzz target: S-box look-up tables — io::parse_lut (inline text: "12, 5, 0xB", "[1, 2]",
// comments) and io::read_lut (a text or .npy file) — and the checks of the SBox built from one
// (n from the length, m given or from the largest value). The first byte picks the reader and
// m; the rest is its input. What is parsed must parse back from its own printing.
#include <cstdio>
#include <filesystem>

#include "fastconv/sbox.hpp"
#include "fuzz_util.hpp"
#include "io/lut.hpp"

using namespace fastconv;

namespace {

constexpr std::string_view kSource = "<fuzz>";

void check_round_trip(const std::vector<std::uint32_t>& lut) {
  std::string text = "[";
  for (std::size_t i = 0; i < lut.size(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, i % 2 ? "0x%X" : "%u", static_cast<unsigned>(lut[i]));
    text += (i ? ", " : "") + std::string(buffer);
  }
  fuzz::check(io::parse_lut(text + "]", "<printed>") == lut, "parse_lut of the printed table differs");
}

void check_sbox(const std::vector<std::uint32_t>& lut, std::optional<int> m) {
  std::optional<SBox> s;
  if (fuzz::error_of([&] { s.emplace(lut, m); })) return;
  fuzz::check(s->size() == lut.size() && std::size_t{1} << s->input_bits() == lut.size(), "SBox's n");
  fuzz::check(s->output_bits() >= 1 && s->output_bits() <= SBox::max_output_bits && (!m || s->output_bits() == *m),
              "SBox's m");
  for (const std::uint32_t v : s->lut())
    fuzz::check((std::uint64_t{v} >> s->output_bits()) == 0, "a value of 2^m or more");
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
  std::vector<std::uint32_t> lut;
  switch (mode % 3) {
    case 0:
      if (fuzz::error_naming(kSource, [&] { lut = io::parse_lut(input, kSource); })) return 0;
      break;
    default: {
      const std::filesystem::path path = fuzz::write_scratch(mode % 3 == 1 ? "lut.txt" : "lut.npy", input);
      if (fuzz::error_naming(path.string(), [&] { lut = io::read_lut(path); })) return 0;
    }
  }
  fuzz::check(!lut.empty(), "an empty look-up table was returned");
  check_round_trip(lut);
  // m: from the values, or −1 … 34, beyond both ends of 1 … 32.
  check_sbox(lut, mode / 3 % 37 == 0 ? std::nullopt : std::optional<int>(mode / 3 % 37 - 2));
  return 0;
}
