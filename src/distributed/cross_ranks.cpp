#include "distributed/cross_ranks.hpp"

#include <cstdint>

namespace fastconv::distributed::detail {
namespace {

/// The 64 bits of k in reverse order, a byte at a time (the reordering calls it per element).
std::uint64_t reverse64(std::uint64_t k) noexcept {
  static const auto table = [] {
    std::array<std::uint8_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b) {
      unsigned r = 0;
      for (int i = 0; i < 8; ++i) r |= ((b >> i) & 1U) << (7 - i);
      t[b] = static_cast<std::uint8_t>(r);
    }
    return t;
  }();
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i, k >>= 8) r = (r << 8) | table[k & 0xff];
  return r;
}

std::size_t bit_reverse(std::size_t k, int bits) noexcept {
  return bits == 0 ? 0 : static_cast<std::size_t>(reverse64(k) >> (64 - bits));
}

}  // namespace

std::size_t natural_index(std::size_t k, int n, Order order) noexcept {
  switch (order) {
    case Order::hadamard: return k;
    case Order::sequency: return bit_reverse(k ^ (k >> 1), n);
    case Order::paley: return bit_reverse(k, n);
  }
  return k;
}

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
