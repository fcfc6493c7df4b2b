// Which instruction-set copies of the kernels this CPU runs, which one is used, and the cache
// geometry the kernels block for.
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "cpu/isa.hpp"

namespace fastconv::cpu {

// One table per compiled instruction set (kernels_isa.cpp); which exist depends on the
// architecture and on FASTCONV_CPU_ISAS (src/CMakeLists.txt), which defines
// FASTCONV_CPU_ISA_<name> for each copy built.
const IsaKernels& isa_portable() noexcept;
const IsaKernels& isa_sse4() noexcept;
const IsaKernels& isa_avx2() noexcept;
const IsaKernels& isa_avx2_128() noexcept;
const IsaKernels& isa_avx512() noexcept;

namespace {

struct FamilyModel {
  unsigned family, model;
};

/// AMD's and Hygon's reading of a signature: the base family sits in bits 8-11 and the base
/// model in 4-7; for base family 15 the extended family (bits 20-27) adds to it and the
/// extended model (bits 16-19) goes on top.
FamilyModel family_model(std::uint32_t signature) noexcept {
  FamilyModel r{(signature >> 8) & 0xf, (signature >> 4) & 0xf};
  if (r.family == 0xf) {
    r.family += (signature >> 20) & 0xff;
    r.model |= ((signature >> 16) & 0xf) << 4;
  }
  return r;
}

#if defined(__x86_64__) || defined(__i386__)
/// F16C, read from CPUID leaf 1 (ECX bit 29): Clang's __builtin_cpu_supports does not know it.
bool has_f16c() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}

/// CPUID leaf 0's vendor string, e.g. "AuthenticAMD" (twelve zeros if the CPU does not say).
std::string_view vendor() noexcept {
  static const std::array<char, 12> name = [] {
    std::array<char, 12> r{};
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return r;
    std::memcpy(r.data(), &ebx, 4);  // the vendor string is EBX, EDX, ECX in that order
    std::memcpy(r.data() + 4, &edx, 4);
    std::memcpy(r.data() + 8, &ecx, 4);
    return r;
  }();
  return {name.data(), name.size()};
}

/// Whether the CPU is AMD's: where a second thread paid for arrays smaller than two blocks
/// (Geometry::of_this_cpu).
bool is_amd() noexcept { return vendor() == "AuthenticAMD"; }

/// Whether the CPU is Intel's: where direct sweeps across parts ran faster at radix 16 than at
/// the radix L1's ways allow (Geometry::of_this_cpu).
bool is_intel() noexcept { return vendor() == "GenuineIntel"; }

/// CPUID leaf 1's EAX, the processor's signature (0 if the CPU does not say).
std::uint32_t signature() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 ? eax : 0;
}
#else
bool is_amd() noexcept { return false; }
bool is_intel() noexcept { return false; }
#endif

struct Supported {
  std::array<const IsaKernels*, 5> isas{};
  std::size_t count = 0;
};

const Supported& supported() noexcept {
  static const Supported s = [] {
    Supported r;
    r.isas[r.count++] = &isa_portable();
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // [[maybe_unused]]: a build without some copies (FASTCONV_CPU_ISAS) does not ask.
    [[maybe_unused]] const bool sse4 = __builtin_cpu_supports("sse4.2");
    [[maybe_unused]] const bool avx2 = sse4 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                       __builtin_cpu_supports("bmi2") && has_f16c();
    [[maybe_unused]] const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                                         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                                         __builtin_cpu_supports("avx512vl");
#ifdef FASTCONV_CPU_ISA_sse4
    if (sse4) r.isas[r.count++] = &isa_sse4();
#endif
    // The two AVX2 copies in the order of their speed here (the fastest supported one is the
    // default): 256-bit vectors first only where the FP units are 128 bits wide.
    [[maybe_unused]] const bool narrow_units = avx2 && has_128bit_fp_units(vendor(), signature());
#ifdef FASTCONV_CPU_ISA_avx2_128
    if (avx2 && !narrow_units) r.isas[r.count++] = &isa_avx2_128();
#endif
#ifdef FASTCONV_CPU_ISA_avx2
    if (avx2) r.isas[r.count++] = &isa_avx2();
#endif
#ifdef FASTCONV_CPU_ISA_avx2_128
    if (narrow_units) r.isas[r.count++] = &isa_avx2_128();
#endif
#ifdef FASTCONV_CPU_ISA_avx512
    if (avx512) r.isas[r.count++] = &isa_avx512();
#endif
#endif
    return r;
  }();
  return s;
}

