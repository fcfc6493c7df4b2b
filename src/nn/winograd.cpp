// src/nn/winograd.cpp — Winograd's minimal filtering F(4×4, 3×3) (Lavin & Gray 2016): each
// 4×4 output tile is Aᵀ·[Σ_c (G·w·Gᵀ) ⊙ (Bᵀ·d·B)]·A over a 6×6 input tile d, 36 multiplies
// instead of 144. Here: the filter transforms U = G·w·Gᵀ (once, in double), packed for the
// register tiles of winograd_isa.cpp, and threads over groups of tiles, each of which
// winograd_isa.cpp takes from input to output in the thread's own scratch. An image or filter
// whose largest magnitude lies outside the window where no transform, product or sum can leave
// T's normal range is scaled by a power of two (scaling.hpp), and its output planes back.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nn/isa.hpp"
#include "nn/kernels.hpp"
#include "nn/scaling.hpp"
#include "nn/winograd_isa.hpp"

namespace fastconv::nn {

namespace {

constexpr std::size_t kOut = 4, kTile = 6, kElements = kTile * kTile;

/// o = G·g for one column of 3 values: 6 outputs (in double: the filters are transformed once).
inline void filter_transform_1d(const double* g, std::size_t gs, double* o, std::size_t os) {
  const double g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  o[0] = g0 / 4;
  o[os] = -(g0 + g1 + g2) / 6;
  o[2 * os] = -(g0 - g1 + g2) / 6;
  o[3 * os] = g0 / 24 + g1 / 12 + g2 / 6;
  o[4 * os] = g0 / 24 - g1 / 12 + g2 / 6;
  o[5 * os] = g2;
}

/// The tiles of this CPU's instruction set (winograd_isa.cpp).
template <class T>
void winograd_tiles(const WinogradTiles<T>& tiles, std::size_t first, std::size_t count, T* scratch) {
#if defined(FASTCONV_NN_HAVE_avx2)
  if (has_avx2_fma()) return isa_avx2::winograd_group(tiles, first, count, scratch);
#endif
  isa_base::winograd_group(tiles, first, count, scratch);
}

/// The windows of winograd's operands (OperandScaling): Bᵀ·d·B takes an input tile's values up
/// to 100× (|Bᵀ|'s rows sum to at most 10), the channel sum C of them, and Aᵀ·M·A 361× (19); a
/// filter transform G·w·Gᵀ holds values as small as w/576.
template <class T>
OperandScaling<T> winograd_scaling(const Conv2dShape& s) {
  return OperandScaling<T>(ceil_log2(s.channels) + ceil_log2(100) + ceil_log2(361), ceil_log2(576));
}

template <class T>
class Winograd final : public Conv2dKernel<T> {
 public:
  explicit Winograd(const KernelArgs<T>& a) : threads_(a.threads), scaling_(winograd_scaling<T>(a.shape)) {
    const Conv2dShape& s = a.shape;
    const std::size_t blocks = (s.filters + kWinogradFilterBlock - 1) / kWinogradFilterBlock;
    tiles_ = WinogradTiles<T>{nullptr, nullptr, nullptr, nullptr, s.channels, s.filters, s.height, s.width,
                              s.padding.top, s.padding.left, s.out_height(), s.out_width(),
                              (s.out_height() + kOut - 1) / kOut, (s.out_width() + kOut - 1) / kOut};
    count_ = s.batch * tiles_.tiles_high * tiles_.tiles_wide;
    bias_.assign(blocks * kWinogradFilterBlock, T(0));
    std::copy(a.bias.begin(), a.bias.end(), bias_.begin());
    transform_filters(s, a.weights, blocks);
    scratch_values_ = WinogradScratch<T>::values(s.channels);
    scratch_.resize(static_cast<std::size_t>(threads_) * scratch_values_);
    image_values_ = s.channels * s.height * s.width;
    plane_values_ = s.out_height() * s.out_width();
    batch_ = s.batch;
  }

