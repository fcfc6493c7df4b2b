// src/nn/polyhankel.cpp — PolyHankel (seed 002, Xu et al., CGO 2025): a 2-D convolution as
// one product of polynomials, computed with 1-D real FFTs.
//
// With a row stride S ≥ W + max(left, right), the image is A(t) = Σ x[r,c]·t^(S·r + c)
// (Eq. 10 with S = W), the kernel U(t) = Σ w[u,v]·t^(c0 − S·u − v) with c0 = S·(Kh−1) + Kw−1,
// and output (i, j) is the coefficient of degree S·(i − top) + (j − left) + c0 of A·U. (Eq. 11
// as printed has −Oh−1 where −Ow belongs; we use the form above, checked against the
// definition.) The zeros between image rows are one row's right padding and the next one's
// left padding, so padding needs no padded copy. The product is taken modulo t^L − 1: any
// L ≥ polyhankel_min_length gives the exact outputs, since wrap-around lands only on degrees
// that are not read. L is chosen among even 2^a·3^b·5^c·7^d lengths by timing FFTW on them
// (its speed differs 3–4× between neighbouring lengths), once per shape in the process.
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "nn/spectral.hpp"

namespace fastconv::nn {

std::size_t polyhankel_row_stride(const Conv2dShape& s) noexcept {
  return s.width + std::max(s.padding.left, s.padding.right);
}

std::size_t polyhankel_min_length(const Conv2dShape& s) noexcept {
  const std::size_t S = polyhankel_row_stride(s);
  return std::max(S * (s.height + s.padding.bottom - 1) + s.width + s.padding.right,
                  S * (s.height + s.padding.top - 1) + s.width + s.padding.left);
}

namespace {

template <class T>
class PolynomialLayout {
 public:
  PolynomialLayout(const Conv2dShape& s, std::size_t length)
      : s_(s), stride_(polyhankel_row_stride(s)), length_(length),
        c0_(stride_ * (s.kernel_height - 1) + s.kernel_width - 1) {}

  std::vector<int> dims() const { return {static_cast<int>(length_)}; }

  /// Row r at degree S·r: the polynomial is written straight into the FFT's input.
  void place_input(const T* plane, T* real) const {
    for (std::size_t r = 0; r < s_.height; ++r)
      std::copy(plane + r * s_.width, plane + (r + 1) * s_.width, real + r * stride_);
  }

  /// Degrees beyond L wrap (the product is cyclic); taps that meet there add up.
  void place_kernel(const T* w, T scale, T* real) const {
    for (std::size_t u = 0; u < s_.kernel_height; ++u)
      for (std::size_t v = 0; v < s_.kernel_width; ++v)
        real[(c0_ - stride_ * u - v) % length_] += w[u * s_.kernel_width + v] * scale;
  }

  /// Row i of the output starts at degree S·(i − top) − left + c0, taken modulo L (it is
  /// negative when the top padding exceeds Kh−1).
  void extract(const T* real, T* out, T bias) const {
    const std::size_t Oh = s_.out_height(), Ow = s_.out_width();
    const auto L = static_cast<long long>(length_);
    for (std::size_t i = 0; i < Oh; ++i) {
      const long long degree = static_cast<long long>(stride_) * (static_cast<long long>(i) -
                                                                  static_cast<long long>(s_.padding.top)) -
                               static_cast<long long>(s_.padding.left) + static_cast<long long>(c0_);
      const auto start = static_cast<std::size_t>(((degree % L) + L) % L);
      const std::size_t run = std::min(Ow, length_ - start);  // before the wrap
      T* row = out + i * Ow;
      for (std::size_t j = 0; j < run; ++j) row[j] = real[start + j] + bias;
      for (std::size_t j = run; j < Ow; ++j) row[j] = real[start + j - length_] + bias;
    }
  }

