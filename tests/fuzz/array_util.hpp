// tests/fuzz/array_util.hpp — comparing the io::Arrays the reader targets read back.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "fuzz_util.hpp"
#include "io/array_io.hpp"

namespace fastconv::fuzz {

/// The values as doubles (exact for every type but int64 beyond 2^53).
inline std::vector<double> as_doubles(const io::Array& array) {
  return std::visit([](const auto& values) {
    std::vector<double> out;
    out.reserve(values.size());
    for (const auto v : values) out.push_back(static_cast<double>(v));
    return out;
  }, array.data);
}

/// Same shape, type and bytes.
inline bool identical(const io::Array& a, const io::Array& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.two_d != b.two_d || a.dtype() != b.dtype()) return false;
  return std::visit([&](const auto& x) {
    const auto& y = std::get<std::decay_t<decltype(x)>>(b.data);
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  }, a.data);
}

/// What every array a reader returns satisfies: its shape matches its values, a 1-D array has
/// one row, and no value is NaN or infinite.
inline void check_well_formed(const io::Array& array) {
  const std::size_t count = std::visit([](const auto& v) { return v.size(); }, array.data);
  check(count != 0, "an empty array was returned");
  check(array.rows * array.cols == count, "the shape does not match the number of values");
  check(array.two_d || array.rows == 1, "a 1-D array with several rows");
  for (const double v : as_doubles(array)) check(std::isfinite(v), "a non-finite value was returned");
}

}  // namespace fastconv::fuzz
