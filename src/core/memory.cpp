#include "core/memory.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <optional>

#include "fastconv/error.hpp"
#include "fastconv/memory.hpp"

namespace fastconv::detail {
namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();


/// The first number after `key` in the text file at `path`, or nothing.
std::optional<std::uint64_t> number_after(const std::filesystem::path& path, std::string_view key) {
  std::ifstream in(path);
  std::string word;
  while (in >> word)
    if (word == key) {
      std::uint64_t value = 0;
      if (in >> value) return value;
    }
  return std::nullopt;
}

std::optional<std::uint64_t> number_in(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;  // "max" (no limit) fails to parse
  return std::nullopt;
}

/// The memory limit of this process's cgroup less its usage, if it has a limit: v2 ("0::/path",
/// memory.max and memory.current) or v1 ("N:memory:/path", memory.limit_in_bytes and
/// memory.usage_in_bytes; "no limit" there is a huge number, which the minimum ignores).
std::optional<std::uint64_t> cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    std::optional<std::uint64_t> limit, used;
    if (line.rfind("0::", 0) == 0) {
      const std::filesystem::path dir = "/sys/fs/cgroup" + line.substr(3);
      limit = number_in(dir / "memory.max"), used = number_in(dir / "memory.current");
    } else if (const auto at = line.find(":memory:"); at != std::string::npos) {
      const std::filesystem::path dir = "/sys/fs/cgroup/memory" + line.substr(at + 8);
      limit = number_in(dir / "memory.limit_in_bytes"), used = number_in(dir / "memory.usage_in_bytes");
    }
    if (limit && used) return *limit > *used ? *limit - *used : 0;
  }
  return std::nullopt;
}

/// RLIMIT_AS − the address space in use (VmSize), if the limit is set.
std::optional<std::uint64_t> address_space_headroom() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const std::uint64_t used = number_after("/proc/self/status", "VmSize:").value_or(0) * 1024;
  return limit.rlim_cur > used ? limit.rlim_cur - used : 0;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  std::uint64_t available = number_after("/proc/meminfo", "MemAvailable:").value_or(kUnknown / 1024) * 1024;
  for (const auto headroom : {cgroup_headroom(), address_space_headroom()})
    if (headroom) available = std::min(available, *headroom);
  return available;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kPage = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void require_memory(std::uint64_t bytes, std::string_view what) {
  if (bytes < kMemoryCheckedFrom) return;
  const std::uint64_t available = available_memory_bytes();
  if (bytes > available)
    throw Error(ErrorCode::out_of_memory,
                std::string(what) + " needs " + format_bytes(bytes) + ", " + format_bytes(available) + " available");
}

void require_device_memory(std::uint64_t bytes, std::uint64_t available, std::string_view device, std::string_view what) {
  if (bytes > available)
    throw Error(ErrorCode::out_of_memory, std::string(what) + " needs " + format_bytes(bytes) + ", " +
                                              format_bytes(available) + " available on " + std::string(device));
}

void require_elements(std::uint64_t count, std::size_t element_bytes, std::string_view what) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / std::max<std::size_t>(element_bytes, 1);
  require_memory(count > limit ? std::numeric_limits<std::uint64_t>::max() : count * element_bytes, what);
}

}  // namespace fastconv::detail

namespace fastconv {

void* allocate_aligned(std::size_t bytes) {
  // From 128 KiB on glibc maps fresh pages anyway: whole huge pages cost nothing more.
  const bool big = bytes >= (std::size_t{128} << 10);
  const std::size_t alignment = big ? detail::kHugePageBytes : 128;
  bytes = std::max<std::size_t>(bytes, 1);
  if (bytes > std::numeric_limits<std::size_t>::max() - (alignment - 1)) throw std::bad_alloc();
  void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  if (big) detail::advise_huge_pages(p, bytes);
  return p;
}

}  // namespace fastconv
