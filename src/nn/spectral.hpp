// src/nn/spectral.hpp — the frame the FFT algorithms (fft2d, polyhankel) share: N·C forward
// real FFTs of the images, K·C kernel spectra made once in the plan, the channel sum
// Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f] for every frequency bin f, and N·K inverse FFTs. The
// algorithms differ only in where a layout puts the image and kernel values into the real
// arrays and where it reads the outputs from.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nn/fft.hpp"
#include "nn/isa.hpp"
#include "nn/kernels.hpp"
#include "nn/lengths.hpp"
#include "nn/scaling.hpp"
#include "nn/spectral_isa.hpp"

namespace fastconv::nn {

/// The channel sum of this CPU's instruction set (spectral_isa.cpp).
template <class T>
void channel_sum_block(const ChannelSumBlock<T>& block) {
#if defined(FASTCONV_NN_HAVE_avx512)
  if (has_avx512()) return isa_avx512::channel_sum_block(block);
#endif
#if defined(FASTCONV_NN_HAVE_avx2)
  if (has_avx2_fma()) return isa_avx2::channel_sum_block(block);
#endif
  isa_base::channel_sum_block(block);
}

/// U's packing for channel_sum_block, of this CPU's instruction set (spectral_isa.cpp).
template <class T>
void channel_sum_pack(const std::complex<T>* spectrum, T* packed, std::size_t values) {
  const T* interleaved = reinterpret_cast<const T*>(spectrum);
#if defined(FASTCONV_NN_HAVE_avx512)
  if (has_avx512()) return isa_avx512::channel_sum_pack(interleaved, packed, values);
#endif
#if defined(FASTCONV_NN_HAVE_avx2)
  if (has_avx2_fma()) return isa_avx2::channel_sum_pack(interleaved, packed, values);
#endif
  isa_base::channel_sum_pack(interleaved, packed, values);
}

/// The product of this CPU's instruction set (spectral_isa.cpp).
template <class T>
void spectral_product(const std::complex<T>* x, const std::complex<T>* u, std::complex<T>* y, std::size_t bins,
                      bool accumulate) {
  const T* xs = reinterpret_cast<const T*>(x);
  const T* us = reinterpret_cast<const T*>(u);
  T* ys = reinterpret_cast<T*>(y);
#if defined(FASTCONV_NN_HAVE_avx512)
  if (has_avx512()) return isa_avx512::spectral_product(xs, us, ys, bins, accumulate);
#endif
#if defined(FASTCONV_NN_HAVE_avx2)
  if (has_avx2_fma()) return isa_avx2::spectral_product(xs, us, ys, bins, accumulate);
#endif
  isa_base::spectral_product(xs, us, ys, bins, accumulate);
}

/// The exponents with which SpectralConv scales its operands (OperandScaling). A forward FFT
/// sums a whole plane and the channel sum C of them, so on unscaled values its sums overflow (a
/// float32 image of 3e38 gave NaN where every output fits) or the kernel's values divided by L
/// underflow (weights of 1e-44 gave 0) far sooner than the outputs do: the windows keep every
/// sum of a plane, product, channel sum and inverse transform of this shape in T's normal range
/// (usual values lie inside: float32 about 2^±50). One extreme image or filter leaves the others
/// as they were (one scale for the whole batch and all filters had pushed a filter of 1e-30
/// beside one of 1e30 to 0).
template <class T>
struct SpectralScaling : OperandScaling<T> {
  /// Intermediates below |x|max·|w|max·C·H·W·taps; the kernel spectrum divided by L.
  SpectralScaling(const Conv2dShape& s, std::size_t L) noexcept
      : OperandScaling<T>(ceil_log2(s.channels) + ceil_log2(s.height * s.width) +
                              ceil_log2(s.kernel_height * s.kernel_width),
                          ceil_log2(L)) {}
};

/// The kernel spectra a SpectralConv makes: the weights', or zeros for a kernel that is only
/// timed (polyhankel's band choice). A run does the same work on any normal values (only
/// subnormal ones, which zeros never give, could slow the real runs), and K·C transforms are
/// saved per candidate: for the whole output at 1024x1024, C = K = 32, 5x5, 1024 of a million
/// points each.
enum class KernelSpectra { of_weights, zeros_for_timing };

/// Layout requirements (see fft2d.cpp, polyhankel.cpp):
///   static constexpr std::string_view name;                the algorithm, for messages
///   std::vector<std::size_t> dims() const;                 the real transform's extents
///   std::size_t bands() const;                             pieces of the output computed one
///                                                          after another (row bands), ≥ 1
///   void place_input(const T* plane, std::size_t band, T* real, const PowerOfTwo<T>& scale) const;
///                                                          the band's image values, scaled,
///                                                          leaving every other position zero
///   void place_kernel(const T* w, T scale, T* real) const; into a zeroed array
///   void extract(const T* real, std::size_t band, T* out, T bias, const PowerOfTwo<T>& scale) const;
///                                                          the band's outputs of the Oh·Ow plane,
///                                                          scaled, plus the bias
/// The kernel spectra serve every band; X and Y hold one band at a time.
///
/// With one channel, or one filter and an image per thread, the channel sum is a plain product
/// and the convolution runs fused instead (fused_one_channel, fused_one_filter): each thread
/// takes an image's spectrum from its forward transform through the products to the inverse
/// transforms while it is in cache, and the kernel spectra stay interleaved, as FFTW writes
/// them. Otherwise every forward transform of the band writes its spectrum into X (one row of
/// bins_row_ per plane), the channel sum goes over blocks of bins of every row into Y, and every
/// inverse transform reads its row of Y: the spectra are never copied.
template <class T, class Layout>
class SpectralConv final : public Conv2dKernel<T> {
  using complex = std::complex<T>;

