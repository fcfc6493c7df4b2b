// src/core/accumulation.hpp — Accumulation::float64: float and 16-bit float data computed in double.
#pragma once

#include <string>
#include <type_traits>

#include "fastconv/error.hpp"
#include "fastconv/types.hpp"

namespace fastconv::detail {

/// Whether Accumulation::float64 changes how T's data are computed: float and the 16-bit floats
/// (double is double already, and integers are exact).
template <class T>
inline constexpr bool accumulates_in_double = std::is_same_v<T, float> || HalfFloat<T>;

/// `compute()`, which makes a backend's double-precision kernels and may run them, with a
/// backend's refusal of double precision (an OpenCL device without cl_khr_fp64: the only
/// unsupported Error a floating-point kernel throws) restated as float64 accumulation's.
template <class Compute>
decltype(auto) in_double(Compute&& compute) {
  try {
    return compute();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::unsupported) throw;
    throw Error(ErrorCode::unsupported, "float64 accumulation needs double precision: " + std::string(e.what()));
  }
}

}  // namespace fastconv::detail