/// The L3 that CPU 0 sees, from Linux's sysfs: its bytes ("8192K") and how many CPUs share it
/// ("0-7,64-71"); {0, 1} where that is not there. (sysconf's L3 can be the whole package's:
/// 64 MiB on the first-Zen VM, whose two cores share 8 MiB.)
std::pair<std::size_t, std::size_t> l3_of_cpu0() {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index3/";
  std::ifstream size(dir + "size");
  std::size_t bytes = 0;
  char unit = 0;
  size >> bytes >> unit;
  bytes <<= unit == 'K' ? 10 : unit == 'M' ? 20 : 0;
  std::ifstream cpus(dir + "shared_cpu_list");
  std::size_t sharers = 0;
  for (std::size_t first = 0; cpus >> first;) {  // ranges "a" or "a-b", comma-separated
    std::size_t last = first;
    if (cpus.peek() == '-' && cpus.get() && !(cpus >> last)) break;
    if (last >= first) sharers += last - first + 1;
    if (cpus.peek() != ',') break;
    cpus.get();
  }
  if (bytes == 0 || sharers == 0) return {0, 1};
  return {bytes, sharers};
}

std::size_t cache_bytes(int name, std::size_t fallback) noexcept {
  const long bytes = sysconf(name);
  return bytes > 0 ? static_cast<std::size_t>(bytes) : fallback;
}

}  // namespace

bool has_128bit_fp_units(std::string_view vendor, std::uint32_t signature) noexcept {
  const auto [family, model] = family_model(signature);
  if (vendor == "AuthenticAMD") return family == 0x17 && model < 0x30;
  return vendor == "HygonGenuine" && family == 0x18;
}

bool gathers_huge_sweeps(std::string_view vendor, std::uint32_t signature) noexcept {
  return vendor == "AuthenticAMD" && family_model(signature).family >= 0x19;
}

std::span<const IsaKernels* const> supported_isas() noexcept {
  return {supported().isas.data(), supported().count};
}

std::vector<std::string> supported_isa_names() {
  std::vector<std::string> names;
  for (const IsaKernels* isa : supported_isas()) names.emplace_back(isa->name);
  return names;
}

const IsaKernels& best_isa() noexcept {
  static const IsaKernels& chosen = []() -> const IsaKernels& {
    const auto isas = supported_isas();
    if (const char* wanted = std::getenv("FASTCONV_CPU_ISA")) {
      for (const IsaKernels* isa : isas)
        if (isa->name == wanted) return *isa;
    }
    return *isas.back();
  }();
  return chosen;
}

