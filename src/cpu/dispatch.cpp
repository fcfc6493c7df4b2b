#include <array>
#include <cstdlib>
#include <string_view>

#include "cpu/isa.hpp"

namespace fastconv::cpu {
namespace {

bool cpu_has_avx2() noexcept {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool cpu_has_avx512() noexcept {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && cpu_has_avx2();
}

struct Supported {
  std::array<const IsaKernels*, 3> isas{};
  std::size_t count = 0;
};

const Supported& supported() noexcept {
  static const Supported s = [] {
    Supported r;
    r.isas[r.count++] = &isa_baseline();
    if (cpu_has_avx2()) r.isas[r.count++] = &isa_avx2();
    if (cpu_has_avx512()) r.isas[r.count++] = &isa_avx512();
    return r;
  }();
  return s;
}

}  // namespace

std::span<const IsaKernels* const> supported_isas() noexcept {
  return {supported().isas.data(), supported().count};
}

const IsaKernels& best_isa() noexcept {
  static const IsaKernels& chosen = [] () -> const IsaKernels& {
    const auto isas = supported_isas();
    if (const char* wanted = std::getenv("FASTCONV_CPU_ISA")) {
      for (const IsaKernels* isa : isas)
        if (isa->name == wanted) return *isa;
    }
    return *isas.back();
  }();
  return chosen;
}

}  // namespace fastconv::cpu
