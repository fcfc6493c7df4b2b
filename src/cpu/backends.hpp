// src/cpu/backends.hpp — constructors of the CPU backends, and a helper shared by backends.
#pragma once

#include <memory>

#include "core/backend_impl.hpp"

namespace fastconv::cpu {

struct IsaKernels;

std::shared_ptr<const detail::BackendImpl> make_reference_backend();
/// The cpu backend on the fastest instruction set this CPU has (or FASTCONV_CPU_ISA).
std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads);
/// The cpu backend on a given instruction set (tests exercise every supported one).
std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads, const IsaKernels& isa);

}  // namespace fastconv::cpu

namespace fastconv::detail {

/// new Kernel<W>(args...) for the C++ type W of `word`; `Wide` is the type that stands for the
/// 128-bit ring (a device backend may use its own struct).
template <template <class> class Kernel, class Base = WhtKernel, class Wide = u128, class... Args>
std::unique_ptr<Base> make_for_word(Word word, Args&&... args) {
  switch (word) {
    case Word::f32: return std::make_unique<Kernel<float>>(std::forward<Args>(args)...);
    case Word::f64: return std::make_unique<Kernel<double>>(std::forward<Args>(args)...);
    case Word::u32: return std::make_unique<Kernel<std::uint32_t>>(std::forward<Args>(args)...);
    case Word::u64: return std::make_unique<Kernel<std::uint64_t>>(std::forward<Args>(args)...);
    case Word::u128: return std::make_unique<Kernel<Wide>>(std::forward<Args>(args)...);
  }
  return nullptr;
}

}  // namespace fastconv::detail
