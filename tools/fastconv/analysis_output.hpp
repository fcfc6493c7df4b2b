// tools/fastconv/analysis_output.hpp — what `boolean` and `sbox` share: reading their inputs
// and printing summaries (aligned "name  value" lines, histograms, a progress bar).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"

namespace fastconv::cli {

/// "yes" or "no".
inline std::string yes_no(bool value) { return value ? "yes" : "no"; }

/// "-8: 28, 8: 36": a histogram's value: count pairs by increasing value.
std::string histogram_text(const Histogram& histogram);

/// [[-8, 28], [8, 36]]: the same pairs for --json (JSON's keys would be strings).
nlohmann::ordered_json histogram_json(const Histogram& histogram);

/// Prints rows of (name, value) with the values aligned in one column.
void print_fields(const std::vector<std::pair<std::string, std::string>>& fields);

/// A progress line on stderr ("linear  42%"), drawn only when stderr is a terminal and only
/// once the run has lasted a couple of seconds; erased when done.
class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  void update(std::string_view stage, double fraction);

 private:
  bool terminal_;
  bool drawn_ = false;
  int last_percent_ = -1;
  std::string last_stage_;
  std::chrono::steady_clock::time_point start_;
};

/// TT: an existing file (0/1 values, or hex with 0x) or "-" (standard input) is read; anything
/// else is a hex truth table.
BooleanFunction read_truth_table(const std::string& argument);

/// LUT: an existing file (text or .npy) or "-" is read, a name from named_sbox() ("aes", "present")
/// is that S-box, anything else is the values inline.
std::vector<std::uint32_t> read_lookup_table(const std::string& argument);

}  // namespace fastconv::cli
