// src/nn/isa.hpp — which copy of src/nn's hot loops to run. The files nn/*_isa.cpp are compiled
// for the baseline and, on x86-64, for AVX2+FMA and (direct_isa.cpp, spectral_isa.cpp) AVX-512
// where the cpu kernels' copies that choose them are built (src/CMakeLists.txt; the dispatchers
// test FASTCONV_NN_HAVE_avx2 and FASTCONV_NN_HAVE_avx512); the library is built without -march
// flags so that one binary runs everywhere.
#pragma once

#include <string_view>

#include "cpu/isa.hpp"

namespace fastconv::nn {

#if defined(__x86_64__) && defined(__GNUC__)
/// Whether to run the AVX2+FMA copies: the cpu backend's choice of instruction set
/// (cpu::best_isa(): the fastest this CPU has, or the one FASTCONV_CPU_ISA names) is AVX2 or
/// wider. FASTCONV_CPU_ISA=portable is how the tests reach the baseline copies on an AVX2 CPU.
inline bool has_avx2_fma() noexcept {
  static const bool yes = [] {
    const std::string_view chosen = cpu::best_isa().name;
    return (chosen == "avx2" || chosen == "avx2_128" || chosen == "avx512") && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("fma");
  }();
  return yes;
}
/// Whether to run the AVX-512 copies (direct and the FFT algorithms' channel sum): the cpu
/// backend chose its avx512 variant.
inline bool has_avx512() noexcept {
  static const bool yes = cpu::best_isa().name == "avx512" && __builtin_cpu_supports("avx512f") && has_avx2_fma();
  return yes;
}
#else
inline bool has_avx2_fma() noexcept { return false; }
inline bool has_avx512() noexcept { return false; }
#endif

}  // namespace fastconv::nn
