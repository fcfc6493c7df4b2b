// src/nn/im2col_gemm.cpp — im2col and one GEMM: out[k, pixels] = W[k, (c,u,v)] · cols[(c,u,v), pixels].
// The columns are built for a band of output rows at a time, so that the C·Kh·Kw × band matrix
// stays a few MB (and in cache for the GEMM) whatever the image size.
#include <omp.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "nn/blas.hpp"
#include "nn/kernels.hpp"

namespace fastconv::nn {

namespace {

constexpr std::size_t kBandBytes = std::size_t{4} << 20;

template <class T>
class Im2colGemm final : public Conv2dKernel<T> {
 public:
  explicit Im2colGemm(const KernelArgs<T>& a)
      : shape_(a.shape), weights_(a.weights.begin(), a.weights.end()), bias_(a.bias.begin(), a.bias.end()),
        threads_(a.threads) {
    const Conv2dShape& s = shape_;
    const std::size_t rows = s.channels * s.kernel_height * s.kernel_width;
    band_ = std::clamp<std::size_t>(kBandBytes / sizeof(T) / (rows * s.out_width()), 1, s.out_height());
    cols_.resize(rows * band_ * s.out_width());
  }

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, Oh = s.out_height(), Ow = s.out_width();
    for (std::size_t n = 0; n < s.batch; ++n) {
      const T* image = input + n * s.channels * s.height * s.width;
      T* out = output + n * K * Oh * Ow;
      for (std::size_t k = 0; k < K; ++k) std::fill(out + k * Oh * Ow, out + (k + 1) * Oh * Ow, bias_of<T>(bias_, k));
      for (std::size_t i0 = 0; i0 < Oh; i0 += band_) {
        const std::size_t band = std::min(band_, Oh - i0), pixels = band * Ow;
        unroll_band(image, i0, band);
        multiply_band(pixels, out + i0 * Ow);
      }
    }
  }

 private:
  /// out[k, pixels] += W · cols, the pixels split between the threads: OpenBLAS (OpenMP
  /// build) runs single-threaded inside a parallel region, so `threads` is honoured exactly.
  void multiply_band(std::size_t pixels, T* out) const {
    const Conv2dShape& s = shape_;
    const std::size_t K = s.filters, rows = s.channels * s.kernel_height * s.kernel_width;
    const std::size_t plane = s.out_height() * s.out_width();
    const int team = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), (pixels + 63) / 64));
#pragma omp parallel num_threads(team) if (team > 1)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num()), nt = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t per = (pixels + nt - 1) / nt / 16 * 16 + 16;  // slices on 64-byte boundaries
      const std::size_t begin = std::min(pixels, t * per), end = std::min(pixels, begin + per);
      if (begin < end)
        gemm(K, end - begin, rows, T(1), weights_.data(), rows, cols_.data() + begin, pixels, T(1), out + begin, plane);
    }
  }

  /// cols[(c,u,v), (i − i0)·Ow + j] = x[c, i+u−top, j+v−left], zero in the padding.
  void unroll_band(const T* image, std::size_t i0, std::size_t band) const {
    const Conv2dShape& s = shape_;
    const std::size_t Ow = s.out_width(), Kh = s.kernel_height, Kw = s.kernel_width, H = s.height, W = s.width;
    const std::size_t top = s.padding.top, left = s.padding.left, pixels = band * Ow;
    const long long rows = static_cast<long long>(s.channels * Kh * Kw);
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && rows * pixels > 32768)
    for (long long r = 0; r < rows; ++r) {
      const std::size_t c = static_cast<std::size_t>(r) / (Kh * Kw), u = static_cast<std::size_t>(r) / Kw % Kh,
                        v = static_cast<std::size_t>(r) % Kw;
      const T* plane = image + c * H * W;
      T* col = cols_.data() + static_cast<std::size_t>(r) * pixels;
      // Output columns j0 ≤ j < j1 read inside the image row; the rest are padding.
      const std::size_t j0 = std::min(Ow, left > v ? left - v : 0);
      const std::size_t j1 = v >= W + left ? j0 : std::clamp(W + left - v, j0, Ow);
      for (std::size_t i = i0; i < i0 + band; ++i) {
        T* dst = col + (i - i0) * Ow;
        const std::size_t y = i + u;  // the padded row; the image row is y − top
        if (y < top || y - top >= H) {
          std::fill(dst, dst + Ow, T(0));
          continue;
        }
        const T* src = plane + (y - top) * W;
        std::fill(dst, dst + j0, T(0));
        for (std::size_t j = j0; j < j1; ++j) dst[j] = src[j + v - left];
        std::fill(dst + j1, dst + Ow, T(0));
      }
    }
  }

  Conv2dShape shape_;
  std::vector<T> weights_, bias_;
  int threads_;
  std::size_t band_ = 1;
  mutable std::vector<T> cols_;
};

/// OpenBLAS's CBLAS takes sizes and row strides as int: the GEMM's K rows, C·Kh·Kw inner
/// dimension and Oh·Ow output row stride must fit one (a larger one was cast to a negative or
/// wrapped int, and the GEMM refused or wrote elsewhere, with no error).
void check_blas_extents(const Conv2dShape& s) {
  const std::pair<const char*, std::size_t> extents[] = {
      {"K (filters)", s.filters},
      {"C*Kh*Kw (the GEMM's inner dimension)", s.channels * s.kernel_height * s.kernel_width},
      {"Oh*Ow (pixels of an output plane)", s.out_height() * s.out_width()}};
  constexpr auto kLongest = static_cast<std::size_t>(std::numeric_limits<int>::max());
  for (const auto& [what, extent] : extents)
    if (extent > kLongest)
      throw Error(ErrorCode::unsupported, "conv2d im2col_gemm: " + std::string(what) + " = " + std::to_string(extent) +
                                              " is beyond the BLAS library's int, " + std::to_string(kLongest) +
                                              ": use direct or an FFT algorithm");
}

}  // namespace

template <class T>
KernelPtr<T> make_im2col_gemm(const KernelArgs<T>& args) {
  check_blas_extents(args.shape);
  return std::make_unique<Im2colGemm<T>>(args);
}

template KernelPtr<float> make_im2col_gemm(const KernelArgs<float>&);
template KernelPtr<double> make_im2col_gemm(const KernelArgs<double>&);

}  // namespace fastconv::nn
