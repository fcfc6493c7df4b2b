// src/nn/direct.cpp — the convolution as its sum, two ways.
//
// Direct (the cpu backend's `direct`): the weights packed for the register tiles of
// direct_isa.cpp; threads take (image, band of output rows), and copy each band's input rows,
// padding included, into a buffer of their own that stays in cache.
//
// DirectReference (the reference backend's): the plain loops, one output plane per task, the
// innermost loop along an output row and an input row.
#include <algorithm>
#include <vector>

#include "nn/direct_isa.hpp"
#include "nn/isa.hpp"
#include "nn/kernels.hpp"

namespace fastconv::nn {

namespace {

// ---------------------------------------------------------------------------------------------
// The register-blocked kernel

/// The tiles of this CPU's instruction set (direct_isa.cpp).
template <class T>
void direct_band(const DirectRows<T>& rows, std::size_t filters, const T* packed, const T* bias, T* out,
                 std::size_t count) {
#if defined(FASTCONV_NN_HAVE_avx512)
  if (has_avx512()) return isa_avx512::band(rows, filters, packed, bias, out, count);
#endif
#if defined(FASTCONV_NN_HAVE_avx2)
  if (has_avx2_fma()) return isa_avx2::band(rows, filters, packed, bias, out, count);
#endif
  isa_base::band(rows, filters, packed, bias, out, count);
}

template <class T>
class Direct final : public Conv2dKernel<T> {
 public:
  explicit Direct(const KernelArgs<T>& a) : shape_(a.shape), threads_(a.threads) {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, taps = s.channels * s.kernel_height * s.kernel_width;
    // Each block of filters as [C][Kh][Kw][filters of the block], the blocks in filter order.
    packed_.resize(K * taps);
    for (std::size_t k0 = 0; k0 < K; k0 += kDirectFilterBlock) {
      const std::size_t kb = std::min(kDirectFilterBlock, K - k0);
      for (std::size_t t = 0; t < taps; ++t)
        for (std::size_t k = 0; k < kb; ++k) packed_[k0 * taps + t * kb + k] = a.weights[(k0 + k) * taps + t];
    }
    bias_.assign(K, T(0));
    std::copy(a.bias.begin(), a.bias.end(), bias_.begin());
    // Bands of output rows: enough tasks to keep the threads busy, and few enough rows that a
    // band's padded input (C·(rows + Kh − 1)·Wp values) stays within about half of L2 while
    // every filter block passes over it.
    const std::size_t Oh = s.out_height(), Wp = s.width + s.padding.left + s.padding.right;
    const std::size_t row_bytes = s.channels * Wp * sizeof(T);
    const std::size_t fit = (std::size_t{256} << 10) / row_bytes;
    const std::size_t want = std::max<std::size_t>(1, 8 * static_cast<std::size_t>(threads_) / s.batch);
    const std::size_t fitting_band = fit > s.kernel_height ? fit - s.kernel_height + 1 : 1;
    band_ = std::clamp<std::size_t>(std::min((Oh + want - 1) / want, fitting_band), 1, 16);
    band_values_ = s.channels * (band_ + s.kernel_height - 1) * Wp + kDirectOverread<T>;
    // Channel blocks of equal size whose Kh input rows take at most 16 KiB (half of a 32 KiB L1).
    const std::size_t block_rows =
        std::max<std::size_t>(1, (std::size_t{16} << 10) / (s.kernel_height * Wp * sizeof(T)));
    const std::size_t blocks = (s.channels + block_rows - 1) / block_rows;
    channel_block_ = (s.channels + blocks - 1) / blocks;
    scratch_.resize(static_cast<std::size_t>(threads_) * band_values_);
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t Oh = s.out_height(), Ow = s.out_width(), bands = (Oh + band_ - 1) / band_;
    const long long tasks = static_cast<long long>(s.batch * bands);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (threads_ > 1 && tasks > 1)
    for (long long t = 0; t < tasks; ++t) {
      const std::size_t n = static_cast<std::size_t>(t) / bands, i0 = static_cast<std::size_t>(t) % bands * band_;
      const std::size_t count = std::min(band_, Oh - i0);
      T* buffer = scratch_.data() + static_cast<std::size_t>(omp_get_thread_num()) * band_values_;
      const DirectRows<T> rows = copy_band(input + n * s.channels * s.height * s.width, i0, count, buffer);
      direct_band(rows, s.filters, packed_.data(), bias_.data(), output + n * s.filters * Oh * Ow + i0 * Ow, count);
    }
  }

