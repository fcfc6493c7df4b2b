// src/nn/direct.cpp — the convolution as its sum, ordered so that the innermost loop runs
// along an output row and an input row (contiguous, vectorised); one output plane per task.
#include <algorithm>
#include <vector>

#include "nn/isa.hpp"
#include "nn/kernels.hpp"

namespace fastconv::nn {

namespace {

/// out[i, j] += w · in[i + u − top, j + v − left] over the outputs whose input is inside the
/// image: the padding contributes nothing, so it is skipped rather than read.
template <class T>
[[gnu::always_inline]] inline void accumulate_tap(const Conv2dShape& s, const T* in, T* out, std::size_t u,
                                                  std::size_t v, T w) {
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

/// One output plane (image n, filter k): the bias, then every (channel, tap) in turn; the
/// plane stays in cache across the C·Kh·Kw passes.
template <class T>
[[gnu::always_inline]] inline void plane_body(const Conv2dShape* s, const T* image, const T* filter, T* out,
                                              T bias) {
  const std::size_t plane = s->out_height() * s->out_width();
  std::fill(out, out + plane, bias);
  for (std::size_t c = 0; c < s->channels; ++c) {
    const T* in = image + c * s->height * s->width;
    const T* w = filter + c * s->kernel_height * s->kernel_width;
    for (std::size_t u = 0; u < s->kernel_height; ++u)
      for (std::size_t v = 0; v < s->kernel_width; ++v)
        if (const T tap = w[u * s->kernel_width + v]; tap != T(0)) accumulate_tap(*s, in, out, u, v, tap);
  }
}

FASTCONV_NN_DISPATCH(direct_plane, plane_body)

template <class T>
class Direct final : public Conv2dKernel<T> {
 public:
  explicit Direct(const KernelArgs<T>& a)
      : shape_(a.shape), weights_(a.weights.begin(), a.weights.end()), bias_(a.bias.begin(), a.bias.end()),
        threads_(a.threads) {}

  void run(const T* input, T* output) const override {
    const Conv2dShape& s = shape_;
    const std::size_t N = s.batch, K = s.filters, image = s.channels * s.height * s.width;
    const std::size_t filter = s.channels * s.kernel_height * s.kernel_width, plane = s.out_height() * s.out_width();
    const std::span<const T> bias(bias_);
    const long long tasks = static_cast<long long>(N * K);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (threads_ > 1 && tasks > 1)
    for (long long t = 0; t < tasks; ++t) {
      const std::size_t n = static_cast<std::size_t>(t) / K, k = static_cast<std::size_t>(t) % K;
      direct_plane(&s, input + n * image, weights_.data() + k * filter, output + (n * K + k) * plane,
                   bias_of(bias, k));
    }
  }

 private:
  Conv2dShape shape_;
  std::vector<T> weights_, bias_;
  int threads_;
};

}  // namespace

template <class T>
KernelPtr<T> make_direct(const KernelArgs<T>& args) {
  return std::make_unique<Direct<T>>(args);
}

template KernelPtr<float> make_direct(const KernelArgs<float>&);
template KernelPtr<double> make_direct(const KernelArgs<double>&);

}  // namespace fastconv::nn
