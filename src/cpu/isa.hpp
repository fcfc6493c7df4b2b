// src/cpu/isa.hpp — the cpu backend's kernels, one table per instruction set.
//
// src/cpu/kernels_isa.cpp is compiled once per instruction set (baseline SSE2, AVX2+FMA,
// AVX-512; see src/CMakeLists.txt) and each copy exports one IsaKernels table. The table for
// the running CPU is chosen once, at first use.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/backend_impl.hpp"

namespace fastconv::cpu {

/// Natural-order, unnormalised, in-place WHT of 2^log2n words on up to `threads` threads.
template <class W>
using WhtFn = void (*)(W* data, int log2n, int threads);

struct IsaKernels {
  std::string_view name;  ///< "baseline", "avx2", "avx512"
  std::string_view description;  ///< "SSE2", "AVX2+FMA", "AVX-512"
  WhtFn<float> wht_f32;
  WhtFn<double> wht_f64;
  WhtFn<std::uint32_t> wht_u32;
  WhtFn<std::uint64_t> wht_u64;
  WhtFn<detail::u128> wht_u128;

  template <class W>
  [[nodiscard]] WhtFn<W> wht() const noexcept {
    if constexpr (std::is_same_v<W, float>) return wht_f32;
    else if constexpr (std::is_same_v<W, double>) return wht_f64;
    else if constexpr (std::is_same_v<W, std::uint32_t>) return wht_u32;
    else if constexpr (std::is_same_v<W, std::uint64_t>) return wht_u64;
    else return wht_u128;
  }
};

const IsaKernels& isa_baseline() noexcept;
const IsaKernels& isa_avx2() noexcept;
const IsaKernels& isa_avx512() noexcept;

/// The instruction sets this CPU can run, slowest first.
std::span<const IsaKernels* const> supported_isas() noexcept;
/// The fastest supported table, or the one FASTCONV_CPU_ISA names (if supported).
const IsaKernels& best_isa() noexcept;

}  // namespace fastconv::cpu
