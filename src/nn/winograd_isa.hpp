// src/nn/winograd_isa.hpp — the inner loops of conv2d's `winograd` (winograd_isa.cpp),
// compiled once per instruction set (src/CMakeLists.txt); winograd.cpp plans and picks one.
#pragma once

#include <cstddef>

namespace fastconv::nn {

/// What the tiles of every group read and write. Tiles are numbered over images, tile rows and
/// tiles in a row: tile t covers output rows 4·ti … 4·ti + 3 and columns 4·tj … 4·tj + 3.
template <class T>
struct WinogradTiles {
  const T* input;  ///< N·C·H·W
  T* output;       ///< N·K·Oh·Ow
  /// U = G·w·Gᵀ per block of kWinogradFilterBlock filters, each block as [36][C][filter of the
  /// block], zeros for the filters past K.
  const T* filters;
  const T* bias;  ///< K values rounded up to the block (zeros without a bias)
  std::size_t channels, filter_count;
  std::size_t height, width, pad_top, pad_left;
  std::size_t out_height, out_width, tiles_high, tiles_wide;
};

inline constexpr std::size_t kWinogradFilterBlock = 4;

/// The sizes a group of tiles works in: one register tile of the channel sum covers
/// kWinogradFilterBlock filters × 3 vectors of tiles, and a group is those 3 vectors.
template <class T>
struct WinogradScratch {
  static constexpr std::size_t lanes = 32 / sizeof(T);
  static constexpr std::size_t group = 3 * lanes;       ///< tiles per group
  static constexpr std::size_t stride = group + lanes;  ///< values per row of V and M: a vector of slack
  static constexpr std::size_t row = 4 * stride + 2;    ///< one input row of a tile row, padded
  /// Values from one tile element's C rows of V to the next's: a cache line more than the rows,
  /// so that the 36 stores of a tile vector do not all fall into one L1 set when C·stride
  /// values are a multiple of 4 KiB.
  static constexpr std::size_t panel(std::size_t channels) { return channels * stride + 64 / sizeof(T); }
  /// Values of scratch one thread needs: V (36 panels), M of one block (36·block rows), 6
  /// input rows.
  static constexpr std::size_t values(std::size_t channels) {
    return 36 * (panel(channels) + kWinogradFilterBlock * stride) + 6 * row;
  }
};

// The outputs of tiles [first, first + count), count ≤ WinogradScratch<T>::group, every filter:
// input transforms V = Bᵀ·d·B, the channel sums M = U·V per tile element, output transforms
// Aᵀ·M·A + bias. `scratch`: WinogradScratch<T>::values(channels) values of the caller's.
#define FASTCONV_NN_WINOGRAD_DECLARE(isa)                                                                     \
  namespace isa_##isa {                                                                                       \
  void winograd_group(const WinogradTiles<float>& tiles, std::size_t first, std::size_t count, float* scratch);  \
  void winograd_group(const WinogradTiles<double>& tiles, std::size_t first, std::size_t count,                 \
                      double* scratch);                                                                        \
  }
FASTCONV_NN_WINOGRAD_DECLARE(base)
#if defined(__x86_64__)
FASTCONV_NN_WINOGRAD_DECLARE(avx2)
#endif
#undef FASTCONV_NN_WINOGRAD_DECLARE

}  // namespace fastconv::nn
