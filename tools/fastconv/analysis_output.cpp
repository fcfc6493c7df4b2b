#include "analysis_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "io/array_io.hpp"
#include "io/lut.hpp"

namespace fastconv::cli {

std::string histogram_text(const Histogram& histogram) {
  std::string out;
  for (const auto& [value, count] : histogram)
    out += (out.empty() ? "" : ", ") + std::to_string(value) + ": " + std::to_string(count);
  return out.empty() ? "(empty)" : out;
}

nlohmann::ordered_json histogram_json(const Histogram& histogram) {
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  for (const auto& [value, count] : histogram) pairs.push_back({value, count});
  return pairs;
}

void print_fields(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::size_t width = 0;
  for (const auto& field : fields) width = std::max(width, field.first.size());
  for (const auto& [name, value] : fields)
    std::cout << name << std::string(width + 2 - name.size(), ' ') << value << '\n';
}

ProgressBar::ProgressBar() : terminal_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::update(std::string_view stage, double fraction) {
  using namespace std::chrono_literals;
  if (!terminal_ || std::chrono::steady_clock::now() - start_ < 2s) return;
  const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
  if (drawn_ && percent == last_percent_ && stage == last_stage_) return;
  last_percent_ = percent;
  last_stage_ = stage;
  drawn_ = true;
  std::fprintf(stderr, "\r\033[K%.*s %3d%%", static_cast<int>(stage.size()), stage.data(), percent);
  std::fflush(stderr);
}

namespace {

/// Whether `argument` names something on disk. An argument that cannot be a path (longer than a
/// file name may be: a long inline table) names nothing, rather than throwing.
bool names_a_file(const std::string& argument) {
  std::error_code error;
  return std::filesystem::exists(argument, error);
}

/// Whether an argument that names no file was meant as one: it has a directory part, or an
/// extension of letters (a look-up table's values hold neither; "1.5" has no such extension).
bool looks_like_a_path(const std::string& argument) {
  if (argument.find('/') != std::string::npos) return true;
  const std::string extension = std::filesystem::path(argument).extension().string();
  return extension.size() > 1 && std::all_of(extension.begin() + 1, extension.end(),
                                             [](unsigned char c) { return std::isalpha(c) != 0; });
}

/// A truth table saved by NumPy: a 1-D .npy array (or one row) of int32 or int64 values, each 0
/// or 1 (the .npy reader's integer types).
BooleanFunction read_npy_truth_table(const std::string& path) {
  const io::Array array = io::read_file(path, std::nullopt);
  if (array.rows > 1)
    throw Error(ErrorCode::io, path + ": a truth table is one vector, not " + std::to_string(array.rows) + " rows");
  if (!is_integer(array.dtype()))
    throw Error(ErrorCode::io, path + ": a .npy truth table holds integers 0 and 1, not " +
                                   std::string(to_string(array.dtype())) + " values");
  const io::Array values = io::convert(array, DType::int64, path);
  std::vector<std::uint8_t> bits;
  bits.reserve(values.size());
  for (const std::int64_t v : values.values<std::int64_t>()) {
    if (v != 0 && v != 1)
      throw Error(ErrorCode::io, path + ": value " + std::to_string(bits.size()) + " is " + std::to_string(v) +
                                     ", not 0 or 1");
    bits.push_back(static_cast<std::uint8_t>(v));
  }
  try {
    return BooleanFunction::from_values(bits);
  } catch (const Error& e) {  // the length: named with the file
    throw Error(ErrorCode::io, path + ": " + e.what());
  }
}

}  // namespace

BooleanFunction read_truth_table(const std::string& argument) {
  if (argument == "-")
    return BooleanFunction::from_text(std::string{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()},
                                      "<stdin>");
  if (names_a_file(argument))
    return io::has_npy_extension(argument) ? read_npy_truth_table(argument)
                                                                   : BooleanFunction::from_file(argument);
  if (argument.find_first_of("/.") != std::string::npos)
    throw Error(ErrorCode::io, argument + ": no such file (and not a hex truth table)");
  return BooleanFunction::from_hex(argument);
}

std::vector<std::uint32_t> read_lookup_table(const std::string& argument) {
  if (argument == "-")
    return io::parse_lut(std::string{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()}, "<stdin>");
  if (names_a_file(argument)) return io::read_lut(argument);
  if (const auto named = named_sbox(argument)) return {named->lut().begin(), named->lut().end()};
  if (looks_like_a_path(argument)) throw Error(ErrorCode::io, argument + ": no such file");
  if (!argument.empty() && std::isalpha(static_cast<unsigned char>(argument.front())) &&
      argument.find_first_of(", \t\n") == std::string::npos) {
    std::string names;
    for (const auto name : named_sbox_names()) names += (names.empty() ? "" : ", ") + std::string(name);
    usage_error("unknown S-box '" + argument + "': give its values, a file, or one of the names " + names);
  }
  return io::parse_lut(argument, "'" + argument.substr(0, 40) + (argument.size() > 40 ? "…" : "") + "'");
}

}  // namespace fastconv::cli
