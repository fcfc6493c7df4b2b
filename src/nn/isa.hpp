// src/nn/isa.hpp — the hot loops of src/nn compiled twice: for the baseline x86-64 and for
// AVX2+FMA, chosen at run time. The library is built without -march flags so that one binary
// runs everywhere; a body marked always_inline takes on the instruction set of its caller.
#pragma once

namespace fastconv::nn {

#if defined(__x86_64__) && defined(__GNUC__)
#define FASTCONV_NN_WIDE __attribute__((target("avx2,fma")))
inline bool has_avx2_fma() noexcept {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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
