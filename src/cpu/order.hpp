// src/cpu/order.hpp — output orders as index maps, shared by the CPU backends.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

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

/// How rows of 2^n words that a sweep holds whole in registers go into Paley or sequency
/// order there, before they are stored: the row in 2^p registers of L = 2^q lanes (n = p + q),
/// register r holding words r·L … r·L + L − 1. Round j (of p) pairs registers r and r ⊕ 2^j
/// and makes each of the two from lanes of both (a two-register lane selection, one
/// instruction on AVX-512): a butterfly network that moves every word one bit of its register
/// index closer to its output vector, and in the last round to its output lane. Rows no
/// longer than a register (p = 0) take one lane permutation instead, the same in every
/// register. (Indices as the instruction set's tables take them: signed words of a lane's size.)
template <std::size_t L, class Index, int kMaxRounds>
struct RowRoute {
  static_assert(std::has_single_bit(L), "lanes come in powers of two");
  static constexpr std::size_t kMaxRegisters = std::size_t{1} << kMaxRounds;

  Order order = Order::paley;
  int rounds = 0;
  /// Round j, register r, lane l: lane lanes[j][r][l] of r's pair {r with bit j clear, r with
  /// bit j set}, counting the first one's lanes 0 … L − 1 and the second one's L … 2L − 1.
  /// With rounds = 0, lanes[0][0] is the lane permutation (every index below L).
  alignas(64) Index lanes[kMaxRounds > 0 ? kMaxRounds : 1][kMaxRegisters][L];

  /// The route of rows of 2^n words into `order`; false where the rounds cannot route it:
  /// rows longer than kMaxRegisters registers, or a round that would send more than L of a
  /// pair's 2L words to one side (that never happens for p ≤ q; some orders need it beyond).
  bool make(int n, Order order) {
    constexpr int q = std::countr_zero(L);
    const int p = std::max(0, n - q);
    if (p > kMaxRounds) return false;
    this->order = order;
    rounds = p;
    const std::size_t words = std::size_t{1} << n;
    if (p == 0) {  // word l of a vector is word natural_index(l) of its row
      for (std::size_t l = 0; l < L; ++l)
        lanes[0][0][l] = static_cast<Index>((l & ~(words - 1)) | natural_index(l & (words - 1), n, order));
      return true;
    }
    // Natural coefficient e ends as output word k with natural_index(k) = e: register k / L, lane k mod L.
    std::vector<std::size_t> to(words), reg(words), lane(words);
    for (std::size_t k = 0; k < words; ++k) to[natural_index(k, n, order)] = k;
    for (std::size_t e = 0; e < words; ++e) {
      reg[e] = e / L;
      lane[e] = e % L;
    }
    for (int j = 0; j < p; ++j) {
      const std::size_t bit = std::size_t{1} << j;
      std::vector<std::size_t> filled(std::size_t{1} << p, 0);
      for (std::size_t e = 0; e < words; ++e) {
        const std::size_t r = (reg[e] & ~bit) | ((to[e] / L) & bit);
        const std::size_t l = j + 1 == p ? to[e] % L : filled[r];
        if (++filled[r] > L) return false;
        lanes[j][r][l] = static_cast<Index>(lane[e] + ((reg[e] & bit) != 0 ? L : 0));
        reg[e] = r;
        lane[e] = l;
      }
    }
    return true;
  }
};

}  // namespace fastconv::cpu
