// tools/fastconv/paper_tables.hpp — what the paper-table benchmarks (`bench gajic`, `bench bikov`)
// share: size lists, aligned buffers, medians of timed calls with the device's own timings,
// and number formatting.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common.hpp"

namespace fastconv::cli {

/// The sizes both benchmarks accept: n from 1 to 30.
inline constexpr int kPaperMinLog2n = 1, kPaperMaxLog2n = 30;

/// "4,8,10" -> {4, 8, 10}: each an integer in [min, max]; otherwise a usage error naming
/// `option` and the example `example`.
std::vector<int> parse_sizes(const std::string& option, const std::string& text, int min, int max,
                             const std::string& example);

/// `count` elements of T (uninitialised) from fastconv::allocate_aligned: on a CPU OpenCL
/// device such memory is used in place.
template <class T>
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t count)
      : data_(static_cast<T*>(fastconv::allocate_aligned(count * sizeof(T)))), count_(count) {}
  /// A copy of `values`.
  explicit AlignedBuffer(const std::vector<T>& values) : AlignedBuffer(values.size()) {
    std::copy(values.begin(), values.end(), data_.get());
  }
  std::span<T> span() const { return {data_.get(), count_}; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  std::size_t count_;
};

/// Medians of timed calls of one backend.
struct Measurement {
  double total_ms = 0, min_ms = 0;            ///< wall time of a call
  double compute_ms = 0, transfer_ms = 0;     ///< device backends: from the profiling events
  std::uint64_t launches = 0, transfers = 0;  ///< per call (device backends)
  std::size_t repeats = 0;
};

/// One untimed warm-up call (it compiles kernels, faults pages in), then `repeats` timed ones;
/// `prepare` runs before each call, untimed.
Measurement measure(const Backend& backend, int repeats, const std::function<void()>& call,
                    const std::function<void()>& prepare = {});

/// A number for JSON (null if not finite).
std::string json_number(double value);
/// A time in ms with about three significant digits, without exponents ("-" if not finite).
std::string ms_text(double ms);
/// The compute units of the device `backend` runs on, or 1 if it cannot be told.
int compute_units(const Backend& backend);

}  // namespace fastconv::cli