 public:
  SpectralConv(const KernelArgs<T>& a, Layout layout, FftPlanning planning,
               KernelSpectra spectra = KernelSpectra::of_weights)
      : shape_(a.shape), layout_((check_work_space(layout, a), std::move(layout))), fft_(layout_.dims(), planning),
        bias_(a.bias.begin(), a.bias.end()), threads_(a.threads), scaling_(a.shape, fft_.real_size()) {
    const Conv2dShape& s = shape_;
    real_row_ = aligned_count(fft_.real_size(), sizeof(T));
    bins_row_ = bins_row(fft_.bins());
    blocks_ = bins_row_ / kBinBlock;
    fused_ = fused(s, threads_);
    const auto threads = static_cast<std::size_t>(threads_);
    // Each thread's input array keeps its zeros between the image's positions from call to call.
    inputs_ = AlignedArray<T>(threads * real_row_);
    outputs_ = AlignedArray<T>(threads * real_row_);
    spectra_ = AlignedArray<complex>(threads * bins_row_);
    if (fused_) {
      products_ = AlignedArray<complex>(threads * bins_row_);
    } else {
      x_ = AlignedArray<T>(2 * s.batch * s.channels * bins_row_);
      y_ = AlignedArray<T>(2 * s.batch * s.filters * bins_row_);
    }
    u_ = AlignedArray<complex>(s.filters * s.channels * bins_row_);  // zeros
    weights_exponents_.assign(s.filters, 0);
    if (spectra == KernelSpectra::of_weights) kernel_spectra(a.weights, a.deadline);
  }

