// src/nn/spectral.hpp — the frame the FFT algorithms (fft2d, polyhankel) share: N·C forward
// real FFTs of the images, K·C kernel spectra made once in the plan, the channel sum
// Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] for every frequency bin f, and N·K inverse FFTs. The
// algorithms differ only in where a layout puts the image and kernel values into the real
// arrays and where it reads the outputs from.
#pragma once

#include <omp.h>

#include <algorithm>
#include <complex>
#include <vector>

#include "nn/fftw.hpp"
#include "nn/isa.hpp"
#include "nn/kernels.hpp"
#include "nn/lengths.hpp"

namespace fastconv::nn {

/// Bins per block of the channel sum: the N·B outputs of one filter stay in L1 while the
/// channels stream past, and the N·C·B inputs of a block in L2.
inline constexpr std::size_t kBinBlock = 32;

/// y[n] (+)= Σ_c x[n,c]·u[c] over one block of bins for one filter, complex numbers stored
/// interleaved (re, im). x rows are `x_row` complex apart with channel c at c·x_row and image
/// n at n·x_image; u is the filter's C·B block; y rows are `y_image` complex apart.
template <class T>
[[gnu::always_inline]] inline void channel_sum_body(const T* x, std::size_t x_row, std::size_t x_image, const T* u,
                                                    T* y, std::size_t y_image, std::size_t images,
                                                    std::size_t channels) {
  constexpr std::size_t B = kBinBlock;
  for (std::size_t n = 0; n < images; ++n) std::fill(y + 2 * n * y_image, y + 2 * (n * y_image + B), T(0));
  for (std::size_t c = 0; c < channels; ++c) {
    const T* uc = u + 2 * c * B;
    for (std::size_t n = 0; n < images; ++n) {
      const T* xc = x + 2 * (n * x_image + c * x_row);
      T* yn = y + 2 * n * y_image;
      for (std::size_t f = 0; f < B; ++f) {
        const T xr = xc[2 * f], xi = xc[2 * f + 1], ur = uc[2 * f], ui = uc[2 * f + 1];
        yn[2 * f] += xr * ur - xi * ui;
        yn[2 * f + 1] += xr * ui + xi * ur;
      }
    }
  }
}

FASTCONV_NN_DISPATCH(channel_sum, channel_sum_body)

/// Layout requirements (see fft2d.cpp, polyhankel.cpp):
///   std::vector<int> dims() const;                         the real transform's extents
///   void place_input(const T* plane, T* real) const;       writes the image's positions only
///   void place_kernel(const T* w, T scale, T* real) const; into a zeroed array
///   void extract(const T* real, T* out, T bias) const;     the Oh·Ow outputs
template <class T, class Layout>
class SpectralConv final : public Conv2dKernel<T> {
  using complex = std::complex<T>;

 public:
  SpectralConv(const KernelArgs<T>& a, Layout layout, unsigned fftw_flags)
      : shape_(a.shape), layout_(std::move(layout)), fft_(layout_.dims(), fftw_flags),
        bias_(a.bias.begin(), a.bias.end()), threads_(a.threads) {
    const Conv2dShape& s = shape_;
    real_row_ = aligned_count(fft_.real_size(), sizeof(T));
    blocks_ = (fft_.bins() + kBinBlock - 1) / kBinBlock;
    bins_row_ = blocks_ * kBinBlock;
    // Each thread's input array keeps its zeros between the image's positions from call to call.
    inputs_ = AlignedArray<T>(static_cast<std::size_t>(threads_) * real_row_);
    outputs_ = AlignedArray<T>(static_cast<std::size_t>(threads_) * real_row_);
    x_ = AlignedArray<complex>(s.batch * s.channels * bins_row_);
    y_ = AlignedArray<complex>(s.batch * s.filters * bins_row_);
    kernel_spectra(a.weights);
  }

  void run(const T* input, T* output) const override {
    forward_images(input);
    channel_sums();
    inverse_outputs(output);
  }

