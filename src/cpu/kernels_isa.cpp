// One instruction set's copy of the cpu backend's kernels. Compiled once per instruction set
// with FASTCONV_ISA naming it and the matching -m flags (src/CMakeLists.txt); Highway's static
// target is then the widest vector unit those flags enable, and the codelets' vectors that
// wide unless FASTCONV_CPU_VECTOR_BYTES caps them (codelets.hpp, VectorTag).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/passes.hpp"
#include "cpu/permute.hpp"

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
            &Pipeline<OpsFor<W>>::wht_rows, &Pipeline<OpsFor<W>>::orders_rows, &reorder<W>, &reorders_in_vectors<W>, &ordered_wht<W>, &Pipeline<OpsFor<W>>::wht_bounded};
  else
    return {&Pipeline<OpsFor<W>>::wht, &Pipeline<OpsFor<W>>::dyadic, &Pipeline<OpsFor<W>>::convolve,
            &Pipeline<OpsFor<W>>::wht_rows, &Pipeline<OpsFor<W>>::orders_rows, &reorder<W>, &reorders_in_vectors<W>, &ordered_wht<W>};
}

namespace hn = hwy::HWY_NAMESPACE;

/// From AVX2 on (whose flags here include F16C), Highway's float16 promotion and demotion are
/// vcvtph2ps and vcvtps2ph, which round to nearest even and keep a NaN's payload as
/// types.hpp does; before that, Highway 1.0.3 truncates, so those targets keep the plain loops.
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr bool kF16c = true;
#else
constexpr bool kF16c = false;
#endif

HWY_FLATTEN void widen_f16(const float16* from, float* to, std::size_t n) {
  std::size_t i = 0;
  if constexpr (kF16c) {
    const VectorTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const auto* h = reinterpret_cast<const hwy::float16_t*>(from);
    for (; i + hn::Lanes(df) <= n; i += hn::Lanes(df)) hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, h + i)), df, to + i);
  }
  for (; i < n; ++i) to[i] = static_cast<float>(from[i]);
}

HWY_FLATTEN void narrow_f16(const float* from, float16* to, std::size_t n) {
  std::size_t i = 0;
  if constexpr (kF16c) {
    const VectorTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    auto* h = reinterpret_cast<hwy::float16_t*>(to);
    for (; i + hn::Lanes(df) <= n; i += hn::Lanes(df)) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, from + i)), dh, h + i);
  }
  for (; i < n; ++i) to[i] = float16(from[i]);
}

// bfloat16: the plain loops of types.hpp vectorise on every target (shifts and adds).
// HWY_FLATTEN on all four: types.hpp's inline conversions are inlined here, compiled for this
// instruction set, never left as an out-of-line copy that the linker could share with
// baseline code.
HWY_FLATTEN void widen_bf16(const bfloat16* from, float* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = static_cast<float>(from[i]);
}

HWY_FLATTEN void narrow_bf16(const float* from, bfloat16* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = bfloat16(from[i]);
}

/// What `fastconv info` says of this copy's vectors: Highway's name for its target, and the
/// width where the copy is built narrower (avx2_128).
std::string_view description() {
#ifdef FASTCONV_CPU_VECTOR_BYTES
  static const std::string text = std::string(hwy::TargetName(HWY_TARGET)) + ", " +
                                  std::to_string(8 * FASTCONV_CPU_VECTOR_BYTES) + "-bit";
  return text;
#else
  return hwy::TargetName(HWY_TARGET);
#endif
}

/// Pipeline::wht16_rows and Pipeline::wht16 for H, where the codelets read and write 16-bit
/// floats; else null.
template <class H>
constexpr auto halves_rows() {
  using Rows = void (*)(H*, std::size_t, std::size_t, int, double, float*, const Geometry&, Order);
  if constexpr (SimdOps<float>::kHalves) return static_cast<Rows>(&Pipeline<SimdOps<float>>::wht16_rows<H>);
  else return static_cast<Rows>(nullptr);
}

template <class H>
constexpr auto halves_whole() {
  using Whole = void (*)(const H*, H*, float*, int, int, double, const Geometry&);
  if constexpr (SimdOps<float>::kHalves) return static_cast<Whole>(&Pipeline<SimdOps<float>>::wht16<H>);
  else return static_cast<Whole>(nullptr);
}

}  // namespace
}  // namespace FASTCONV_ISA

const IsaKernels& FASTCONV_CAT(isa_, FASTCONV_ISA)() noexcept {
  static const IsaKernels kernels{
      FASTCONV_STR(FASTCONV_ISA),
      FASTCONV_ISA::description(),
      FASTCONV_ISA::kernels_of<float>(),
      FASTCONV_ISA::kernels_of<double>(),
      FASTCONV_ISA::kernels_of<std::uint32_t>(),
      FASTCONV_ISA::kernels_of<std::uint64_t>(),
      FASTCONV_ISA::kernels_of<detail::u128>(),
      &FASTCONV_ISA::widen_f16,
      &FASTCONV_ISA::narrow_f16,
      &FASTCONV_ISA::widen_bf16,
      &FASTCONV_ISA::narrow_bf16,
      FASTCONV_ISA::halves_rows<float16>(),
      FASTCONV_ISA::halves_rows<bfloat16>(),
      FASTCONV_ISA::SimdOps<float>::kLanesLog2 + FASTCONV_ISA::SimdOps<float>::kRadixLog2,
      FASTCONV_ISA::halves_whole<float16>(),
      FASTCONV_ISA::halves_whole<bfloat16>(),
  };
  return kernels;
}

}  // namespace fastconv::cpu