 private:
  Conv2dShape s_;
  std::size_t stride_, length_, c0_;
};

/// Seconds per transform of `pair` (forward + inverse), the best of a few rounds.
template <class T>
double time_transforms(const RealFftPair<T>& pair) {
  AlignedArray<T> real(pair.real_size());
  AlignedArray<std::complex<T>> spectrum(pair.bins());
  for (std::size_t i = 0; i < real.size(); ++i) real[i] = T(i % 7);
  const int reps = static_cast<int>(std::max<std::size_t>(2, 400'000 / pair.real_size()));
  double best = 1e300;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
      pair.forward(real.data(), spectrum.data());
      pair.inverse(spectrum.data(), real.data());
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  return best;
}

/// Candidate lengths: the first few even 7-smooth numbers from L_min on (up to 1.5·L_min), and
/// the next power of two.
std::vector<std::size_t> candidate_lengths(std::size_t min_length) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = next_smooth(min_length, true); lengths.size() < 8 && n <= min_length + min_length / 2;
       n = next_smooth(n + 1, true))
    lengths.push_back(n);
  const std::size_t power = std::bit_ceil(min_length);
  if (std::find(lengths.begin(), lengths.end(), power) == lengths.end()) lengths.push_back(power);
  return lengths;
}

using LengthKey = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>;
std::mutex length_mutex;
std::map<LengthKey, std::size_t> chosen_lengths;

/// The length with the least modelled time: N·C forward and N·K inverse transforms as timed,
/// plus the channel sum, linear in L (N·K·C complex multiply-adds per bin at ~1 ns). The
/// candidates are timed with FFTW_ESTIMATE plans (milliseconds to make; FFTW_MEASURE takes
/// 0.1–2 s per length here); the winner is then planned with FFTW_MEASURE, whose ranking of
/// lengths this follows (e.g. 13230: 87 µs estimated, 70 measured; 16384: 55 and 43).
template <class T>
std::size_t choose_length(const Conv2dShape& s, int threads) {
  const std::size_t min_length = polyhankel_min_length(s);
  if (min_length < 2048) return next_smooth(min_length, true);  // too small for the choice to matter
  const LengthKey key{min_length, s.batch * s.channels, s.batch * s.filters, sizeof(T),
                      static_cast<std::size_t>(threads)};
  std::lock_guard lock(length_mutex);
  if (auto it = chosen_lengths.find(key); it != chosen_lengths.end()) return it->second;
  const double transforms = static_cast<double>(s.batch * (s.channels + s.filters)) / 2;
  const double macs_per_bin = static_cast<double>(s.batch * s.filters * s.channels);
  std::size_t best = 0;
  double best_cost = 1e300;
  for (std::size_t L : candidate_lengths(min_length)) {
    const RealFftPair<T> pair({static_cast<int>(L)}, FFTW_ESTIMATE);
    const double cost = time_transforms(pair) * transforms + static_cast<double>(L / 2 + 1) * macs_per_bin * 1e-9;
    if (cost < best_cost) best_cost = cost, best = L;
  }
  chosen_lengths.emplace(key, best);
  return best;
}

}  // namespace

template <class T>
KernelPtr<T> make_polyhankel(const KernelArgs<T>& args, std::size_t fft_length) {
  const Conv2dShape& s = args.shape;
  if (fft_length == 0) fft_length = choose_length<T>(s, args.threads);
  if (fft_length < polyhankel_min_length(s))
    throw Error(ErrorCode::invalid_argument, "conv2d polyhankel: FFT length " + std::to_string(fft_length) +
                                                 " is below the exact minimum " +
                                                 std::to_string(polyhankel_min_length(s)));
  return std::make_unique<SpectralConv<T, PolynomialLayout<T>>>(args, PolynomialLayout<T>(s, fft_length),
                                                                planner_flags(fft_length));
}

template KernelPtr<float> make_polyhankel(const KernelArgs<float>&, std::size_t);
template KernelPtr<double> make_polyhankel(const KernelArgs<double>&, std::size_t);

}  // namespace fastconv::nn