  /// An out_of_memory Error unless every array the constructor allocates for `layout`, with the
  /// FFT library's tables, fits in the memory this process may use: checked before FFTW plans
  /// anything, where the arrays alone would only be refused one by one (and by polyhankel at its
  /// shortest length before it times candidate lengths).
  static void check_work_space(const Layout& layout, const KernelArgs<T>& a) {
    const Conv2dShape& s = a.shape;
    const std::vector<std::size_t> dims = layout.dims();
    const auto [real, bins] = real_fft_sizes(dims);
    const double threads = a.threads, real_row = static_cast<double>(aligned_count(real, sizeof(T)));
    const double bins_row = static_cast<double>(SpectralConv::bins_row(bins));
    const double N = static_cast<double>(s.batch), C = static_cast<double>(s.channels),
                 K = static_cast<double>(s.filters);
    // inputs_ and outputs_, spectra_, products_ or X and Y, and U, in values of T.
    const double arrays = 2 * threads * real_row + 2 * threads * bins_row +
                          (fused(s, a.threads) ? 2 * threads * bins_row : 2 * (N * C + N * K) * bins_row) +
                          2 * K * C * bins_row;
    require_values(arrays + fft_table_values(dims), sizeof(T),
                   "conv2d " + std::string(Layout::name) + ": its work space for FFTs of " + extents_text(dims) +
                       " points");
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t image = s.channels * s.height * s.width;
    std::vector<int> images(s.batch);  // each image's exponent (SpectralScaling)
    for (std::size_t n = 0; n < s.batch; ++n)
      images[n] = SpectralScaling<T>::exponent(largest_magnitude(input + n * image, image, threads_),
                                               scaling_.images_low, scaling_.images_high);
    const Scales scales{images, weights_exponents_};
    for (std::size_t band = 0; band < layout_.bands(); ++band) {
      if (fused_ && shape_.channels == 1) {
        fused_one_channel(input, output, band, scales);
      } else if (fused_) {
        fused_one_filter(input, output, band, scales);
      } else {
        forward_images(input, band, scales);
        channel_sums();
        inverse_outputs(output, band, scales);
      }
    }
  }

 private:
  /// Complex values per row of X, Y, U and the spectra: `bins` in whole blocks of kBinBlock.
  static std::size_t bins_row(std::size_t bins) noexcept { return (bins + kBinBlock - 1) / kBinBlock * kBinBlock; }

  /// Whether the convolution runs fused (one channel, or one filter and an image per thread).
  static bool fused(const Conv2dShape& s, int threads) noexcept {
    return s.channels == 1 || (s.filters == 1 && s.batch >= static_cast<std::size_t>(threads));
  }

  /// The powers of two of a call (SpectralScaling): image n's input values are multiplied by
  /// 2^images[n], filter k's weights were by 2^filters[k] (in U), and output plane (n, k) is
  /// multiplied back by 2^−(images[n] + filters[k]).
  struct Scales {
    const std::vector<int>& images;
    const std::vector<int>& filters;
    [[nodiscard]] PowerOfTwo<T> input(std::size_t n) const { return PowerOfTwo<T>(images[n]); }
    [[nodiscard]] PowerOfTwo<T> output(std::size_t n, std::size_t k) const {
      return PowerOfTwo<T>(-(images[n] + filters[k]));
    }
  };

