// src/cpu/order.hpp — output orders as index maps, shared by the CPU backends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastconv/wht.hpp"

namespace fastconv::cpu {

/// The low `bits` bits of k (bits ≤ 64) in reverse order: the 64-bit word reversed by swapping
/// ever larger halves, then shifted down (a constant number of steps: the distributed and
/// out-of-core reorderings call it for every element).
constexpr std::size_t bit_reverse(std::size_t k, int bits) noexcept {
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

/// f(t) for t < count, on a team of `threads` (statically shared), or in a plain loop for one
/// thread: an OpenMP region costs even when its `if` keeps it on one thread, and a batch's
/// rows with gaps between them are reordered one by one (with a region in each permutation,
/// rows of 2 floats in sequency order took about 600 ns a row).
template <class F>
void for_tiles(std::ptrdiff_t count, int threads, F&& f) {
  if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t t = 0; t < count; ++t) f(t);
  } else {
    for (std::ptrdiff_t t = 0; t < count; ++t) f(t);
  }
}

/// out[k] = in[bit_reverse(k, n)] for k < 2^n (in ≠ out): the Paley order of a natural-order
/// transform. Tiles of 2^q × 2^q words go through a small local buffer, so that both arrays
/// are read and written in runs of 128 bytes: a word-by-word bit reversal touches a new
/// cache line (and, beyond a few MiB, a new page) with every access.
template <class W>
void bit_reverse_permute(const W* __restrict in, W* __restrict out, int n, int threads = 1) {
  constexpr int q = sizeof(W) >= 16 ? 3 : sizeof(W) == 8 ? 4 : 5;  // 2^q words = 128 bytes
  constexpr std::size_t Q = std::size_t{1} << q;
  if (n < 2 * q) {
    for (std::size_t k = 0; k < (std::size_t{1} << n); ++k) out[k] = in[bit_reverse(k, n)];
    return;
  }
  std::size_t rev[Q];
  for (std::size_t i = 0; i < Q; ++i) rev[i] = bit_reverse(i, q);
  const int m = n - 2 * q;  // the middle bits
  const int high = n - q;   // where the top q bits start
  const auto mids = static_cast<std::ptrdiff_t>(std::size_t{1} << m);
  auto tile_at = [&](std::ptrdiff_t t) {
    const auto mid = static_cast<std::size_t>(t);
    const std::size_t rmid = bit_reverse(mid, m);
    if (t + 1 < mids) {  // the next tile's rows sit far apart: no hardware prefetch
      const std::size_t next = bit_reverse(mid + 1, m) << q;
      for (std::size_t i = 0; i < Q; ++i)
        for (std::size_t byte = 0; byte < Q * sizeof(W); byte += 64)
          __builtin_prefetch(reinterpret_cast<const char*>(in + (i << high) + next) + byte);
    }
    // k = (a, mid, b) reads from (rev b, rev mid, rev a).
    W tile[Q][Q];
    for (std::size_t i = 0; i < Q; ++i) {
      const W* src = in + (i << high) + (rmid << q);
      for (std::size_t j = 0; j < Q; ++j) tile[rev[j]][rev[i]] = src[j];
    }
    for (std::size_t a = 0; a < Q; ++a) {
      W* dst = out + (a << high) + (mid << q);
      for (std::size_t b = 0; b < Q; ++b) dst[b] = tile[a][b];
    }
  };
  for_tiles(mids, threads > 1 && n >= 16 ? threads : 1, tile_at);
}

/// out[k] = in[k ⊕ (k >> 1)] for k < 2^n (in ≠ out): Paley order to sequency order. Block H of
/// 2^b words comes from block gray(H), permuted inside it, so the gather stays in L1.
template <class W>
void gray_permute(const W* __restrict in, W* __restrict out, int n, int threads = 1) {
  const int b = n < 12 ? n : 12;
  const std::size_t block = std::size_t{1} << b;
  const auto blocks = static_cast<std::ptrdiff_t>(std::size_t{1} << (n - b));
  for_tiles(blocks, threads > 1 && n >= 16 ? threads : 1, [&](std::ptrdiff_t t) {
    const auto h = static_cast<std::size_t>(t);
    const W* src = in + ((h ^ (h >> 1)) << b);
    const std::size_t carry = b > 0 ? (h & 1) << (b - 1) : 0;
    W* dst = out + (h << b);
    for (std::size_t l = 0; l < block; ++l) dst[l] = src[l ^ (l >> 1) ^ carry];
  });
}

}  // namespace fastconv::cpu
