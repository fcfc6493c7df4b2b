// One instruction set's copy of the cpu backend's kernels. Compiled several times with
// FASTCONV_ISA set to baseline, avx2 or avx512 and the matching -m flags (src/CMakeLists.txt).
#include <bit>
#include <cstdint>

#include "cpu/blocked_wht.hpp"
#include "cpu/isa.hpp"

#ifndef FASTCONV_ISA
#error "FASTCONV_ISA must name the instruction set this file is compiled for"
#endif

#define FASTCONV_CAT2(a, b) a##b
#define FASTCONV_CAT(a, b) FASTCONV_CAT2(a, b)
#define FASTCONV_STR2(a) #a
#define FASTCONV_STR(a) FASTCONV_STR2(a)

namespace fastconv::cpu {
namespace {
constexpr std::string_view describe(std::string_view isa) {
  return isa == "avx512" ? "AVX-512" : isa == "avx2" ? "AVX2+FMA" : "SSE2";
}
}  // namespace

const IsaKernels& FASTCONV_CAT(isa_, FASTCONV_ISA)() noexcept {
  static constexpr IsaKernels kernels{
      FASTCONV_STR(FASTCONV_ISA),
      describe(FASTCONV_STR(FASTCONV_ISA)),
      &FASTCONV_ISA::blocked::transform<float>,
      &FASTCONV_ISA::blocked::transform<double>,
      &FASTCONV_ISA::blocked::transform<std::uint32_t>,
      &FASTCONV_ISA::blocked::transform<std::uint64_t>,
      &FASTCONV_ISA::blocked::transform<detail::u128>,
  };
  return kernels;
}

}  // namespace fastconv::cpu
