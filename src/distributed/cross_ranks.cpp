#include "distributed/cross_ranks.hpp"

#include <cstdint>

#include "cpu/order.hpp"

namespace fastconv::distributed::detail {
using cpu::bit_reverse;

std::size_t ordered_index(std::size_t s, int n, Order order) noexcept {
  if (order == Order::hadamard) return s;
  std::size_t k = bit_reverse(s, n);
  if (order == Order::sequency)  // invert gray(k) = k ⊕ (k >> 1): a prefix XOR from the top
    for (int shift = 1; shift < 64; shift <<= 1) k ^= k >> shift;
  return k;
}

std::size_t low_bits_from(std::size_t q, int log2p, std::size_t above, Order order) noexcept {
  const std::size_t target = bit_reverse(q, log2p);
  if (order != Order::sequency) return target;
  std::size_t low = 0;
  for (int i = log2p - 1; i >= 0; --i) {
    const std::size_t bit = ((target >> i) & 1) ^ above;
    low |= bit << i;
    above = bit;
  }
  return low;
}

}  // namespace fastconv::distributed::detail