const Geometry& Geometry::of_this_cpu() noexcept {
  static const Geometry g = [] {
#ifdef _SC_LEVEL1_DCACHE_SIZE
    const std::size_t l1 = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
    const std::size_t l1_ways = cache_bytes(_SC_LEVEL1_DCACHE_ASSOC, 8);
    const std::size_t l2 = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 512 << 10);
#else
    const std::size_t l1 = 32 << 10, l1_ways = 8, l2 = 512 << 10;
#endif
    Geometry r{};
    // Leaves of the largest power of two within two thirds of L1: 16 KiB on L1s of 32 KiB,
    // 32 KiB on the 48 KiB L1s of recent Intel cores. With 16 KiB leaves there, 2^15 doubles
    // and 2^16 floats took four stages across 16 leaves in two radix-4 sweeps in L2 (radix 8
    // at most, L1's ways); with 32 KiB leaves, one stage more in L1 and a radix-8 sweep in L2:
    // 1.28–1.29× faster on the Xeon VM of model 207, 2^12 doubles 1.04×, other sizes within
    // noise (docs/benchmarks.md).
    r.leaf_bytes = std::clamp<std::size_t>(std::bit_floor(l1 * 2 / 3), 8 << 10, 64 << 10);
    r.l1_ways = std::clamp<std::size_t>(std::bit_floor(l1_ways), 2, 64);
    r.l1_way_bytes = std::max<std::size_t>(std::bit_floor(l1 / r.l1_ways), 64);
    // Blocks of all of L2 up to 1 MiB (on L2s of 512 KiB and 1 MiB, all of L2 beat half of
    // it), and 1 MiB on larger ones: on the Intel Xeon VM with 2 MiB of L2, blocks of 1 MiB
    // took 2^19, 2^21 and 2^23 floats 1.07–1.23× faster than blocks of 2 MiB, and 2^18, 2^20
    // and 2^22 doubles 1.11–1.25× (docs/benchmarks.md).
    r.block_bytes = std::clamp<std::size_t>(l2, 128 << 10, 1 << 20);
    // Radix 16 for the direct sweeps across parts on Intel CPUs, however few L1's ways: those
    // rows stream from L3 or memory, where radix 8 can take one sweep more. On the Xeon
    // VM with a 12-way L1, 2^22 … 2^28 floats ran 1.04–1.21× faster so; on the Cascade Lake
    // VM (8 ways) radix 8 had measured slower there too, while on the AMD EPYC Zen 4 VM radix 8
    // took 4–12 % less (docs/benchmarks.md).
    // Not across the parts of arrays within L2, whose 16 rows collide in one L1 set as they
    // do but take no pass over the L3: on that VM a radix-16 sweep over 2 MiB there took
    // twice a radix-8 one (microbenchmark: 90 against 46 µs), and 2^18 doubles and 2^19
    // floats, whose top sweeps were such, ran 1.11× and 1.16× faster with radix 8 there.
    r.part_sweep_rows = is_intel() ? 16 : 0;
    r.l2_bytes = l2;
    // Sweeps across arrays of 512 MiB and more through a buffer where gathers_huge_sweeps()
    // says so (isa.hpp has the measurements), direct elsewhere.
#if defined(__x86_64__) || defined(__i386__)
    const bool gather = gathers_huge_sweeps(vendor(), signature());
#else
    const bool gather = false;
#endif
    r.gather_bytes = gather ? std::size_t{512} << 20 : std::numeric_limits<std::size_t>::max();
    // A second thread for arrays smaller than two blocks on AMD CPUs, and on Intel CPUs with
    // L2s of 2 MiB or more for shares from 256 KiB. On the AMD EPYC Zen 4 VM two threads took
    // 2^16, 2^17 and 2^18 floats in 0.62, 0.75 and 0.58 of one thread's time, the other core
    // pulling its half from the caller's L2; on the Cascade Lake Xeon VM (1 MiB L2),
    // 1.1–1.7× one thread's time at 2^15 … 2^18; on the Xeon VM with 2 MiB L2 and 16 KiB
    // leaves, 0.75–0.80× at 2^16 … 2^18 floats and 2^15 … 2^17 doubles, but 1.7× at 2^15
    // floats, shares of 64 KiB. Its 48 KiB L1 has 32 KiB leaves now, with which one thread
    // takes 256 KiB in one sweep across the leaves in L2: two threads sharing 2^16 floats and
    // 2^15 doubles then took 1.28× and 1.16× one thread's time (docs/benchmarks.md).
    r.min_share_bytes = is_amd() ? 0 : l2 >= (2 << 20) ? 256 << 10 : r.block_bytes;
    // Parts that a team's threads transform at once share half of their L3 (the other half
    // holds what the sweeps above them stream). On the first-Zen VM (8 MiB shared by both
    // cores) two threads on parts of 8 MiB each took 2^24 floats and 2^23 doubles 1.05–1.23×
    // longer than the team on each part in turn (docs/benchmarks.md).
    const auto [l3, sharers] = l3_of_cpu0();
    r.l3_budget_bytes = l3 / 2;
    r.l3_threads = sharers;
    // The next block prefetched during a block's sweeps in L2 where L2 holds half a block
    // more (L2 of two blocks or more), for arrays from a quarter of the L3 that sysfs gives:
    // a VM's share of a server's L3 is less than that. On the Xeon VM of model 207 (2 MiB L2,
    // 260 MiB L3) arrays of 64 MiB were read from the L3 (49 GB/s a pass), arrays of 128 MiB
    // from memory (27 GB/s); there floats at 2^25 … 2^27 ran 1.09–1.17× faster so and doubles
    // at 2^24 … 2^26 1.06–1.10×, while 2^21 … 2^24 floats, in the L3, took 1.00–1.02× longer
    // with the prefetch on at every size (docs/benchmarks.md).
    if (l2 >= 2 * r.block_bytes && l3 > 0) r.prefetch_from_bytes = l3 / 4;
    // Where L2 has no room for that (blocks of all of it), on AMD CPUs each leaf's first
    // sweep prefetches a page ahead instead, for arrays from the L3's size that sysfs gives.
    // On the AMD EPYC Zen 3 VM (512 KiB L2, 32 MiB L3) floats at 2^23 … 2^25 ran 1.07–1.17×
    // faster so and doubles at 2^22 … 2^25 up to 1.08×, while arrays in the L3 ran no faster
    // (2^18 … 2^22 floats 0.97–1.03×, best of many calls; docs/benchmarks.md).
    else if (is_amd() && l3 > 0) r.lead_from_bytes = l3;
    // The AVX-512 copy's first sweeps take the first in-vector stage by two duplicating loads
    // on Intel CPUs and by a load and a shuffle on AMD's (SimdOps::kChoosesPairLoads says why).
    r.lane_pair_loads = !is_amd();
    return r;
  }();
  return g;
}

}  // namespace fastconv::cpu
