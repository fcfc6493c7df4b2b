#include "core/memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>

#include "fastconv/error.hpp"

namespace fastconv::detail {
namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

/// The first number in a file ("max" and unreadable files: kUnknown).
std::uint64_t read_number(const char* path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return kUnknown;
}

std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return kUnknown;
}

/// The cgroup's limit minus its usage (v2, then v1); kUnknown without a limit.
std::uint64_t cgroup_available() {
  for (const auto& [limit_path, usage_path] :
       {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
        std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
    const std::uint64_t limit = read_number(limit_path);
    if (limit == kUnknown || limit >= (std::uint64_t{1} << 62)) continue;  // no limit ("max", or v1's huge value)
    const std::uint64_t usage = read_number(usage_path);
    return usage == kUnknown || usage >= limit ? (usage == kUnknown ? limit : 0) : limit - usage;
  }
  return kUnknown;
}

}  // namespace

std::uint64_t available_memory_bytes() { return std::min(meminfo_available(), cgroup_available()); }

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
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

void* allocate_bytes(std::size_t bytes) {
  const bool big = bytes >= (std::size_t{128} << 10);
  const std::size_t alignment = big ? kHugePageBytes : 64;
  void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  if (big) advise_huge_pages(p, bytes);
  return p;
}

void require_memory(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t available = available_memory_bytes();
  if (bytes > available)
    throw Error(ErrorCode::unsupported,
                std::string(what) + " needs " + format_bytes(bytes) + ", " + format_bytes(available) + " available");
}

}  // namespace fastconv::detail
