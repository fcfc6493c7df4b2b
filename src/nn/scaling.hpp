// src/nn/scaling.hpp — powers of two that keep conv2d's transform algorithms (fft2d,
// polyhankel, winograd) inside the floating-point range: an extreme image or filter is scaled
// into a window where no intermediate overflows or falls into the subnormals, and its output
// planes scaled back.
#pragma once

#include <omp.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "nn/isa.hpp"
#include "nn/spectral_isa.hpp"

namespace fastconv::nn {

/// Multiplication by 2^exponent, exact while the values stay in T's normal range: by a factor
/// when 2^exponent is a normal T, through std::ldexp otherwise.
template <class T>
class PowerOfTwo {
 public:
  explicit PowerOfTwo(int exponent) noexcept
      : exponent_(exponent),
        factor_(exponent >= std::numeric_limits<T>::min_exponent - 1 && exponent < std::numeric_limits<T>::max_exponent
                    ? std::ldexp(T(1), exponent)
                    : T(0)) {}

  /// to[i] = from[i]·2^exponent for i < n.
  void scale(const T* from, std::size_t n, T* to) const noexcept {
    if (factor_ != T(0)) {
      for (std::size_t i = 0; i < n; ++i) to[i] = from[i] * factor_;
    } else {
      for (std::size_t i = 0; i < n; ++i) to[i] = std::ldexp(from[i], exponent_);
    }
  }

  /// to[i] = from[i]·2^exponent + add for i < n.
  void scale_add(const T* from, std::size_t n, T add, T* to) const noexcept {
    if (factor_ != T(0)) {
      for (std::size_t i = 0; i < n; ++i) to[i] = from[i] * factor_ + add;
    } else {
      for (std::size_t i = 0; i < n; ++i) to[i] = std::ldexp(from[i], exponent_) + add;
    }
  }

 private:
  int exponent_;
  T factor_;  // 2^exponent, or 0 where that is not a normal T
};

/// The windows in which an operand's largest magnitude needs no scaling, and the power of two
/// that brings it into its window: for the FFT algorithms (SpectralScaling, spectral.hpp) and
/// winograd. Each image (all its channels) and each filter gets its own exponent; output plane
/// (n, k) is scaled back by image n's and filter k's. Power-of-two factors change no rounding in
/// the normal range, and usual values lie inside the windows, so their outputs are the unscaled
/// algorithm's, bit for bit.
template <class T>
struct OperandScaling {
  int images_low = 0, images_high = 0;    ///< the window of an image's largest magnitude's exponent
  int weights_low = 0, weights_high = 0;  ///< the same for a filter's

  /// The windows of an algorithm whose intermediates stay below 2^growth · |x|max · |w|max and
  /// whose weights' transforms are at least 2^−shrink of the weights' largest magnitude. With
  /// values below 2^(hi+1), every intermediate is below 2^(hi_x + 1 + hi_w + 1 + growth) ≤
  /// 2^(max_exponent − 2); with the largest at 2^lo or more, the largest image value, weight
  /// transform and product stay at least `digits` bits above the smallest normal value.
  OperandScaling(int growth, int shrink) noexcept {
    const int budget = std::numeric_limits<T>::max_exponent - 4 - growth;  // for hi_x + hi_w
    images_high = budget / 2;
    weights_high = budget - images_high;
    const int floor = std::numeric_limits<T>::min_exponent - 1 + std::numeric_limits<T>::digits;  // float: −102
    images_low = floor / 2;  // rounds toward zero: lo_x + lo_w − shrink ≥ floor
    weights_low = floor / 2 + shrink;
  }

  /// 0 while `largest` (a block's largest magnitude) lies in [2^low, 2^(high+1)) or is zero or
  /// not finite (a NaN or infinity spreads over its planes however it is scaled); else the
  /// exponent that brings it to the nearer end.
  static int exponent(T largest, int low, int high) noexcept {
    if (!(largest > T(0)) || !std::isfinite(largest)) return 0;
    const int top = std::ilogb(largest);
    return top > high ? high - top : top < low ? low - top : 0;
  }
};

/// ⌈log2 v⌉ (0 for v ≤ 1).
constexpr int ceil_log2(std::uint64_t v) noexcept { return static_cast<int>(std::bit_width(v > 1 ? v - 1 : 0)); }

/// The largest magnitude among n values (infinite or NaN if one is), on this CPU's vectors
/// (spectral_isa.cpp): with SSE2 alone, which has no unsigned maximum, a scan took 15–35 % of a
/// small winograd call. Threads take a share each past 2^16 values.
template <class T>
T largest_magnitude(const T* values, std::size_t n, int threads) noexcept {
  const auto scan = [](const T* v, std::size_t count) {
#if defined(FASTCONV_NN_HAVE_avx512)
    if (has_avx512()) return isa_avx512::largest_magnitude(v, count);
#endif
#if defined(FASTCONV_NN_HAVE_avx2)
    if (has_avx2_fma()) return isa_avx2::largest_magnitude(v, count);
#endif
    return isa_base::largest_magnitude(v, count);
  };
  if (threads <= 1 || n <= (std::size_t{1} << 16)) return scan(values, n);
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  Bits largest = 0;  // magnitudes order as their bits
#pragma omp parallel num_threads(threads) reduction(max : largest)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num()), team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t first = n * t / team, last = n * (t + 1) / team;
    const T part = scan(values + first, last - first);
    Bits bits;
    std::memcpy(&bits, &part, sizeof bits);
    largest = bits;
  }
  T result;
  std::memcpy(&result, &largest, sizeof result);
  return result;
}

}  // namespace fastconv::nn
