#include "paper_tables.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fastconv::cli {

std::vector<int> parse_sizes(const std::string& option, const std::string& text, int min, int max,
                             const std::string& example) {
  std::vector<int> sizes;
  std::string_view rest = text;
  for (;;) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int value = 0;
    const char* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || value < min || value > max)
      usage_error(option + " " + text + ": '" + std::string(item) + "' is not a size: use a comma-separated list of n (2^n points), " +
                  "integers from " + std::to_string(min) + " to " + std::to_string(max) + ", e.g. " + example);
    sizes.push_back(value);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return sizes;
}

namespace {
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

Measurement measure(const Backend& backend, int repeats, const std::function<void()>& call,
                    const std::function<void()>& prepare) {
  using Clock = std::chrono::steady_clock;
  if (prepare) prepare();
  call();  // warm-up
  std::vector<double> total, compute, transfer;
  Measurement m;
  for (int r = 0; r < repeats; ++r) {
    if (prepare) prepare();
    backend.reset_timings();
    const auto start = Clock::now();
    call();
    total.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    const DeviceTimings t = backend.timings();
    compute.push_back(t.compute_ms);
    transfer.push_back(t.transfer_ms);
    m.launches = t.launches;
    m.transfers = t.transfers;
  }
  m.total_ms = median(total);
  m.min_ms = *std::min_element(total.begin(), total.end());
  m.compute_ms = median(compute);
  m.transfer_ms = median(transfer);
  m.repeats = total.size();
  return m;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 6);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

/// A time in ms with about three significant digits, without exponents.
std::string ms_text(double ms) {
  if (!std::isfinite(ms)) return "-";
  char buf[64];
  if (ms >= 100 || ms == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", ms);
  } else {
    const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(ms))), 1, 6);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, ms);
  }
  return buf;
}

int compute_units(const Backend& backend) {
  const std::string description = backend.description();
  for (const Device& d : devices())
    if (d.backend == backend.name() && description.find("device " + d.id) != std::string::npos)
      return std::max(1, d.compute_units);
  return 1;
}

}  // namespace fastconv::cli
