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
//
// Row bands (overlap-save): when the kernel spectra (K·C·L/2 complex values) are large, or the
// transform too long for a measured FFTW plan, the output is computed in bands of rows, one
// after another, each from the Kh − 1 + rows input rows it needs, as a convolution of its own
// with the padding it meets. Every band takes the same L, the largest band minimum, so one set
// of kernel spectra serves them all; the spectra and the per-band arrays shrink with the band,
// at the cost of the overlapping rows. The band height is chosen by timing whole runs, once per
// shape in the process.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include "core/memory.hpp"
#include "nn/spectral.hpp"

namespace fastconv::nn {

std::size_t polyhankel_row_stride(const Conv2dShape& s) noexcept {
  return s.width + std::max(s.padding.left, s.padding.right);
}

namespace {

/// Output rows [out_first, out_first + out_rows) of a band, from image rows [first, first + rows)
/// (none when the band's window lies in the padding), `top` rows below the window's top.
struct Band {
  std::size_t out_first, out_rows, first, rows, top;
};

std::vector<Band> bands_of(const Conv2dShape& s, std::size_t band_rows) {
  std::vector<Band> bands;
  const std::size_t Oh = s.out_height(), top = s.padding.top;
  for (std::size_t i0 = 0; i0 < Oh; i0 += band_rows) {
    Band b{i0, std::min(band_rows, Oh - i0), 0, 0, 0};
    // The window: padded rows [i0, i0 + out_rows + Kh − 1); image row y is padded row y + top.
    const std::size_t lo = std::max(i0, top), hi = std::min(i0 + b.out_rows + s.kernel_height - 1, top + s.height);
    if (hi > lo) b = {b.out_first, b.out_rows, lo - top, hi - lo, lo - i0};
    bands.push_back(b);
  }
  return bands;
}

/// The band as a convolution of its own: its image rows, the padding its window meets.
Conv2dShape band_shape(const Conv2dShape& s, const Band& b) {
  Conv2dShape sub = s;
  sub.height = b.rows;
  sub.padding.top = b.top;
  sub.padding.bottom = b.out_rows + s.kernel_height - 1 - b.top - b.rows;
  return sub;
}

}  // namespace

std::size_t polyhankel_min_length(const Conv2dShape& s, std::size_t band_rows) noexcept {
  const std::size_t S = polyhankel_row_stride(s);
  if (band_rows < s.out_height()) {
    std::size_t longest = 1;
    for (const Band& b : bands_of(s, band_rows))
      if (b.rows > 0) longest = std::max(longest, polyhankel_min_length(band_shape(s, b)));
    return longest;
  }
  return std::max(S * (s.height + s.padding.bottom - 1) + s.width + s.padding.right,
                  S * (s.height + s.padding.top - 1) + s.width + s.padding.left);
}

namespace {

template <class T>
class PolynomialLayout {
 public:
  PolynomialLayout(const Conv2dShape& s, std::size_t length, std::size_t band_rows)
      : s_(s), stride_(polyhankel_row_stride(s)), length_(length),
        c0_(stride_ * (s.kernel_height - 1) + s.kernel_width - 1), bands_(bands_of(s, band_rows)) {
    for (const Band& b : bands_) most_rows_ = std::max(most_rows_, b.rows);
  }

  static constexpr std::string_view name = "polyhankel";
  std::vector<std::size_t> dims() const { return {length_}; }
  std::size_t bands() const { return bands_.size(); }

  /// The band's row r at degree S·r: the polynomial is written straight into the FFT's input.
  /// Rows a taller band wrote before are cleared.
  void place_input(const T* plane, std::size_t band, T* real, const PowerOfTwo<T>& scale) const {
    const Band& b = bands_[band];
    for (std::size_t r = 0; r < b.rows; ++r) scale.scale(plane + (b.first + r) * s_.width, s_.width, real + r * stride_);
    for (std::size_t r = b.rows; r < most_rows_; ++r) std::fill(real + r * stride_, real + r * stride_ + s_.width, T(0));
  }

