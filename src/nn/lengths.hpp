// src/nn/lengths.hpp — FFT lengths the FFT libraries (FFTW, cuFFT) compute fast.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "fastconv/error.hpp"

namespace fastconv::nn {

/// The smallest n ≥ `at_least` whose only prime factors are 2, 3, 5 and 7 (the FFT libraries' fast
/// codelets), even when `even` (a real transform of even length halves cleanly); 1 for 0 and 1,
/// SIZE_MAX when none fits 64 bits. Each odd 3^a·5^b·7^c below the best so far is doubled up to
/// `at_least`: a few thousand steps at most, where counting up from `at_least` took hours from 2^40 on.
inline std::size_t next_smooth(std::size_t at_least, bool even) {
  if (at_least <= 1) return 1;
  const auto times = [](std::size_t x, std::size_t factor) {
    std::size_t product = 0;
    return __builtin_mul_overflow(x, factor, &product) ? SIZE_MAX : product;
  };
  std::size_t best = SIZE_MAX;
  for (std::size_t a = 1; a < best; a = times(a, 3))
    for (std::size_t b = a; b < best; b = times(b, 5))
      for (std::size_t odd = b; odd < best; odd = times(odd, 7)) {
        std::size_t n = even ? times(odd, 2) : odd;
        while (n < at_least) n = times(n, 2);
        best = std::min(best, n);
      }
  return best;
}

/// The longest extent of a transform the FFT libraries take: FFTW's interface, and cuFFT's
/// plain one, count in `int`.
inline constexpr std::size_t kLongestFftExtent = static_cast<std::size_t>(std::numeric_limits<int>::max());

/// Throws an unsupported Error when `extent` is beyond kLongestFftExtent.
inline void check_fft_extent(std::size_t extent) {
  if (extent > kLongestFftExtent)
    throw Error(ErrorCode::unsupported, "conv2d: an FFT of " + std::to_string(extent) +
                                            " points along one dimension is beyond the FFT library's longest, " +
                                            std::to_string(kLongestFftExtent));
}

/// next_smooth for an FFT extent, checked (check_fft_extent).
inline std::size_t smooth_fft_extent(std::size_t at_least, bool even) {
  const std::size_t n = next_smooth(at_least, even);
  check_fft_extent(n);
  return n;
}

}  // namespace fastconv::nn
