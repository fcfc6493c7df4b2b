// src/cpu/order.hpp — output orders as index maps, shared by the CPU backends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastconv/wht.hpp"

namespace fastconv::cpu {

/// The low `bits` bits of k in reverse order.
constexpr std::size_t bit_reverse(std::size_t k, int bits) noexcept {
  std::size_t r = 0;
  for (int i = 0; i < bits; ++i, k >>= 1) r = (r << 1) | (k & 1);
  return r;
}

/// The natural (Hadamard) index of output coefficient k of an ordered transform of 2^bits points:
/// sequency k is Hadamard row bit_reverse(gray(k)), Paley k is Hadamard row bit_reverse(k).
constexpr std::size_t natural_index(std::size_t k, int bits, Order order) noexcept {
  switch (order) {
    case Order::hadamard: return k;
    case Order::sequency: return bit_reverse(k ^ (k >> 1), bits);
    case Order::paley: return bit_reverse(k, bits);
  }
  return k;
}

}  // namespace fastconv::cpu

namespace fastconv::cpu {

/// Calls visit(k, natural_index(k, bits, order)) for k = 0 … 2^bits − 1, in O(1) amortised
/// time per call: consecutive Gray codes differ in one bit, and a bit-reversed counter
/// increments from the top bit down.
template <class Visit>
void for_each_natural_index(int bits, Order order, Visit&& visit) {
  const std::size_t size = std::size_t{1} << bits;
  std::size_t idx = 0;
  for (std::size_t k = 0; k < size; ++k) {
    visit(k, order == Order::hadamard ? k : idx);
    if (k + 1 == size) break;
    if (order == Order::sequency) {
      idx ^= (size >> 1) >> __builtin_ctzll(k + 1);
    } else {  // paley: add one to the reversed counter
      std::size_t bit = size >> 1;
      while (idx & bit) {
        idx ^= bit;
        bit >>= 1;
      }
      idx |= bit;
    }
  }
}

}  // namespace fastconv::cpu
