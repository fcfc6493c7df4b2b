// src/cpu/permute.hpp — a natural-order transform's words into Paley or sequency order, out of
// place, on this instruction set's vectors (included only by kernels_isa.cpp, once per
// instruction set).
//
// Paley coefficient k is natural coefficient bit_reverse(k); sequency coefficient k is Paley
// coefficient gray(k) = k ⊕ (k >> 1) (order.hpp). With L = 2^q lanes a vector and the index
// split k = (a, mid, b) into its top q bits, the m = n − 2q middle ones and the low q, the
// Paley words (a, mid, ·) are lane rev(a) of the natural vectors (rev(·), rev(mid)): for each
// mid, a tile of L vectors loaded from L rows, transposed in registers (q rounds of
// ConcatEven/ConcatOdd over register pairs; loading and storing the registers in bit-reversed
// order reverses both indices) and stored as L vectors of L rows. Sequency order is the same
// tile with each vector stored where the Gray map sends it, its lanes permuted: sequency
// vector v' is Paley vector gray(v') with lane l ← l ⊕ (l >> 1) ⊕ (v' & 1)·L/2. The tiles go
// in the order of the columns they read, so that each of the L rows is read straight through
// (the other way round, reading a new place in every row for each tile, took 2.6–4× as
// long beyond the caches). The stores land far apart; from kStreamedReorderBytes on they stream past the
// caches. (Tiled scalar permutations, run twice for sequency order, took 8–21× a copy of the
// array each; this takes 3–4× in cache, 1.2–1.9× beyond it: docs/benchmarks.md.)
#pragma once

#include <hwy/highway.h>
#include <hwy/cache_control.h>
#include <omp.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/order.hpp"

namespace fastconv::cpu::FASTCONV_ISA {

namespace hn = hwy::HWY_NAMESPACE;

/// out ← in in `order` (Paley or sequency), 2^n words of U (uint32_t or uint64_t: the bits of
/// any word of that size), in ≠ out, on a team of `threads` (0: OpenMP's default).
template <class U>
class Reorder {
  using D = hn::ScalableTag<U>;
  using V = hn::Vec<D>;
  static constexpr std::size_t L = hn::MaxLanes(D());
  static constexpr int q = std::countr_zero(L);

 public:
  static void run(const U* __restrict in, U* __restrict out, int n, Order order, int threads) {
    if constexpr (q > 0) {  // the scalar target has one lane, and no ConcatEven
      if (n >= 2 * q) {
        const bool sequency = order == Order::sequency;
        const bool stream = (sizeof(U) << n) >= kStreamedReorderBytes && reinterpret_cast<std::uintptr_t>(out) % (L * sizeof(U)) == 0;
        if (sequency) stream ? tiles<true, true>(in, out, n, threads) : tiles<true, false>(in, out, n, threads);
        else stream ? tiles<false, true>(in, out, n, threads) : tiles<false, false>(in, out, n, threads);
        return;
      }
    }
    for (std::size_t k = 0; k < (std::size_t{1} << n); ++k) out[k] = in[natural_index(k, n, order)];  // no tile fits
  }

 private:
  static constexpr std::size_t rev(std::size_t i) { return bit_reverse(i, q); }

  /// The prefix XOR of x from its top bit down: the inverse of gray().
  static constexpr std::size_t gray_inverse(std::size_t x) {
    for (int s = 1; s < 64; s <<= 1) x ^= x >> s;
    return x;
  }

  /// Lane l of sequency vector v' is lane l ⊕ (l >> 1) ⊕ (v' & 1)·L/2 of Paley vector gray(v').
  alignas(64) static constexpr std::array<std::array<hwy::MakeSigned<U>, L>, 2> kGrayLanes = [] {
    std::array<std::array<hwy::MakeSigned<U>, L>, 2> idx{};
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t l = 0; l < L; ++l) idx[p][l] = static_cast<hwy::MakeSigned<U>>(l ^ (l >> 1) ^ (p * L / 2));
    return idx;
  }();

  /// Every tile, in the order of the rows' columns read (t = rev(mid)): each of the L rows is
  /// read straight through; the stores go where the order sends them.
  template <bool kSequency, bool kStream>
  static void tiles(const U* __restrict in, U* __restrict out, int n, int threads) {
    const int m = n - 2 * q;
    const auto count = static_cast<std::ptrdiff_t>(std::size_t{1} << m);
    const int team = threads > 0 ? threads : omp_get_max_threads();
    if (team > 1 && n >= 16) {
#pragma omp parallel num_threads(team)
      {
#pragma omp for schedule(static)
        for (std::ptrdiff_t t = 0; t < count; ++t) tile<kSequency, kStream>(in, out, n, m, static_cast<std::size_t>(t));
        if constexpr (kStream) hwy::FlushStream();
      }
      return;
    }
    for (std::ptrdiff_t t = 0; t < count; ++t) tile<kSequency, kStream>(in, out, n, m, static_cast<std::size_t>(t));
    if constexpr (kStream) hwy::FlushStream();
  }

  template <bool kSequency, bool kStream>
  HWY_INLINE static void tile(const U* __restrict in, U* __restrict out, int n, int m, std::size_t t) {
    const D d;
    const int high = n - q;
    const std::size_t mid = bit_reverse(t, m);
    const U* src = in + (t << q);
    V r[L];  // the loops unrolled, so that r stays in registers
#pragma GCC unroll 16
    for (std::size_t s = 0; s < L; ++s) r[s] = hn::LoadU(d, src + (rev(s) << high));
#pragma GCC unroll 4
    for (std::size_t h = 1; h < L; h <<= 1) {
#pragma GCC unroll 16
      for (std::size_t a = 0; a < L; ++a) {
        if ((a & h) != 0) continue;
        const V lo = r[a], hi = r[a + h];
        r[a] = ConcatEven(d, hi, lo);  // unqualified: found (by ADL) only where instantiated
        r[a + h] = ConcatOdd(d, hi, lo);
      }
    }
#pragma GCC unroll 16
    for (std::size_t a = 0; a < L; ++a) {
      V row = r[rev(a)];
      std::size_t v = (a << m) | mid;  // the Paley vector
      if constexpr (kSequency) {  // → sequency vector gray⁻¹(v), its lanes permuted
        const std::size_t low = gray_inverse(mid) ^ ((std::popcount(a) & 1) != 0 ? (std::size_t{1} << m) - 1 : 0);
        v = (gray_inverse(a) << m) | low;
        row = hn::TableLookupLanes(row, hn::SetTableIndices(d, kGrayLanes[v & 1].data()));
      }
      if constexpr (kStream) hn::Stream(row, d, out + (v << q));
      else hn::StoreU(row, d, out + (v << q));
    }
  }
};

/// WordKernels::reorder: words of 4 and 8 bytes as the unsigned integers of their size; wider
/// ones (the 128-bit ring), which no vector holds, word by word.
template <class W>
void reorder(const W* in, W* out, int n, Order order, int threads) {
  if constexpr (sizeof(W) == 4 || sizeof(W) == 8) {
    using U = std::conditional_t<sizeof(W) == 4, std::uint32_t, std::uint64_t>;
    Reorder<U>::run(reinterpret_cast<const U*>(in), reinterpret_cast<U*>(out), n, order, threads);
  } else {
    for (std::size_t k = 0; k < (std::size_t{1} << n); ++k) out[k] = in[natural_index(k, n, order)];
  }
}

}  // namespace fastconv::cpu::FASTCONV_ISA
