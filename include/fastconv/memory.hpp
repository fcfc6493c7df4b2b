// fastconv/memory.hpp — memory laid out the way the kernels run fastest on.
//
// malloc, and so a large std::vector, often puts its data 16 bytes past a cache line: then
// half of the cpu kernels' vectors straddle two lines, which cost a transform of 2^11 … 2^24
// floats 1.2–1.5× the time on the AMD EPYC Zen 3 VM (docs/benchmarks.md). Memory from
// allocate_aligned, or an AlignedVector, starts on a line, and from 128 KiB on on a 2 MiB
// boundary with transparent huge pages asked for (madvise), where it is also right for the
// OpenCL backend's CPU devices to use in place.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

namespace fastconv {

/// Uninitialised memory for `bytes` (at least one byte's worth), to be released with
/// std::free: 128-byte aligned (two cache lines; the OpenCL CPU devices' base alignment), and
/// from 128 KiB on 2 MiB-aligned with transparent huge pages advised. Throws std::bad_alloc.
[[nodiscard]] void* allocate_aligned(std::size_t bytes);

/// A standard allocator over allocate_aligned, for containers the transforms work on.
template <class T>
struct AlignedAllocator {
  using value_type = T;

  AlignedAllocator() noexcept = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

  [[nodiscard]] T* allocate(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_aligned(count * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }

  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;  // stateless: any one frees what another allocated
  }
};

/// A std::vector whose data starts where the kernels want it (allocate_aligned).
template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace fastconv
