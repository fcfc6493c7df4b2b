// One instruction set's copy of the cpu backend's kernels. Compiled once per instruction set
// with FASTCONV_ISA naming it and the matching -m flags (src/CMakeLists.txt); Highway's static
// target is then the widest vector unit those flags enable.
#include <cstdint>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/passes.hpp"

#ifndef FASTCONV_ISA
#error "FASTCONV_ISA must name the instruction set this file is compiled for"
#endif

#define FASTCONV_CAT2(a, b) a##b
#define FASTCONV_CAT(a, b) FASTCONV_CAT2(a, b)
#define FASTCONV_STR2(a) #a
#define FASTCONV_STR(a) FASTCONV_STR2(a)

namespace fastconv::cpu {
namespace FASTCONV_ISA {
namespace {

template <class W>
constexpr WordKernels<W> kernels_of() {
  if constexpr (std::is_same_v<W, std::uint32_t> || std::is_same_v<W, std::uint64_t>)
    return {&Pipeline<OpsFor<W>>::wht, &Pipeline<OpsFor<W>>::dyadic, &Pipeline<OpsFor<W>>::convolve,
            &Pipeline<OpsFor<W>>::wht_rows, &Pipeline<OpsFor<W>>::wht_bounded};
  else
    return {&Pipeline<OpsFor<W>>::wht, &Pipeline<OpsFor<W>>::dyadic, &Pipeline<OpsFor<W>>::convolve,
            &Pipeline<OpsFor<W>>::wht_rows};
}

}  // namespace
}  // namespace FASTCONV_ISA

const IsaKernels& FASTCONV_CAT(isa_, FASTCONV_ISA)() noexcept {
  static const IsaKernels kernels{
      FASTCONV_STR(FASTCONV_ISA),
      hwy::TargetName(HWY_TARGET),
      FASTCONV_ISA::kernels_of<float>(),
      FASTCONV_ISA::kernels_of<double>(),
      FASTCONV_ISA::kernels_of<std::uint32_t>(),
      FASTCONV_ISA::kernels_of<std::uint64_t>(),
      FASTCONV_ISA::kernels_of<detail::u128>(),
  };
  return kernels;
}

}  // namespace fastconv::cpu
