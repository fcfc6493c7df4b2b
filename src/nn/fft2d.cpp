// src/nn/fft2d.cpp — the classic FFT convolution: the padded image and the flipped kernel in
// Fh×Fw arrays (Fh ≥ H+top+bottom, Fw ≥ W+left+right), one 2-D real FFT each. The cyclic
// product equals the linear one on every output because the padded image already fits:
// wrap-around only reaches the first Kh−1 rows and Kw−1 columns, which are not outputs.
#include "nn/spectral.hpp"

namespace fastconv::nn {

namespace {

template <class T>
class PaddedImageLayout {
 public:
  explicit PaddedImageLayout(const Conv2dShape& s)
      : s_(s), fh_(smooth_fft_extent(s.height + s.padding.top + s.padding.bottom, false)),
        fw_(smooth_fft_extent(s.width + s.padding.left + s.padding.right, true)) {}

  static constexpr std::string_view name = "fft2d";
  std::vector<std::size_t> dims() const { return {fh_, fw_}; }
  std::size_t bands() const { return 1; }

  void place_input(const T* plane, std::size_t /*band*/, T* real, const PowerOfTwo<T>& scale) const {
    for (std::size_t r = 0; r < s_.height; ++r)
      scale.scale(plane + r * s_.width, s_.width, real + (r + s_.padding.top) * fw_ + s_.padding.left);
  }

  /// Flipped, so that the cyclic convolution is the cross-correlation, ending at the output's index.
  void place_kernel(const T* w, T scale, T* real) const {
    const std::size_t Kh = s_.kernel_height, Kw = s_.kernel_width;
    for (std::size_t u = 0; u < Kh; ++u)
      for (std::size_t v = 0; v < Kw; ++v) real[(Kh - 1 - u) * fw_ + Kw - 1 - v] = w[u * Kw + v] * scale;
  }

  void extract(const T* real, std::size_t /*band*/, T* out, T bias, const PowerOfTwo<T>& scale) const {
    const std::size_t Oh = s_.out_height(), Ow = s_.out_width();
    for (std::size_t i = 0; i < Oh; ++i)
      scale.scale_add(real + (i + s_.kernel_height - 1) * fw_ + s_.kernel_width - 1, Ow, bias, out + i * Ow);
  }

 private:
  Conv2dShape s_;
  std::size_t fh_, fw_;
};

}  // namespace

template <class T>
KernelPtr<T> make_fft2d(const KernelArgs<T>& args) {
  PaddedImageLayout<T> layout(args.shape);
  const auto dims = layout.dims();
  const FftPlanning planning = fft_planning(real_fft_sizes(dims).first);
  return std::make_unique<SpectralConv<T, PaddedImageLayout<T>>>(args, std::move(layout), planning);
}

template KernelPtr<float> make_fft2d(const KernelArgs<float>&);
template KernelPtr<double> make_fft2d(const KernelArgs<double>&);

}  // namespace fastconv::nn
