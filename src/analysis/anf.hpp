// src/analysis/anf.hpp — algebraic normal forms of packed truth tables (shared by the Boolean
// function and S-box analyses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fastconv::analysis {

/// 64-bit words holding 2^n bits (one word for n < 6).
constexpr std::size_t words_for(int n) noexcept { return n < 6 ? 1 : std::size_t{1} << (n - 6); }

/// In place: the binary Möbius transform of a truth table of 2^n bits packed in words_for(n)
/// words (bit x % 64 of word x / 64). It maps a truth table to its ANF coefficients and back.
void moebius_transform(std::span<std::uint64_t> words, int n);

/// The largest popcount(u) over the set bits u of a packed table of 2^n bits; −1 if none is set.
/// On an ANF this is the algebraic degree.
[[nodiscard]] int max_set_weight(std::span<const std::uint64_t> words, int n);

}  // namespace fastconv::analysis
