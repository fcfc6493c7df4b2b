// src/nn/polyhankel_merged.cpp — seed 002's first option for several channels (Xu et al., CGO
// 2025, Sec. 3.2): all of an image's input channels merged into one polynomial, one FFT per
// image and one per filter, where polyhankel takes one per (image, channel) and sums the
// channels per frequency (the paper's second option, which it chose).
//
// Stacked one above the other, each with its own top and bottom padding rows, the C channels of
// an image are one image of C·Hp rows (Hp = H + top + bottom), and the C kernels of a filter,
// Hp rows apart, one kernel of (C − 1)·Hp + Kh rows. The single-channel convolution of the two
// has the Oh × Ow outputs of the C-channel one: at output row i < Oh, kernel row c·Hp + u meets
// stacked row i + c·Hp + u, row i + u of channel c's block, so each channel's kernel meets only
// its own channel, and the product's coefficient sums the channels by itself. polyhankel on
// that shape (no padding rows of its own, the columns' as given) is the merged polynomial: its
// transforms are about C times as long, with O(C·H·W·log(C·H·W)) work each (the paper's
// complexity). auto does not race it; docs/benchmarks.md measures it against polyhankel.
#include <algorithm>
#include <utility>
#include <vector>

#include "core/memory.hpp"
#include "nn/fft.hpp"
#include "nn/kernels.hpp"
#include "nn/lengths.hpp"

namespace fastconv::nn {
namespace {

template <class T>
class MergedChannels final : public Conv2dKernel<T> {
 public:
  explicit MergedChannels(const KernelArgs<T>& args)
      : shape_(args.shape), merged_(merged_shape(args.shape)), threads_(args.threads) {
    const Conv2dShape& s = shape_;
    const std::size_t Hp = padded_height(s), Kh = merged_.kernel_height, Kw = s.kernel_width;
    detail::require_elements(merged_.weight_size(), sizeof(T), "conv2d polyhankel_merged: the stacked kernels");
    std::vector<T> weights(merged_.weight_size(), T(0));
    for (std::size_t k = 0; k < s.filters; ++k)
      for (std::size_t c = 0; c < s.channels; ++c)
        for (std::size_t u = 0; u < s.kernel_height; ++u)
          std::copy_n(args.weights.data() + ((k * s.channels + c) * s.kernel_height + u) * Kw, Kw,
                      weights.data() + (k * Kh + c * Hp + u) * Kw);
    KernelArgs<T> inner = args;
    inner.shape = merged_;
    inner.weights = weights;
    // The paper's plain form: the next even 7-smooth length, untimed, no row bands, and an
    // estimated FFT plan. Each shape's merged length is its own, C times polyhankel's: timing
    // candidate lengths and measuring FFTW's plan took most of a plan's time (0.1–2 s a length
    // here, minutes under emulation). Its refusals come before the stacked input is allocated.
    inner_ = make_polyhankel(inner, smooth_fft_extent(polyhankel_min_length(merged_), true), merged_.out_height(),
                             /*quick_plan=*/true);
    stacked_ = AlignedArray<T>(merged_.input_size());  // the padding rows stay zero
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t plane = s.height * s.width, block = padded_height(s) * s.width;
    const auto planes = static_cast<std::ptrdiff_t>(s.batch * s.channels);
    // Each channel's plane into its block of the stacked image (N·C planes, n-major as the input).
#pragma omp parallel for num_threads(resolve_threads(threads_)) schedule(static)
    for (std::ptrdiff_t p = 0; p < planes; ++p)
      std::copy_n(input + static_cast<std::size_t>(p) * plane, plane,
                  stacked_.data() + static_cast<std::size_t>(p) * block + s.padding.top * s.width);
    inner_->run(stacked_.data(), output);
  }

  static std::size_t padded_height(const Conv2dShape& s) noexcept { return s.height + s.padding.top + s.padding.bottom; }

  /// The single-channel shape of the stacked images and kernels.
  static Conv2dShape merged_shape(const Conv2dShape& s) {
    const std::size_t Hp = padded_height(s);
    Conv2dShape m = s;
    m.channels = 1;
    if (__builtin_mul_overflow(s.channels, Hp, &m.height) || m.height > SIZE_MAX / s.width / s.batch)
      throw Error(ErrorCode::unsupported, "conv2d polyhankel_merged: " + std::to_string(s.channels) +
                                              " channels of " + std::to_string(Hp) +
                                              " padded rows each do not fit one stacked image");
    m.kernel_height = (s.channels - 1) * Hp + s.kernel_height;
    m.padding.top = m.padding.bottom = 0;
    return m;
  }

 private:
  Conv2dShape shape_, merged_;
  int threads_;
  mutable AlignedArray<T> stacked_;  // the plan serialises run(): the stacked input's scratch
  KernelPtr<T> inner_;
};

}  // namespace

template <class T>
KernelPtr<T> make_polyhankel_merged(const KernelArgs<T>& args) {
  return std::make_unique<MergedChannels<T>>(args);
}

template KernelPtr<float> make_polyhankel_merged(const KernelArgs<float>&);
template KernelPtr<double> make_polyhankel_merged(const KernelArgs<double>&);

}  // namespace fastconv::nn