  /// Degrees beyond L wrap (the product is cyclic); taps that meet there add up.
  void place_kernel(const T* w, T scale, T* real) const {
    for (std::size_t u = 0; u < s_.kernel_height; ++u)
      for (std::size_t v = 0; v < s_.kernel_width; ++v)
        real[(c0_ - stride_ * u - v) % length_] += w[u * s_.kernel_width + v] * scale;
  }

  /// The band's output row i starts at degree S·(i − top) − left + c0, taken modulo L (it is
  /// negative when the band's top padding exceeds Kh−1).
  void extract(const T* real, std::size_t band, T* out, T bias, const PowerOfTwo<T>& scale) const {
    const Band& b = bands_[band];
    const std::size_t Ow = s_.out_width();
    const auto L = static_cast<long long>(length_);
    for (std::size_t i = 0; i < b.out_rows; ++i) {
      const long long degree = static_cast<long long>(stride_) * (static_cast<long long>(i) -
                                                                  static_cast<long long>(b.top)) -
                               static_cast<long long>(s_.padding.left) + static_cast<long long>(c0_);
      const auto start = static_cast<std::size_t>(((degree % L) + L) % L);
      const std::size_t run = std::min(Ow, length_ - start);  // before the wrap
      T* row = out + (b.out_first + i) * Ow;
      scale.scale_add(real + start, run, bias, row);
      if (run < Ow) scale.scale_add(real + (start + run - length_), Ow - run, bias, row + run);
    }
  }