 private:
  /// U[k,c] (scaled by 1/L, the inverse FFT's missing factor), stored block by block
  /// ([block][k][c][B]) so that the channel sum reads it once, in order.
  void kernel_spectra(std::span<const T> weights) {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, C = s.channels, taps = s.kernel_height * s.kernel_width;
    u_ = AlignedArray<complex>(blocks_ * K * C * kBinBlock);
    AlignedArray<complex> spectra(static_cast<std::size_t>(threads_) * bins_row_);
    const T scale = T(1) / static_cast<T>(fft_.real_size());
    const long long pairs = static_cast<long long>(K * C);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && pairs > 1)
    for (long long p = 0; p < pairs; ++p) {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      T* real = outputs_.data() + t * real_row_;
      complex* spectrum = spectra.data() + t * bins_row_;
      std::fill(real, real + fft_.real_size(), T(0));
      layout_.place_kernel(weights.data() + static_cast<std::size_t>(p) * taps, scale, real);
      fft_.forward(real, spectrum);
      const std::size_t k = static_cast<std::size_t>(p) / C, c = static_cast<std::size_t>(p) % C;
      for (std::size_t f = 0; f < fft_.bins(); ++f)
        u_[((f / kBinBlock * K + k) * C + c) * kBinBlock + f % kBinBlock] = spectrum[f];
    }
  }

  void forward_images(const T* input) const {
    const Conv2dShape& s = shape_;
    const std::size_t plane = s.height * s.width;
    const long long planes = static_cast<long long>(s.batch * s.channels);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && planes > 1)
    for (long long p = 0; p < planes; ++p) {
      T* real = inputs_.data() + static_cast<std::size_t>(omp_get_thread_num()) * real_row_;
      layout_.place_input(input + static_cast<std::size_t>(p) * plane, real);
      fft_.forward(real, x_.data() + static_cast<std::size_t>(p) * bins_row_);
    }
  }

  void channel_sums() const {
    const Conv2dShape& s = shape_;
    const std::size_t N = s.batch, C = s.channels, K = s.filters;
    const long long blocks = static_cast<long long>(blocks_);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && blocks > 1)
    for (long long b = 0; b < blocks; ++b) {
      const std::size_t first = static_cast<std::size_t>(b) * kBinBlock;
      for (std::size_t k = 0; k < K; ++k)
        channel_sum(reinterpret_cast<const T*>(x_.data() + first), bins_row_, C * bins_row_,
                    reinterpret_cast<const T*>(u_.data() + (static_cast<std::size_t>(b) * K + k) * C * kBinBlock),
                    reinterpret_cast<T*>(y_.data() + k * bins_row_ + first), K * bins_row_, N, C);
    }
  }

  void inverse_outputs(T* output) const {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, plane = s.out_height() * s.out_width();
    const std::span<const T> bias(bias_);
    const long long planes = static_cast<long long>(s.batch * K);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && planes > 1)
    for (long long p = 0; p < planes; ++p) {
      T* real = outputs_.data() + static_cast<std::size_t>(omp_get_thread_num()) * real_row_;
      fft_.inverse(y_.data() + static_cast<std::size_t>(p) * bins_row_, real);
      layout_.extract(real, output + static_cast<std::size_t>(p) * plane,
                      bias_of(bias, static_cast<std::size_t>(p) % K));
    }
  }

  Conv2dShape shape_;
  Layout layout_;
  RealFftPair<T> fft_;
  std::vector<T> bias_;
  int threads_;
  std::size_t real_row_ = 0, blocks_ = 0, bins_row_ = 0;
  AlignedArray<T> inputs_, outputs_;
  AlignedArray<complex> x_, y_, u_;
};

/// FFTW_MEASURE makes transforms 1.2–1.5× faster than FFTW_ESTIMATE from about 4096 points on,
/// but planning one length takes 0.1–1 s up to 32768 points and several seconds beyond (2
/// cores): measured in between, estimated outside.
inline unsigned planner_flags(std::size_t real_size) noexcept {
  return real_size >= 4096 && real_size <= 32768 ? FFTW_MEASURE : FFTW_ESTIMATE;
}

}  // namespace fastconv::nn