  /// U[k,c] (filter k's weights scaled by 2^weights_exponents_[k] and by 1/L, the inverse FFT's
  /// missing factor): interleaved at u_ + (k·C + c)·bins_row_
  /// for the fused path; otherwise packed (channel_sum_pack) in blocks of kBinBlock bins, block b
  /// of plane q = k·C + c at 2·kBinBlock·(b·K·C + q) real values, so that the channel sum reads
  /// U once, in order. With a deadline (auto's), the transforms stop once it has passed, and
  /// PlanDeadline::Passed is thrown after the parallel loop (K·C of them took 5 s at 1024x1024,
  /// C = K = 32, 5x5).
  void kernel_spectra(std::span<const T> weights, const PlanDeadline* deadline) {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, C = s.channels, taps = s.kernel_height * s.kernel_width;
    const T scale = T(1) / static_cast<T>(fft_.real_size());
    const std::size_t filter = C * taps;
    std::vector<T> scaled(weights.size());
    for (std::size_t k = 0; k < K; ++k) {
      weights_exponents_[k] = SpectralScaling<T>::exponent(largest_magnitude(weights.data() + k * filter, filter, 1),
                                                           scaling_.weights_low, scaling_.weights_high);
      PowerOfTwo<T>(weights_exponents_[k]).scale(weights.data() + k * filter, filter, scaled.data() + k * filter);
    }
    const long long pairs = static_cast<long long>(K * C);
    std::atomic<bool> cut{false};
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && pairs > 1)
    for (long long p = 0; p < pairs; ++p) {
      if (deadline != nullptr && (cut.load(std::memory_order_relaxed) || deadline->passed())) {
        cut.store(true, std::memory_order_relaxed);
        continue;
      }
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      T* real = outputs_.data() + t * real_row_;
      complex* spectrum = spectra_.data() + t * bins_row_;
      std::fill(real, real + fft_.real_size(), T(0));
      layout_.place_kernel(scaled.data() + static_cast<std::size_t>(p) * taps, scale, real);
      fft_.forward(real, spectrum);  // bins past bins() stay zero: nothing has written them yet
      const auto q = static_cast<std::size_t>(p);
      if (fused_) {
        std::copy(spectrum, spectrum + fft_.bins(), u_.data() + q * bins_row_);
      } else {
        constexpr std::size_t B = kBinBlock;
        for (std::size_t b = 0; b < blocks_; ++b)
          channel_sum_pack(spectrum + b * B, reinterpret_cast<T*>(u_.data()) + 2 * B * (b * K * C + q), 2 * B);
      }
    }
    if (cut.load()) throw PlanDeadline::Passed{};
  }

