// src/nn/isa.hpp — which copy of src/nn's hot loops to run. The files nn/*_isa.cpp are compiled
// for the baseline and, on x86-64, for AVX2+FMA (src/CMakeLists.txt); the library is built
// without -march flags so that one binary runs everywhere.
#pragma once

#include <cstdlib>
#include <cstring>

namespace fastconv::nn {

#if defined(__x86_64__) && defined(__GNUC__)
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
inline bool has_avx2_fma() noexcept { return false; }
#endif

}  // namespace fastconv::nn
