// src/cpu/order.hpp — output orders as index maps, shared by the CPU backends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastconv/wht.hpp"

namespace fastconv::cpu {

/// The low `bits` bits of k (bits ≤ 64) in reverse order: the 64-bit word reversed by swapping
/// ever larger halves, then shifted down (a constant number of steps: the distributed and
/// out-of-core reorderings call it for every element). Always inlined, here and below: the
/// kernel files use them too, compiled for wider instruction sets, and an out-of-line copy of
/// theirs could be the one the linker keeps for baseline code.
[[gnu::always_inline]] constexpr std::size_t bit_reverse(std::size_t k, int bits) noexcept {
  if (bits == 0) return 0;
  std::uint64_t v = k;
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  v = ((v >> 8) & 0x00FF00FF00FF00FFULL) | ((v & 0x00FF00FF00FF00FFULL) << 8);
  v = ((v >> 16) & 0x0000FFFF0000FFFFULL) | ((v & 0x0000FFFF0000FFFFULL) << 16);
  v = (v >> 32) | (v << 32);
  return static_cast<std::size_t>(v >> (64 - bits));
}
static_assert(bit_reverse(0b0011, 4) == 0b1100 && bit_reverse(0b1011, 5) == 0b11010 && bit_reverse(1, 64) == 1ULL << 63);

/// The natural (Hadamard) index of output coefficient k of an ordered transform of 2^bits points:
/// sequency k is Hadamard row bit_reverse(gray(k)), Paley k is Hadamard row bit_reverse(k).
[[gnu::always_inline]] constexpr std::size_t natural_index(std::size_t k, int bits, Order order) noexcept {
  switch (order) {
    case Order::hadamard: return k;
    case Order::sequency: return bit_reverse(k ^ (k >> 1), bits);
    case Order::paley: return bit_reverse(k, bits);
  }
  return k;
}

}  // namespace fastconv::cpu
