// src/core/memory.hpp — how much memory this process may still use, and refusing work that
// would not fit instead of being killed for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fastconv::detail {

/// Bytes this process can still allocate without swapping or hitting its cgroup limit: the
/// smaller of /proc/meminfo's MemAvailable and the cgroup (v2 or v1) limit minus its usage.
/// UINT64_MAX where neither can be read.
[[nodiscard]] std::uint64_t available_memory_bytes();

/// "12.0 GiB", "512.0 MiB", "4.0 KiB", "17 bytes".
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

/// Throws an `unsupported` Error "<what> needs 12.0 GiB, 7.9 GiB available" when `bytes` exceeds
/// available_memory_bytes().
void require_memory(std::uint64_t bytes, std::string_view what);

}  // namespace fastconv::detail
