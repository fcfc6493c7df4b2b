// src/cpu/blocked_wht.hpp — the cpu backend's WHT algorithm, written once for every word
// type and compiled once per instruction set (included only by kernels_isa.cpp).
//
// Structure: the low bits of the index are transformed block by block, each block small
// enough to stay in cache while all its stages run (the "block pass"); the remaining high
// bits are transformed in "strip passes" that each take up to `strip_bits` bits at once on
// strips of `width` contiguous words per row, again sized to stay in cache. Within a pass,
// stages go two at a time (radix-4) and the innermost loop runs over contiguous words, so the
// compiler vectorises it for the instruction set of the translation unit.
//
// Everything here lives in a namespace named after FASTCONV_ISA, so the copies compiled for
// different instruction sets are different functions (one definition rule).
#pragma once

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstddef>

namespace fastconv::cpu::FASTCONV_ISA::blocked {

/// Bytes a block or strip pass keeps in cache.
inline constexpr std::size_t kCacheBytes = std::size_t{256} << 10;
/// Narrowest strip, in bytes: one cache line.
inline constexpr std::size_t kMinStripBytes = 64;
/// Below this many words per thread, threads cost more than they save.
inline constexpr std::size_t kMinWordsPerThread = std::size_t{1} << 15;

template <class W>
inline void radix2(W* __restrict a, W* __restrict b, std::size_t len) {
  for (std::size_t j = 0; j < len; ++j) {
    const W u = a[j], v = b[j];
    a[j] = u + v;
    b[j] = u - v;
  }
}

/// Two stages at once on rows a, b, c, d (offsets 0, h, 2h, 3h of the stage pair).
template <class W>
inline void radix4(W* __restrict a, W* __restrict b, W* __restrict c, W* __restrict d,
                   std::size_t len) {
  for (std::size_t j = 0; j < len; ++j) {
    const W s0 = a[j] + b[j], d0 = a[j] - b[j];
    const W s1 = c[j] + d[j], d1 = c[j] - d[j];
    a[j] = s0 + s1;
    b[j] = d0 + d1;
    c[j] = s0 - s1;
    d[j] = d0 - d1;
  }
}

/// The first three stages (h = 1, 2, 4): an 8-point WHT of each group of 8 words.
template <class W>
inline void radix8_groups(W* __restrict x, std::size_t n_words) {
  for (std::size_t i = 0; i < n_words; i += 8) {
    W* g = x + i;
    const W a0 = g[0] + g[1], a1 = g[0] - g[1], a2 = g[2] + g[3], a3 = g[2] - g[3];
    const W a4 = g[4] + g[5], a5 = g[4] - g[5], a6 = g[6] + g[7], a7 = g[6] - g[7];
    const W b0 = a0 + a2, b1 = a1 + a3, b2 = a0 - a2, b3 = a1 - a3;
    const W b4 = a4 + a6, b5 = a5 + a7, b6 = a4 - a6, b7 = a5 - a7;
    g[0] = b0 + b4; g[1] = b1 + b5; g[2] = b2 + b6; g[3] = b3 + b7;
    g[4] = b0 - b4; g[5] = b1 - b5; g[6] = b2 - b6; g[7] = b3 - b7;
  }
}

/// Stages over row bits: 2^rows_log2 rows of `width` contiguous words, `stride` words apart.
template <class W>
void strided_stages(W* x, std::size_t stride, int rows_log2, std::size_t width) {
  const std::size_t rows = std::size_t{1} << rows_log2;
  int s = 0;
  for (; s + 2 <= rows_log2; s += 2) {
    const std::size_t h = std::size_t{1} << s;
    for (std::size_t i = 0; i < rows; i += 4 * h)
      for (std::size_t r = i; r < i + h; ++r)
        radix4(x + r * stride, x + (r + h) * stride, x + (r + 2 * h) * stride,
               x + (r + 3 * h) * stride, width);
  }
  if (s < rows_log2) {
    const std::size_t h = std::size_t{1} << s;
    for (std::size_t i = 0; i < rows; i += 2 * h)
      for (std::size_t r = i; r < i + h; ++r) radix2(x + r * stride, x + (r + h) * stride, width);
  }
}

/// Stages s0 … m−1 of a contiguous block of 2^m words, two at a time: the inner loop runs over
/// the h = 2^s contiguous words of each butterfly group.
template <class W>
void contiguous_stages(W* x, int m, int s0) {
  const std::size_t n_words = std::size_t{1} << m;
  int s = s0;
  for (; s + 2 <= m; s += 2) {
    const std::size_t h = std::size_t{1} << s;
    for (std::size_t i = 0; i < n_words; i += 4 * h) radix4(x + i, x + i + h, x + i + 2 * h, x + i + 3 * h, h);
  }
  if (s < m) {
    const std::size_t h = std::size_t{1} << s;
    for (std::size_t i = 0; i < n_words; i += 2 * h) radix2(x + i, x + i + h, h);
  }
}

/// All stages of a contiguous block of 2^m words that fits in cache.
template <class W>
void block_transform(W* x, int m) {
  if (m < 3) {  // too short for the 8-point kernel
    contiguous_stages(x, m, 0);
    return;
  }
  radix8_groups(x, std::size_t{1} << m);
  contiguous_stages(x, m, 3);
}

template <class W>
constexpr int block_log2() {
  return std::bit_width(kCacheBytes / sizeof(W)) - 1;
}

inline int thread_count(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

/// Natural-order WHT of 2^log2n words in place, on up to `threads` threads.
template <class W>
void transform(W* x, int log2n, int threads) {
  const int b = block_log2<W>();
  if (log2n <= b) {
    block_transform(x, log2n);
    return;
  }
  const std::size_t n_words = std::size_t{1} << log2n;
  const int team = static_cast<int>(
      std::clamp<std::size_t>(n_words / kMinWordsPerThread, 1, thread_count(threads)));

  // Block pass: bits [0, b).
  const std::ptrdiff_t blocks = static_cast<std::ptrdiff_t>(n_words >> b);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::ptrdiff_t k = 0; k < blocks; ++k) block_transform(x + (k << b), b);

  // Strip passes over the remaining bits, as evenly split as the cache allows.
  const std::size_t min_width = std::max<std::size_t>(1, kMinStripBytes / sizeof(W));
  const int max_bits = std::bit_width(kCacheBytes / sizeof(W) / min_width) - 1;
  const int high = log2n - b;
  const int passes = (high + max_bits - 1) / max_bits;
  int lo = b;
  for (int p = 0; p < passes; ++p) {
    const int bits = (log2n - lo) / (passes - p) + ((log2n - lo) % (passes - p) != 0);
    const int hi = lo + bits;
    const std::size_t run = std::size_t{1} << lo;  // contiguous words below bit lo
    const std::size_t width =
        std::clamp<std::size_t>((kCacheBytes / sizeof(W)) >> bits, min_width, run);
    const std::size_t strips_per_group = run / width;
    const std::ptrdiff_t tasks = static_cast<std::ptrdiff_t>((n_words >> hi) * strips_per_group);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (std::ptrdiff_t t = 0; t < tasks; ++t) {
      const std::size_t group = static_cast<std::size_t>(t) / strips_per_group;
      const std::size_t strip = static_cast<std::size_t>(t) % strips_per_group;
      strided_stages(x + (group << hi) + strip * width, run, bits, width);
    }
    lo = hi;
  }
}

}  // namespace fastconv::cpu::FASTCONV_ISA::blocked
