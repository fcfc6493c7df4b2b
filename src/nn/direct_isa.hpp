// src/nn/direct_isa.hpp — the register-blocked tiles of conv2d's `direct` (direct_isa.cpp),
// compiled once per instruction set (src/CMakeLists.txt); direct.cpp picks one at run time.
#pragma once

#include <cstddef>

namespace fastconv::nn {

/// Where a band of output rows reads and writes, and the sizes its tiles share.
template <class T>
struct DirectRows {
  const T* image;         ///< the input rows of a band of output rows, padded: channel 0, row 0
  std::size_t plane;      ///< values per channel of `image`
  std::size_t stride;     ///< Wp: values per padded row
  std::size_t channels, kernel_height, kernel_width;
  std::size_t out_width, out_plane;  ///< Ow, Oh·Ow
  /// Channels summed per pass over a row (≥ 1): few enough that their Kh input rows stay in L1.
  std::size_t channel_block;
};

/// Filters per register tile: the weights are packed in blocks of this many (the last block
/// holds the rest), each block as [C][Kh][Kw][filters of the block].
inline constexpr std::size_t kDirectFilterBlock = 4;

// `count` output rows of one image for every filter: output row i of filter k (i < count) at
// out + k·out_plane + i·out_width, from input rows i … i + Kh − 1 of every channel of
// rows.image. `packed`: the packed weights; `bias`: K values. Rows are read up to
// kDirectOverread values past their end, so the last row of rows.image needs that much
// readable memory after it.
#define FASTCONV_NN_DIRECT_DECLARE(isa)                                                                   \
  namespace isa_##isa {                                                                                \
  void band(const DirectRows<float>& rows, std::size_t filters, const float* packed, const float* bias,   \
            float* out, std::size_t count);                                                               \
  void band(const DirectRows<double>& rows, std::size_t filters, const double* packed, const double* bias, \
            double* out, std::size_t count);                                                              \
  }
FASTCONV_NN_DIRECT_DECLARE(base)
#if defined(__x86_64__)
FASTCONV_NN_DIRECT_DECLARE(avx2)
FASTCONV_NN_DIRECT_DECLARE(avx512)
#endif
#undef FASTCONV_NN_DIRECT_DECLARE

/// Values past the end of rows.image's last row that band() may read (and ignore): a vector of
/// the widest copy.
template <class T>
inline constexpr std::size_t kDirectOverread = 64 / sizeof(T);

}  // namespace fastconv::nn