 private:
  Conv2dShape s_;
  std::size_t stride_, length_, c0_;
  std::vector<Band> bands_;
  std::size_t most_rows_ = 0;  // image rows of the tallest band
};

/// Seconds per transform of `pair` (forward + inverse), the best of up to three rounds of about
/// 400 000 points' worth (one transform at least); one round once a round takes over 50 ms,
/// where noise is small beside the time (a transform of 144 million points takes seconds).
template <class T>
double time_transforms(const RealFftPair<T>& pair) {
  AlignedArray<T> real(pair.real_size());
  AlignedArray<std::complex<T>> spectrum(pair.bins());
  for (std::size_t i = 0; i < real.size(); ++i) real[i] = T(i % 7);
  const int reps = static_cast<int>(std::max<std::size_t>(1, 400'000 / pair.real_size()));
  double best = 1e300;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
      pair.forward(real.data(), spectrum.data());
      pair.inverse(spectrum.data(), real.data());
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
    if (best * reps > 0.05) break;
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
/// time_transforms' result per (L, sizeof(T)): the choices for a shape's band heights share most
/// of their candidates (at 8002x8002 outputs the whole and two bands timed the same nine
/// lengths of 16 million points, 9 s each time).
std::map<std::pair<std::size_t, std::size_t>, double> timed_lengths;

/// The length with the least modelled time: N·C forward and N·K inverse transforms as timed,
/// plus the channel sum, linear in L (N·K·C complex multiply-adds per bin at ~1 ns). The
/// candidates are timed with quick plans (FFTW_ESTIMATE, made in milliseconds, where FFTW_MEASURE
/// takes 0.1–2 s per length here; MKL has one kind, made in milliseconds); the winner is then
/// planned with fft_planning(L), FFTW_MEASURE where that pays, whose ranking of lengths this
/// follows (e.g. 13230: 87 µs estimated, 70 measured; 16384: 55 and 43). Each length is timed
/// once per process (timed_lengths).
template <class T>
std::size_t choose_length(const KernelArgs<T>& args, std::size_t min_length) {
  if (min_length < 2048) return next_smooth(min_length, true);  // too small for the choice to matter
  const Conv2dShape& s = args.shape;
  const LengthKey key{min_length, s.batch * s.channels, s.batch * s.filters, sizeof(T),
                      static_cast<std::size_t>(args.threads)};
  std::lock_guard lock(length_mutex);
  if (auto it = chosen_lengths.find(key); it != chosen_lengths.end()) return it->second;
  const double transforms = static_cast<double>(s.batch * (s.channels + s.filters)) / 2;
  const double macs_per_bin = static_cast<double>(s.batch * s.filters * s.channels);
  std::size_t best = 0;
  double best_cost = 1e300;
  Refusals refusals;  // a length whose arrays do not fit, or beyond the FFT library's, is left out
  for (std::size_t L : candidate_lengths(min_length)) {
    double& seconds = timed_lengths[{L, sizeof(T)}];  // 0: not timed yet
    if (seconds == 0) args.check_deadline();
    if (seconds == 0 && !refusals.made([&] { seconds = time_transforms(RealFftPair<T>({L}, FftPlanning::quick)); }))
      continue;
    const double cost = seconds * transforms + static_cast<double>(L / 2 + 1) * macs_per_bin * 1e-9;
    if (cost < best_cost) best_cost = cost, best = L;
  }
  if (best == 0) refusals.rethrow_first();
  chosen_lengths.emplace(key, best);
  return best;
}

/// The kernel for `band_rows` (≥ Oh: no bands) at `fft_length` (0: chosen).
template <class T>
KernelPtr<T> polyhankel_kernel(const KernelArgs<T>& args, std::size_t fft_length, std::size_t band_rows,
                               std::optional<FftPlanning> planning, KernelSpectra spectra) {
  const Conv2dShape& s = args.shape;
  const std::size_t min_length = polyhankel_min_length(s, band_rows);
  check_fft_extent(min_length);  // said once, not as every candidate length's refusal
  // At the shortest length too, before candidate lengths are timed (seconds each when long).
  SpectralConv<T, PolynomialLayout<T>>::check_work_space(PolynomialLayout<T>(s, min_length, band_rows), args);
  if (fft_length == 0) fft_length = choose_length(args, min_length);
  if (fft_length < min_length)
    throw Error(ErrorCode::invalid_argument, "conv2d polyhankel: FFT length " + std::to_string(fft_length) +
                                                 " is below the exact minimum " + std::to_string(min_length));
  args.check_deadline();  // before the FFT plan: a measured one takes up to 2 s
  return std::make_unique<SpectralConv<T, PolynomialLayout<T>>>(
      args, PolynomialLayout<T>(s, fft_length, band_rows), planning.value_or(fft_planning(fft_length)), spectra);
}

using BandKey = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,
                           std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, int>;
std::mutex band_mutex;
std::map<BandKey, std::size_t> chosen_band_rows;

/// Kernel spectra beyond this size are worth trying bands for (the development VMs: 0.5–1 MiB
/// of L2 per core, 32–36 MiB of L3 shared).
constexpr std::size_t kBandSpectraBytes = std::size_t{8} << 20;

/// choose_band_rows stops trying taller bands once one runs this many times as long as the
/// fastest so far.
constexpr double kBandStop = 1.5;

/// The band height: the whole output when the kernel spectra are small and the transform short
/// enough for a measured FFTW plan; otherwise the fastest of 16, 8, 4, 2 and 1 bands (no band
/// shorter than 2·(Kh − 1) rows, where the overlap would exceed half), each timed on a sample
/// input with FFTW_ESTIMATE plans (best of 3 runs, or one run over 0.2 s; with measured plans
/// for every candidate, planning 224², C = K = 1 took 13.6 s during a concurrent build, against
/// 1.1 s idle now). The candidates have zero kernel spectra, not the weights' (KernelSpectra):
/// their K·C transforms cost more than the runs on large shapes. Heights whose work space does
/// not fit in memory, or whose FFT is beyond the library's, are left out.
/// The fewest bands within 5 % of the fastest are chosen: on a machine whose cache holds the
/// spectra, more bands only add overlap, and the timings differ by noise. Bands that bring a
/// long transform under kLongestMeasuredFft get a measured plan, and a transform that fits in
/// L2: at 224², 5×5, C = K = 1 (L = 50 176) 16 bands of 14 rows were 1.3× faster than none (one
/// 2-thread run, minima of 30 alternating calls).
/// The most bands are timed first, and once a height runs kBandStop times as long as the
/// fastest, the taller ones are not tried: their spectra and transforms only grow, and on large
/// shapes they cost the most to try (1024², C = K = 32: 4.4 GB of spectra and 6 s to build the
/// whole output's; 8002² outputs: the two tallest heights' lengths of 16 million points, 8.6 s
/// to time). Over eleven shapes the times by height were flat or rough (±40 % between
/// neighbours); the heights this stop would have left out there were none faster than the
/// fastest one tried (docs/benchmarks.md).
template <class T>
std::size_t choose_band_rows(const KernelArgs<T>& args) {
  const Conv2dShape& s = args.shape;
  const std::size_t Oh = s.out_height(), min_length = polyhankel_min_length(s);
  const std::size_t spectra = s.filters * s.channels * (min_length / 2 + 1) * 2 * sizeof(T);
  if (spectra <= kBandSpectraBytes && min_length <= kLongestMeasuredFft) return Oh;
  const BandKey key{s.batch, s.channels, s.height, s.width, s.filters, s.kernel_height, s.kernel_width,
                    s.padding.top, s.padding.bottom, s.padding.left, s.padding.right, sizeof(T), args.threads};
  std::lock_guard lock(band_mutex);
  if (auto it = chosen_band_rows.find(key); it != chosen_band_rows.end()) return it->second;
  // The heights to try: none shorter than 2·(Kh − 1) rows, where the overlap would exceed half,
  // and none whose FFT is beyond the library's, refused here when that leaves none (before the
  // sample arrays are allocated).
  std::vector<std::size_t> heights;
  std::size_t shortest = SIZE_MAX;
  for (std::size_t bands : {1, 2, 4, 8, 16}) {
    const std::size_t rows = (Oh + bands - 1) / bands;
    if (bands > 1 && rows < 2 * (s.kernel_height - 1)) break;
    const std::size_t length = polyhankel_min_length(s, rows);
    shortest = std::min(shortest, length);
    if (length <= kLongestFftExtent) heights.push_back(rows);
  }
  if (heights.empty()) check_fft_extent(shortest);
  detail::require_elements(s.input_size() + s.output_size(), sizeof(T),
                           "conv2d polyhankel: the sample data it times its bands on (an input and an output)");
  std::vector<T> input(s.input_size()), output(s.output_size());
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = T(static_cast<int>(i % 13) - 6) / T(6);
  std::vector<std::pair<std::size_t, double>> timed;  // (rows, seconds)
  double fastest = 1e300;
  Refusals refusals;  // bands whose arrays do not fit are left out
  // (std::ranges' reverse view does not build with Clang 14 over libstdc++ 12: the sanitizer build)
  for (auto height = heights.rbegin(); height != heights.rend(); ++height) {
    const std::size_t rows = *height;
    args.check_deadline();
    KernelPtr<T> kernel;
    if (!refusals.made([&] {
          kernel = polyhankel_kernel(args, 0, rows, FftPlanning::quick, KernelSpectra::zeros_for_timing);
        }))
      continue;
    kernel->run(input.data(), output.data());  // first touch of its arrays
    double seconds = 1e300;
    for (int round = 0; round < 3; ++round) {
      args.check_deadline();
      const auto start = std::chrono::steady_clock::now();
      kernel->run(input.data(), output.data());
      seconds = std::min(seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (seconds > 0.2) break;  // one round decides a long run
    }
    timed.emplace_back(rows, seconds);
    fastest = std::min(fastest, seconds);
    if (seconds > kBandStop * fastest) break;
  }
  if (timed.empty()) refusals.rethrow_first();
  std::size_t best = 0;
  for (const auto& [rows, seconds] : timed)
    if (0.95 * seconds <= fastest) best = std::max(best, rows);
  chosen_band_rows.emplace(key, best);
  return best;
}

}  // namespace

template <class T>
KernelPtr<T> make_polyhankel(const KernelArgs<T>& args, std::size_t fft_length, std::size_t band_rows,
                             bool quick_plan) {
  if (band_rows == 0) band_rows = fft_length == 0 ? choose_band_rows(args) : args.shape.out_height();
  return polyhankel_kernel(args, fft_length, band_rows, quick_plan ? std::optional(FftPlanning::quick) : std::nullopt,
                           KernelSpectra::of_weights);
}

template KernelPtr<float> make_polyhankel(const KernelArgs<float>&, std::size_t, std::size_t, bool);
template KernelPtr<double> make_polyhankel(const KernelArgs<double>&, std::size_t, std::size_t, bool);

}  // namespace fastconv::nn