 private:
  /// Input rows i0 − top … i0 + count + Kh − 2 − top of every channel of `image` into
  /// `buffer`, as rows of Wp values with the padding as zeros: read once, in runs the
  /// prefetcher follows, and then from cache by every filter block.
  DirectRows<T> copy_band(const T* image, std::size_t i0, std::size_t count, T* buffer) const {
    const Conv2dShape& s = shape_;
    const std::size_t W = s.width, left = s.padding.left, Wp = W + left + s.padding.right;
    const std::size_t rows = count + s.kernel_height - 1, plane = rows * Wp;
    for (std::size_t c = 0; c < s.channels; ++c) {
      const T* in = image + c * s.height * W;
      T* row = buffer + c * plane;
      for (std::size_t r = 0; r < rows; ++r, row += Wp) {
        const std::size_t y = i0 + r;  // in padded coordinates
        if (y < s.padding.top || y >= s.padding.top + s.height) {
          std::fill_n(row, Wp, T(0));
          continue;
        }
        std::fill_n(row, left, T(0));
        std::copy_n(in + (y - s.padding.top) * W, W, row + left);
        std::fill_n(row + left + W, s.padding.right, T(0));
      }
    }
    std::fill_n(buffer + s.channels * plane, kDirectOverread<T>, T(0));
    return {buffer,         plane,         Wp, s.channels, s.kernel_height, s.kernel_width, s.out_width(),
            s.out_height() * s.out_width(), channel_block_};
  }

  Conv2dShape shape_;
  int threads_;
  std::vector<T> packed_, bias_;
  std::size_t band_ = 1, band_values_ = 0, channel_block_ = 1;
  mutable std::vector<T> scratch_;  // one band buffer per thread
};

// ---------------------------------------------------------------------------------------------
// The reference kernel

/// out[i, j] += w · in[i + u − top, j + v − left] over the outputs whose input is inside the
/// image: the padding contributes nothing, so it is skipped rather than read.
template <class T>
void accumulate_tap(const Conv2dShape& s, const T* in, T* out, std::size_t u, std::size_t v, T w) {
  const std::size_t H = s.height, W = s.width, Oh = s.out_height(), Ow = s.out_width();
  const std::size_t top = s.padding.top, left = s.padding.left;
  if (u >= H + top || v >= W + left) return;  // the tap sees only the bottom or right padding
  const std::size_t i0 = top > u ? top - u : 0, i1 = std::min(Oh, H + top - u);
  const std::size_t j0 = left > v ? left - v : 0, j1 = std::min(Ow, W + left - v);
  for (std::size_t i = i0; i < i1; ++i) {
    const T* in_row = in + (i + u - top) * W;
    T* out_row = out + i * Ow;
    for (std::size_t j = j0; j < j1; ++j) out_row[j] += w * in_row[j + v - left];
  }
}

template <class T>
class DirectReference final : public Conv2dKernel<T> {
 public:
  explicit DirectReference(const KernelArgs<T>& a)
      : shape_(a.shape), weights_(a.weights.begin(), a.weights.end()), bias_(a.bias.begin(), a.bias.end()) {}

  /// Each output plane (image n, filter k): the bias, then every (channel, tap) in turn.
  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t image = s.channels * s.height * s.width, plane = s.out_height() * s.out_width();
    const std::size_t filter = s.channels * s.kernel_height * s.kernel_width;
    for (std::size_t n = 0; n < s.batch; ++n)
      for (std::size_t k = 0; k < s.filters; ++k) {
        T* out = output + (n * s.filters + k) * plane;
        std::fill(out, out + plane, bias_of(std::span<const T>(bias_), k));
        for (std::size_t c = 0; c < s.channels; ++c) {
          const T* in = input + n * image + c * s.height * s.width;
          const T* w = weights_.data() + k * filter + c * s.kernel_height * s.kernel_width;
          for (std::size_t u = 0; u < s.kernel_height; ++u)
            for (std::size_t v = 0; v < s.kernel_width; ++v)
              if (const T tap = w[u * s.kernel_width + v]; tap != T(0)) accumulate_tap(s, in, out, u, v, tap);
        }
      }
  }

 private:
  Conv2dShape shape_;
  std::vector<T> weights_, bias_;
};

}  // namespace

template <class T>
KernelPtr<T> make_direct(const KernelArgs<T>& args) {
  return std::make_unique<Direct<T>>(args);
}

template <class T>
KernelPtr<T> make_direct_reference(const KernelArgs<T>& args) {
  return std::make_unique<DirectReference<T>>(args);
}

template KernelPtr<float> make_direct(const KernelArgs<float>&);
template KernelPtr<double> make_direct(const KernelArgs<double>&);
template KernelPtr<float> make_direct_reference(const KernelArgs<float>&);
template KernelPtr<double> make_direct_reference(const KernelArgs<double>&);

}  // namespace fastconv::nn
