// src/nn/lengths.hpp — FFT lengths the FFT libraries (FFTW, cuFFT) compute fast.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>

namespace fastconv::nn {

/// The smallest n ≥ `at_least` whose only prime factors are 2, 3, 5 and 7 (the FFT libraries' fast
/// codelets), even when `even` (a real transform of even length halves cleanly).
inline std::size_t next_smooth(std::size_t at_least, bool even) {
  for (std::size_t n = std::max<std::size_t>(at_least, 1);; ++n) {
    if (even && n % 2 && n > 1) continue;
    std::size_t m = n;
    for (std::size_t p : {2, 3, 5, 7})
      while (m % p == 0) m /= p;
    if (m == 1) return n;
  }
}

}  // namespace fastconv::nn
