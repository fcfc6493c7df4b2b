// Fuzz target: the `fastconv` command line, parsed and run in-process (fastconv::cli::run):
// CLI11's parsing of subcommands, options and values, each subcommand's checks of its options,
// and the readers on the files named (small valid and invalid inputs written in the scratch
// directory beforehand).
//
// The input is text, one argument per line; the lines after a line "<<<" are standard input.
// An argument is used if it is in the vocabulary below or is a literal: at most 80 printable
// characters and no '/' (every path stays in the scratch directory). With `sbox`, no argument
// or standard input holds a number above 65535 (an S-box of more than 16 output bits takes
// minutes: its statistics run over 2^m components). The values of --threads,
// --memory, --padding and --m come from the vocabulary only (they size threads and memory).
// demo, bench, --distributed and --device are left out, and the opencl backend finds no platform.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "cli_runner.hpp"
#include "npy_builder.hpp"

using namespace fastconv;

namespace {

const std::set<std::string, std::less<>> kWords = {
    // subcommands and options
    "wht", "dyadic", "conv", "autocorr", "deconv", "boolean", "analyze", "walsh", "anf", "sbox", "lat", "ddt", "bct",
    "act", "conv2d", "info", "-", "--help", "-h", "--version", "--order", "--normalize", "--inverse", "--backend",
    "--threads", "--variant", "--dtype", "--out-of-core", "--memory", "--quiet", "--json", "--format", "--m",
    "--scale", "--bias", "--padding", "--algorithm", "--show-algorithm",
    // values
    "hadamard", "sequency", "paley", "none", "orthonormal", "inverse", "auto", "reference", "cpu", "opencl", "cuda",
    "float32", "float64", "int32", "int64", "float16", "bfloat16", "f2", "half", "bf16", "polynomial", "hex",
    "values", "fourier_coefficient", "absolute_bias", "bias", "correlation", "direct", "im2col_gemm", "im2col-gemm",
    "fft2d", "winograd", "polyhankel", "polyhankel_merged", "aes", "present", "textbook", "portable", "sse4", "avx2", "avx2_128", "avx512", "radix4",
    // outputs
    "out.txt", "out.csv", "out.npy", "out.bin", "out.raw", "out.xyz", "out", "OUT.NPY"};

// The options whose values size threads or memory, and the values they may take.
const std::array<std::pair<std::string_view, std::set<std::string, std::less<>>>, 4> kCappedOptions{{
    {"--threads", {"0", "1", "2", "-1", "1.5", "x", "", "99999999999999999999"}},
    {"--memory", {"1K", "64K", "1M", "4G", "0", "1", "K", "12X", "-1", "1.5M", "999999999999999T", "16T", ""}},
    {"--padding", {"0", "1", "2", "1,0,2,1", "0,0,0,3", "-1", "x", "1,2", "1,,2,3", ",", "", "4294967296",
                   "18446744073709551615", "18446744073709551616", "9223372036854775807", "1,1,1,1,1"}},
    {"--m", {"1", "2", "3", "4", "8", "16", "17", "0", "33", "-1", "x", ""}},
}};

std::map<std::string, std::string> input_files() {
  using fuzz::npy_of;
  const std::string present = "12, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2\n";
  return {
      {"a.txt", "1 0 1 1\n"},
      {"b.txt", "0 1 0 1\n"},
      {"m.txt", "1 2 3 4\n5 6 7 8\n"},
      {"f.csv", "1.5,2,-3,4\n"},
      {"odd.txt", "1 2 3\n"},
      {"nan.txt", "1 nan\n"},
      {"big.txt", "9223372036854775807 9223372036854775807 1 1\n"},
      {"zero.txt", "1 1 1 1\n"},  // a zero in its Walsh spectrum: not deconvolvable
      {"empty.txt", ""},
      {"bad.txt", "1 x\n"},
      {"x.npy", npy_of<double>("<f8", "(4,)", {1, 2, 3, 4})},
      {"i.npy", npy_of<std::int32_t>("<i4", "(8,)", {1, -2, 3, 4, 5, 6, 7, 8})},
      {"l.npy", npy_of<std::int64_t>("<i8", "(2, 4)", {1, 2, 3, 4, 5, 6, 7, 8})},
      {"h.npy", npy_of<std::uint16_t>("<f2", "(4,)", {0x3c00, 0x4000, 0xbc00, 0})},
      {"f.npy", npy_of<float>("<f4", "(4,)", {1, 0.5f, -2, 8})},
      {"odd.npy", npy_of<float>("<f4", "(3,)", {1, 2, 3})},
      {"bad.npy", npy_of<float>("<f4", "(8,)", {1, 2})},  // truncated
      {"huge.npy", npy_of<float>("<f4", "(1099511627776,)", {1, 2, 3, 4})},
      {"fortran.npy",
       fuzz::npy_file("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", std::string(32, '\0'))},
      {"r.bin", std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40", 16)},
      {"odd.raw", "abc"},
      {"tt.txt", "0x0113077C165E76A8\n"},
      {"tt01.txt", "0 1 1 0\n"},
      {"ttbad.txt", "0x12G4\n"},
      {"lut.txt", present},
      {"lut.npy", npy_of<std::int64_t>("<i8", "(4,)", {0, 1, 3, 2})},
      {"lutf.npy", npy_of<float>("<f4", "(2,)", {0, 1})},
      {"lut3.txt", "[1, 2, 0]\n"},
      {"lutbig.txt", "0 1048575 3 7\n"},
      {"x4.npy", npy_of<float>("<f4", "(1, 2, 4, 4)", std::vector<float>(32, 0.5f))},
      {"x3.npy", npy_of<double>("<f8", "(2, 3, 3)", std::vector<double>(18, -1.25))},
      {"w.npy", npy_of<float>("<f4", "(2, 2, 3, 3)", std::vector<float>(36, 0.25f))},
      {"w1.npy", npy_of<float>("<f4", "(3, 2, 1, 2)", std::vector<float>(12, 2.0f))},
      {"wbig.npy", npy_of<float>("<f4", "(1, 2, 9, 9)", std::vector<float>(162, 1.0f))},
      {"bias.npy", npy_of<float>("<f4", "(2,)", {1, -1})},
      {"bias3.npy", npy_of<double>("<f8", "(3,)", {1, 2, 3})},
  };
}

bool is_literal(std::string_view arg) {
  return arg.size() <= 80 && arg != "." && arg != ".." &&
         std::all_of(arg.begin(), arg.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '/' && c != '\\'; });
}

/// Whether every number in `text` (decimal digits, or hex digits after 0x) is at most 65535.
bool small_numbers_only(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const bool hex = text.substr(i).starts_with("0x") || text.substr(i).starts_with("0X");
    const std::size_t start = hex ? i + 2 : i;
    std::size_t end = start;
    while (end < text.size() && (hex ? std::isxdigit(static_cast<unsigned char>(text[end]))
                                     : std::isdigit(static_cast<unsigned char>(text[end]))))
      ++end;
    if (end == start) {
      ++i;
      continue;
    }
    const std::string_view digits = text.substr(start, end - start);
    const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
    if (digits.size() - first > (hex ? 4 : 5) || std::stoul(std::string(digits), nullptr, hex ? 16 : 10) > 65535)
      return false;
    i = end;
  }
  return true;
}

