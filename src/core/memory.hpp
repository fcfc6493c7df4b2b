// src/core/memory.hpp — how much memory this process may still use, and refusing work that
// would not fit instead of being killed for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "fastconv/memory.hpp"

namespace fastconv::detail {

/// Bytes this process can still allocate without swapping or hitting a limit: the smallest of
/// /proc/meminfo's MemAvailable, its cgroup's (v2 or v1) limit minus its usage and RLIMIT_AS minus
/// the address space in use (of those that are set). UINT64_MAX where none can be read.
[[nodiscard]] std::uint64_t available_memory_bytes();

/// "12.0 GiB", "512.0 MiB", "4.0 KiB", "17 bytes".
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

/// Requests smaller than this pass require_memory unchecked: reading /proc costs tens of µs.
inline constexpr std::uint64_t kMemoryCheckedFrom = std::uint64_t{32} << 20;

/// Called before a large allocation: throws an `out_of_memory` Error "<what> needs 12.0 GiB, 7.9 GiB
/// available" when `bytes` (from kMemoryCheckedFrom on) exceeds available_memory_bytes(), so that
/// work that cannot fit is refused rather than killed by the kernel's OOM killer half-way.
void require_memory(std::uint64_t bytes, std::string_view what);

/// The same for a device's memory: an `out_of_memory` Error "<what> needs 12.0 GiB, 7.9 GiB
/// available on <device>" when `bytes` exceeds `available` (checked at every size).
void require_device_memory(std::uint64_t bytes, std::uint64_t available, std::string_view device, std::string_view what);

/// require_memory for `count` elements of `element_bytes` each (the product checked for overflow).
void require_elements(std::uint64_t count, std::size_t element_bytes, std::string_view what);

/// The size of a transparent huge page on x86-64 and the alignment that lets one back a buffer.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Asks the kernel to back the whole 4 KiB pages inside [p, p + bytes) with huge pages where it
/// offers them (transparent huge pages in "madvise" mode). A fresh buffer faulted in 4 KiB at a
/// time costs more than one pass of a transform over it (2^28 words: 0.9 s against 0.8 s).
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

/// Uninitialised room for `count` words (fastconv::allocate_aligned).
template <class W>
std::unique_ptr<W[], FreeDeleter> allocate_words(std::size_t count) {
  return std::unique_ptr<W[], FreeDeleter>(static_cast<W*>(allocate_aligned(count * sizeof(W))));
}

}  // namespace fastconv::detail
