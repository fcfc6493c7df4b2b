// src/nn/vec.hpp — the vectors of the files of src/nn compiled once per instruction set
// (direct_isa.cpp, spectral_isa.cpp, winograd_isa.cpp): FASTCONV_NN_VECTOR_BYTES bytes, 32 unless
// the build says otherwise — one AVX2 register, two SSE2 or NEON ones in the baseline build —
// and 64 in the AVX-512 copy (one register). Everything here sits in the namespace
// FASTCONV_NN_ISA names, so that the copies compiled with different flags never meet at link
// time.
#pragma once

#include <cstddef>
#include <cstring>

// No vector crosses a call: every helper is inlined into the exported functions.
#pragma GCC diagnostic ignored "-Wpsabi"

#ifndef FASTCONV_NN_VECTOR_BYTES
#define FASTCONV_NN_VECTOR_BYTES 32
#endif

namespace fastconv::nn::FASTCONV_NN_ISA {

template <class T>
struct VecOf {
  typedef T type __attribute__((vector_size(FASTCONV_NN_VECTOR_BYTES)));
};
template <class T>
using Vec = typename VecOf<T>::type;
template <class T>
inline constexpr std::size_t kLanes = FASTCONV_NN_VECTOR_BYTES / sizeof(T);

/// x in every lane (a broadcast; `Vec{} + x` would add 0 first).
template <class T>
[[gnu::always_inline]] inline Vec<T> splat(T x) {
  if constexpr (kLanes<T> == 16) return Vec<T>{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
  else if constexpr (kLanes<T> == 8) return Vec<T>{x, x, x, x, x, x, x, x};
  else return Vec<T>{x, x, x, x};
}

template <class T>
[[gnu::always_inline]] inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
[[gnu::always_inline]] inline void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace fastconv::nn::FASTCONV_NN_ISA