  void run(const T* input, T* output) const override {
    // Each image's power of two; with any image or filter scaled, the tiles run on the scaled
    // images without the bias, and every output plane is scaled back and the bias added after.
    std::vector<int> images(batch_, 0);
    bool scaled = filters_scaled_;
    for (std::size_t n = 0; n < batch_; ++n) {
      images[n] = OperandScaling<T>::exponent(largest_magnitude(input + n * image_values_, image_values_, threads_),
                                              scaling_.images_low, scaling_.images_high);
      scaled = scaled || images[n] != 0;
    }
    std::vector<T> scaled_input, no_bias;
    if (scaled) {
      scaled_input.resize(batch_ * image_values_);
      for (std::size_t n = 0; n < batch_; ++n)
        PowerOfTwo<T>(images[n]).scale(input + n * image_values_, image_values_, scaled_input.data() + n * image_values_);
      no_bias.assign(bias_.size(), T(0));
    }
    WinogradTiles<T> t = tiles_;
    t.input = scaled ? scaled_input.data() : input;
    t.output = output;
    t.filters = u_.data();
    t.bias = scaled ? no_bias.data() : bias_.data();
    constexpr std::size_t group = WinogradScratch<T>::group;
    const long long groups = static_cast<long long>((count_ + group - 1) / group);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (threads_ > 1 && groups > 1)
    for (long long g = 0; g < groups; ++g) {
      const std::size_t first = static_cast<std::size_t>(g) * group;
      T* scratch = scratch_.data() + static_cast<std::size_t>(omp_get_thread_num()) * scratch_values_;
      winograd_tiles(t, first, std::min(group, count_ - first), scratch);
    }
    if (!scaled) return;
    const std::size_t K = tiles_.filter_count;
    for (std::size_t n = 0; n < batch_; ++n)
      for (std::size_t k = 0; k < K; ++k) {
        T* plane = output + (n * K + k) * plane_values_;
        PowerOfTwo<T>(-(images[n] + filters_[k])).scale_add(plane, plane_values_, bias_[k], plane);
      }
  }

 private:
  /// U[ξ][k][c] = (G·w[k,c]·Gᵀ)[ξ] with filter k's weights scaled by 2^filters_[k], per block
  /// of kWinogradFilterBlock filters as [ξ][c][filter of the block], zeros for the filters past K.
  void transform_filters(const Conv2dShape& s, std::span<const T> weights, std::size_t blocks) {
    const std::size_t K = s.filters, C = s.channels, B = kWinogradFilterBlock;
    u_.assign(blocks * B * kElements * C, T(0));
    filters_.assign(K, 0);
    for (std::size_t k = 0; k < K; ++k) {
      filters_[k] = OperandScaling<T>::exponent(largest_magnitude(weights.data() + k * C * 9, C * 9, 1),
                                                scaling_.weights_low, scaling_.weights_high);
      filters_scaled_ = filters_scaled_ || filters_[k] != 0;
      for (std::size_t c = 0; c < C; ++c) {
        double g[9], half[6 * 3], full[kElements];
        for (int i = 0; i < 9; ++i)
          g[i] = std::ldexp(static_cast<double>(weights[(k * C + c) * 9 + static_cast<std::size_t>(i)]), filters_[k]);
        for (std::size_t col = 0; col < 3; ++col) filter_transform_1d(g + col, 3, half + col, 3);  // G·g: 6×3
        for (std::size_t row = 0; row < kTile; ++row)
          filter_transform_1d(half + 3 * row, 1, full + kTile * row, 1);  // ·Gᵀ
        T* block = u_.data() + k / B * kElements * C * B;
        for (std::size_t e = 0; e < kElements; ++e) block[(e * C + c) * B + k % B] = static_cast<T>(full[e]);
      }
    }
  }

  WinogradTiles<T> tiles_;
  int threads_;
  OperandScaling<T> scaling_;
  std::size_t count_ = 0, scratch_values_ = 0;  // count_: tiles over the batch
  std::size_t image_values_ = 0, plane_values_ = 0, batch_ = 0;
  std::vector<T> bias_, u_;
  std::vector<int> filters_;  ///< filter k's power of two
  bool filters_scaled_ = false;
  mutable std::vector<T> scratch_;
};

}  // namespace

template <class T>
KernelPtr<T> make_winograd(const KernelArgs<T>& args) {
  if (args.shape.kernel_height != 3 || args.shape.kernel_width != 3)
    throw Error(ErrorCode::unsupported, "conv2d: winograd F(4x4, 3x3) computes 3x3 kernels only");
  return std::make_unique<Winograd<T>>(args);
}

template KernelPtr<float> make_winograd(const KernelArgs<float>&);
template KernelPtr<double> make_winograd(const KernelArgs<double>&);

}  // namespace fastconv::nn
