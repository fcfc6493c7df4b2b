#include "analysis/anf.hpp"

#include <array>
#include <bit>
#include <cstddef>

namespace fastconv::analysis {
namespace {

// Bits j of a word with bit s of j set, for s = 1, 2, 4, 8, 16, 32.
constexpr std::array<std::uint64_t, 6> kHighHalf = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull,
                                                    0xF0F0F0F0F0F0F0F0ull, 0xFF00FF00FF00FF00ull,
                                                    0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};

// Bits j of a word with popcount(j) = k, k = 0 … 6.
constexpr std::array<std::uint64_t, 7> kWeightMasks = [] {
  std::array<std::uint64_t, 7> masks{};
  for (int j = 0; j < 64; ++j) masks[static_cast<std::size_t>(std::popcount(static_cast<unsigned>(j)))] |= std::uint64_t{1} << j;
  return masks;
}();

std::uint64_t moebius_in_word(std::uint64_t w, int stages) noexcept {
  for (int s = 0; s < stages; ++s) w ^= (w << (1 << s)) & kHighHalf[static_cast<std::size_t>(s)];
  return w;
}

// Word stages [first, last) on words[0, count): words[k | 2^j] ^= words[k], two stages per sweep.
void word_stages(std::uint64_t* words, std::size_t count, int first, int last) {
  int j = first;
  for (; j + 1 < last; j += 2) {
    const std::size_t h = std::size_t{1} << j;
#pragma omp parallel for schedule(static) if (count >= (std::size_t{1} << 16))
    for (std::size_t base = 0; base < count; base += 4 * h) {
      for (std::size_t k = base; k < base + h; ++k) {
        const std::uint64_t a = words[k], b = words[k + h] ^ a, c = words[k + 2 * h] ^ a;
        words[k + h] = b;
        words[k + 2 * h] = c;
        words[k + 3 * h] ^= b ^ c ^ a;  // d ⊕ a ⊕ b ⊕ c of the original four
      }
    }
  }
  if (j < last) {
    const std::size_t h = std::size_t{1} << j;
#pragma omp parallel for schedule(static) if (count >= (std::size_t{1} << 16))
    for (std::size_t base = 0; base < count; base += 2 * h)
      for (std::size_t k = base; k < base + h; ++k) words[k + h] ^= words[k];
  }
}

}  // namespace

void moebius_transform(std::span<std::uint64_t> words, int n) {
  const int in_word = n < 6 ? n : 6;
  const std::size_t count = words_for(n);
  std::uint64_t* w = words.data();
  // Blocks of 2^12 words (32 KiB, in L1/L2) first take every stage that stays inside them.
  constexpr int kBlockLog2 = 12;
  const int cross = n > 6 ? n - 6 : 0;
  const int local = cross < kBlockLog2 ? cross : kBlockLog2;
  const std::size_t block = std::size_t{1} << local;
#pragma omp parallel for schedule(static) if (count >= (std::size_t{1} << 16))
  for (std::size_t b = 0; b < count; b += block) {
    for (std::size_t k = b; k < b + block; ++k) w[k] = moebius_in_word(w[k], in_word);
    word_stages(w + b, block, 0, local);
  }
  word_stages(w, count, local, cross);
}

int max_set_weight(std::span<const std::uint64_t> words, int n) {
  const std::size_t count = words_for(n);
  int best = -1;
#pragma omp parallel for reduction(max : best) schedule(static) if (count >= (std::size_t{1} << 16))
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t w = words[i];
    if (w == 0) continue;
    int k = 6;
    while ((w & kWeightMasks[static_cast<std::size_t>(k)]) == 0) --k;
    const int weight = std::popcount(i) + k;
    if (weight > best) best = weight;
  }
  return best;
}

}  // namespace fastconv::analysis
