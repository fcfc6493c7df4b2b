// src/core/normalization.hpp — what a WHT's normalisation means for floats (a scale) and for
// exact integers (a power-of-two divisor), shared by the in-memory and out-of-core transforms.
#pragma once

#include <cmath>
#include <string>

#include "core/exact.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::detail {

/// The factor a float WHT of 2^log2n points is multiplied by.
inline double normalization_scale(int log2n, Normalization normalization) {
  switch (normalization) {
    case Normalization::none: return 1.0;
    case Normalization::inverse: return std::ldexp(1.0, -log2n);
    case Normalization::orthonormal: return 1.0 / std::sqrt(std::ldexp(1.0, log2n));
  }
  return 1.0;
}

/// log2 of the exact divisor the normalisation applies to an integer transform.
inline int normalization_shift(int log2n, Normalization normalization) {
  switch (normalization) {
    case Normalization::none: return 0;
    case Normalization::inverse: return log2n;
    case Normalization::orthonormal: return log2n / 2;
  }
  return 0;
}

/// Integer type I: the unsupported Error of an orthonormal WHT of odd log2n, which cannot be exact.
template <class I>
void require_exact_normalization(int log2n, Normalization normalization) {
  if (normalization == Normalization::orthonormal && log2n % 2 != 0)
    throw Error(ErrorCode::unsupported, "orthonormal normalisation of an " + std::string(type_name<I>()) +
                                            " WHT of 2^" + std::to_string(log2n) +
                                            " points cannot be exact (1/sqrt(" +
                                            std::to_string(std::size_t{1} << log2n) +
                                            ") is irrational); use a floating-point dtype");
}

}  // namespace fastconv::detail
