// bench/sbox_baselines.hpp — the algorithms sboxU's C++ core uses for its tables, rebuilt here
// (sboxU itself cannot be installed from PyPI: its wheel there, version 1.1.0, holds no code)
// so that fastconv is compared with them in the same run. Each follows the published
// algorithm and keeps sboxU's data layout (one std::vector per row), single-threaded as
// sboxU's lat/ddt/bct are:
// - lat: for each output mask b, the ±1 component vector and an in-place integer Walsh
//   transform, written into column b;
// - ddt: for each a, count S(x) ⊕ S(x ⊕ a) over every x;
// - bct: for each a, the inputs grouped by their output difference, every pair of a group
//   contributing to two entries (Boura–Canteaut's identity), as sboxU's cpp_bct_row does.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace bench::baseline {

using Lut = std::vector<std::uint32_t>;
using Rows = std::vector<std::vector<int>>;

inline int log2_of(std::size_t size) { return std::countr_zero(size); }

inline Rows lat(const Lut& s, int m) {
  const std::size_t inputs = s.size(), outputs = std::size_t{1} << m;
  Rows table(inputs, std::vector<int>(outputs));
  std::vector<int> column(inputs);
  for (std::size_t b = 0; b < outputs; ++b) {
    for (std::size_t x = 0; x < inputs; ++x) column[x] = (std::popcount(b & s[x]) & 1) ? -1 : 1;
    for (std::size_t h = 1; h < inputs; h *= 2)
      for (std::size_t i = 0; i < inputs; i += 2 * h)
        for (std::size_t j = i; j < i + h; ++j) {
          const int u = column[j], v = column[j + h];
          column[j] = u + v;
          column[j + h] = u - v;
        }
    for (std::size_t a = 0; a < inputs; ++a) table[a][b] = column[a];
  }
  return table;
}

inline Rows ddt(const Lut& s, int m) {
  const std::size_t inputs = s.size();
  Rows table(inputs, std::vector<int>(std::size_t{1} << m));
  for (std::size_t a = 0; a < inputs; ++a)
    for (std::size_t x = 0; x < inputs; ++x) ++table[a][s[x] ^ s[x ^ a]];
  return table;
}

inline Rows bct(const Lut& s) {
  const std::size_t size = s.size();
  Rows table(size, std::vector<int>(size));
  table[0].assign(size, static_cast<int>(size));
  for (std::size_t a = 1; a < size; ++a) {
    std::vector<int>& row = table[a];
    std::vector<std::vector<std::uint32_t>> outputs_by_difference(size);
    row[0] = static_cast<int>(size);
    const std::size_t high = std::bit_floor(a);
    for (std::size_t x = 0; x < size; ++x) {
      if (x & high) continue;  // x and x ⊕ a form one pair: visit it once
      const std::uint32_t y = s[x], difference = y ^ s[x ^ a];
      for (const std::uint32_t y2 : outputs_by_difference[difference]) {
        row[y ^ y2] += 4;
        if (difference != 0) row[y ^ y2 ^ difference] += 4;
      }
      outputs_by_difference[difference].push_back(y);
      row[difference] += 2;
    }
  }
  return table;
}

}  // namespace bench::baseline