  /// C = 1: output plane q = n·K + k is the inverse transform of X[n]·U[k]. Each thread takes a
  /// run of consecutive planes and transforms an image only when its run reaches the next one.
  void fused_one_channel(const T* input, T* output, std::size_t band, const Scales& scales) const {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, in_plane = s.height * s.width, out_plane = s.out_height() * s.out_width();
    const long long planes = static_cast<long long>(s.batch * K);
#pragma omp parallel num_threads(threads_) if (threads_ > 1 && planes > 1)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      T* real = inputs_.data() + t * real_row_;
      T* result = outputs_.data() + t * real_row_;
      complex* image = spectra_.data() + t * bins_row_;
      complex* product = products_.data() + t * bins_row_;
      std::size_t transformed = SIZE_MAX;  // the image whose spectrum `image` holds
#pragma omp for schedule(static)
      for (long long p = 0; p < planes; ++p) {
        const auto q = static_cast<std::size_t>(p), n = q / K, k = q % K;
        if (n != transformed) {
          layout_.place_input(input + n * in_plane, band, real, scales.input(n));
          fft_.forward(real, image);
          transformed = n;
        }
        spectral_product(image, u_.data() + k * bins_row_, product, fft_.bins(), false);
        fft_.inverse(product, result);
        layout_.extract(result, band, output + q * out_plane, bias_of(std::span<const T>(bias_), k),
                        scales.output(n, k));
      }
    }
  }

  /// K = 1: image n's output is the inverse transform of Σ_c X[n,c]·U[c], summed as each
  /// channel's transform comes out; one image per thread at a time.
  void fused_one_filter(const T* input, T* output, std::size_t band, const Scales& scales) const {
    const Conv2dShape& s = shape_;
    const std::size_t C = s.channels, in_plane = s.height * s.width, out_plane = s.out_height() * s.out_width();
    const long long images = static_cast<long long>(s.batch);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && images > 1)
    for (long long i = 0; i < images; ++i) {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const auto n = static_cast<std::size_t>(i);
      T* real = inputs_.data() + t * real_row_;
      complex* channel = spectra_.data() + t * bins_row_;
      complex* sum = products_.data() + t * bins_row_;
      for (std::size_t c = 0; c < C; ++c) {
        layout_.place_input(input + (n * C + c) * in_plane, band, real, scales.input(n));
        fft_.forward(real, channel);
        spectral_product(channel, u_.data() + c * bins_row_, sum, fft_.bins(), c > 0);
      }
      T* result = outputs_.data() + t * real_row_;
      fft_.inverse(sum, result);
      layout_.extract(result, band, output + n * out_plane, bias_of(std::span<const T>(bias_), 0), scales.output(n, 0));
    }
  }

  void forward_images(const T* input, std::size_t band, const Scales& scales) const {
    const Conv2dShape& s = shape_;
    const std::size_t plane = s.height * s.width;
    const std::size_t planes = s.batch * s.channels;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && planes > 1)
    for (long long p = 0; p < static_cast<long long>(planes); ++p) {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      T* real = inputs_.data() + t * real_row_;
      layout_.place_input(input + static_cast<std::size_t>(p) * plane, band, real,
                          scales.input(static_cast<std::size_t>(p) / s.channels));
      fft_.forward(real, row(x_, static_cast<std::size_t>(p)));
    }
  }

  void channel_sums() const {
    const Conv2dShape& s = shape_;
    const std::size_t N = s.batch, C = s.channels, K = s.filters;
    constexpr std::size_t B2 = 2 * kBinBlock;  // real values per block of bins
    const std::size_t values = 2 * bins_row_;  // per row of X and Y
    const long long blocks = static_cast<long long>(blocks_);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && blocks > 1)
    for (long long b = 0; b < blocks; ++b) {
      const auto block = static_cast<std::size_t>(b);
      channel_sum_block(ChannelSumBlock<T>{x_.data() + block * B2, C * values, values,
                                           reinterpret_cast<const T*>(u_.data()) + block * K * C * B2, C * B2, B2,
                                           y_.data() + block * B2, K * values, values, N, K, C});
    }
  }

  void inverse_outputs(T* output, std::size_t band, const Scales& scales) const {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, plane = s.out_height() * s.out_width();
    const std::span<const T> bias(bias_);
    const std::size_t planes = s.batch * K;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && planes > 1)
    for (long long p = 0; p < static_cast<long long>(planes); ++p) {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      T* real = outputs_.data() + t * real_row_;
      fft_.inverse(row(y_, static_cast<std::size_t>(p)), real);  // destroys the row: Y is scratch
      layout_.extract(real, band, output + static_cast<std::size_t>(p) * plane,
                      bias_of(bias, static_cast<std::size_t>(p) % K),
                      scales.output(static_cast<std::size_t>(p) / K, static_cast<std::size_t>(p) % K));
    }
  }

  /// Plane p's spectrum in X or Y.
  complex* row(const AlignedArray<T>& store, std::size_t p) const {
    return reinterpret_cast<complex*>(store.data() + 2 * p * bins_row_);
  }

  Conv2dShape shape_;
  Layout layout_;
  RealFftPair<T> fft_;
  std::vector<T> bias_;
  int threads_;
  SpectralScaling<T> scaling_;          // the windows of this shape and FFT length
  std::vector<int> weights_exponents_;  // each filter's scaling in U (SpectralScaling)
  std::size_t real_row_ = 0, blocks_ = 0, bins_row_ = 0;
  bool fused_ = false;
  AlignedArray<T> inputs_, outputs_;
  AlignedArray<complex> spectra_, u_;  // spectra_: one plane's bins per thread
  AlignedArray<complex> products_;     // the fused path's product, one per thread
  AlignedArray<T> x_, y_;              // X[n,c] and Y[n,k]: a row of bins_row_ complex values each
};

/// Transforms of more points than this get quick plans (fft_planning).
inline constexpr std::size_t kLongestMeasuredFft = 32768;

/// FFTW_MEASURE makes transforms 1.2–1.5× faster than FFTW_ESTIMATE from about 4096 points on,
/// but planning one length takes 0.1–1 s up to 32768 points and several seconds beyond (2
/// cores): measured in between, quick outside.
inline FftPlanning fft_planning(std::size_t real_size) noexcept {
  return real_size >= 4096 && real_size <= kLongestMeasuredFft ? FftPlanning::measured : FftPlanning::quick;
}

}  // namespace fastconv::nn
