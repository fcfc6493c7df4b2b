// src/nn/isa.hpp — the hot loops of src/nn compiled twice: for the baseline x86-64 and for
// AVX2+FMA, chosen at run time. The library is built without -march flags so that one binary
// runs everywhere; a body marked always_inline takes on the instruction set of its caller.
#pragma once

#include <cstdlib>
#include <cstring>

namespace fastconv::nn {

#if defined(__x86_64__) && defined(__GNUC__)
#define FASTCONV_NN_WIDE __attribute__((target("avx2,fma")))
/// Whether to run the AVX2+FMA copies: the CPU has them, and FASTCONV_CPU_ISA (the cpu
/// backend's choice of instruction set) does not name a narrower one (`portable`, `sse4`),
/// which is how the tests reach the baseline copies on an AVX2 machine.
inline bool has_avx2_fma() noexcept {
  static const bool yes = [] {
    const char* wanted = std::getenv("FASTCONV_CPU_ISA");
    const bool narrower = wanted && (std::strcmp(wanted, "portable") == 0 || std::strcmp(wanted, "sse4") == 0);
    return !narrower && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
}
#else
#define FASTCONV_NN_WIDE
inline bool has_avx2_fma() noexcept { return false; }
#endif

}  // namespace fastconv::nn

/// Defines `name_wide` (AVX2+FMA) and `name_base` and `name(...)` choosing between them; the
/// body is the always_inline function `body`.
#define FASTCONV_NN_DISPATCH(name, body)                                                  \
  template <class... A>                                                                  \
  FASTCONV_NN_WIDE void name##_wide(A... a) { body(a...); }                              \
  template <class... A>                                                                  \
  void name##_base(A... a) { body(a...); }                                               \
  template <class... A>                                                                  \
  void name(A... a) {                                                                    \
    if (::fastconv::nn::has_avx2_fma()) name##_wide(a...); else name##_base(a...);       \
  }