const std::set<std::string, std::less<>>* capped_values(std::string_view option) {
  for (const auto& [name, values] : kCappedOptions)
    if (name == option) return &values;
  return nullptr;
}

bool is_capped(std::string_view option) { return capped_values(option) != nullptr; }

/// The arguments the fuzz input's lines allow (see the top of the file), in order.
std::vector<std::string> arguments(const std::vector<std::string_view>& lines, const std::set<std::string>& files) {
  std::vector<std::string> args;
  for (const std::string_view line : lines) {
    if (args.size() == 24) break;
    if (!args.empty() && is_capped(args.back())) {  // the value of a capped option
      if (capped_values(args.back())->contains(line)) args.emplace_back(line);
      continue;
    }
    if (const std::size_t eq = line.find('='); eq != std::string_view::npos && is_capped(line.substr(0, eq))) {
      if (capped_values(line.substr(0, eq))->contains(line.substr(eq + 1))) args.emplace_back(line);
      continue;
    }
    if (line == "demo" || line == "bench" || line.starts_with("--dist") || line.starts_with("--dev")) continue;
    if (kWords.contains(line) || files.contains(std::string(line)) || is_literal(line)) args.emplace_back(line);
  }
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::map<std::string, std::string> inputs = input_files();
  static fuzz::CliRunner runner(inputs);
  static const std::set<std::string> files = [] {
    std::set<std::string> names;
    for (const auto& [name, content] : inputs) names.insert(name);
    return names;
  }();

  std::string_view text = fuzz::as_text(data, size);
  std::string_view stdin_text;
  if (const std::size_t mark = text.find("<<<\n");
      mark != std::string_view::npos && (mark == 0 || text[mark - 1] == '\n')) {
    stdin_text = text.substr(mark + 4);
    text = text.substr(0, mark);
  }
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  const std::vector<std::string> args = arguments(lines, files);
  // An S-box's values, inline or on standard input: none above 65535.
  if (std::find(args.begin(), args.end(), "sbox") != args.end()) {
    if (!small_numbers_only(stdin_text)) return 0;
    for (const std::string& arg : args)
      if (!small_numbers_only(arg)) return 0;
  }
  fuzz::check_cli_result(runner.run(args, stdin_text));
  return 0;
}
