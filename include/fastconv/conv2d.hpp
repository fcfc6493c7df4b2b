// fastconv/conv2d.hpp — forward 2-D convolution of neural networks (CPU and CUDA).
//
// What PyTorch's conv2d computes (a cross-correlation), stride 1, dilation 1:
//   out[n,k,i,j] = bias[k] + Σ_c Σ_u Σ_v in[n, c, i+u−top, j+v−left] · w[k,c,u,v]
// with in = 0 outside the image. Input NCHW (N·C·H·W), weights K·C·Kh·Kw, output
// N·K·Oh·Ow with Oh = H + top + bottom − Kh + 1 and Ow = W + left + right − Kw + 1, all
// row-major and contiguous. Padding may be asymmetric and larger than the kernel.
//
// Algorithms, each selectable by name and each giving the result of `direct` to rounding:
//   direct       the sum in register tiles (4 filters × 3 vectors of a row); threads over (n, row band)
//   im2col_gemm  im2col of row bands, then one BLAS GEMM per band
//   fft2d        zero-padded 2-D real FFTs (FFTW), channel sum per frequency, kernel spectra planned once;
//                with one channel (or one filter), each image goes from its transform through the
//                products to the inverse transforms in one thread's cache
//   winograd     F(4×4, 3×3) for 3×3 kernels only: transforms vectorised across tiles, the channel
//                sums in register tiles (4 filters × 24 tiles); threads over groups of 24 tiles
//   polyhankel   seed 002 (Xu et al., CGO 2025): the convolution as one polynomial product per
//                (image, channel) pair, computed with 1-D real FFTs whose length is chosen by measurement;
//                with large kernel spectra or long transforms, in row bands (overlap-save) whose
//                height is measured too
//   polyhankel_merged  seed 002's other option for several channels: an image's channels merged
//                into one polynomial (stacked, each with its padding rows), one FFT about C times
//                as long per image and per filter, the channel sum made by the product itself;
//                the paper found it slower and so does docs/benchmarks.md (auto does not race it)
//   auto_        the fastest of the applicable ones but polyhankel_merged, measured once per (shape, type, threads);
//                those whose work space does not fit in memory are left out, and without room
//                for the race's sample input and output, direct is taken unmeasured
//
// Backends: `cpu` computes every algorithm (threads: the backend's), `reference` computes
// `direct` on one thread (auto_ = direct), and `cuda` computes `polyhankel` with cuFFT
// (auto_ = polyhankel; bench/conv2d_cudnn.cpp compares it with every cuDNN algorithm). Other
// backends do not compute conv2d: an unsupported Error.
//
// direct and im2col_gemm round each output on the scale of its own Σ|x||w|. winograd rounds
// on the scale of its 4×4 output tile: its transforms mix the tile's 6×6 inputs (with factors
// up to 8), so an output is off by a small multiple of u·max Σ|x||w| over its tile, even where
// a large value of the tile is outside the output's own sum. An FFT spreads its rounding over
// all coefficients: fft2d and polyhankel are off by about log2(L)·u·max Σ|x||w| on every output
// of a plane, even one made of padding alone (u = 2^-24 for float, 2^-53 for double). An image
// or filter whose values lie beyond about 2^±50 (float; 2^±500 for double) is scaled by a power
// of two before the FFTs or winograd's tile transforms (each image and each filter by its own,
// and the outputs back), so that a plane's sums neither overflow nor underflow where the outputs
// fit: values anywhere in the type's range give these bounds (on the cpu backend; the cuda
// backend's polyhankel does not scale, and there a float plane whose sums pass 3.4e38 gives inf
// or NaN).
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastconv/backend.hpp"
#include "fastconv/error.hpp"

namespace fastconv {

/// Zero rows and columns added around each input image.
struct Padding {
  std::size_t top = 0, bottom = 0, left = 0, right = 0;
  /// The same padding on all four sides (PyTorch's padding=p).
  static constexpr Padding same_all(std::size_t p) noexcept { return {p, p, p, p}; }
  friend bool operator==(const Padding&, const Padding&) = default;
};

struct Conv2dShape {
  std::size_t batch = 1;     ///< N images
  std::size_t channels = 1;  ///< C input channels
  std::size_t height = 0, width = 0;
  std::size_t filters = 1;   ///< K output channels
  std::size_t kernel_height = 0, kernel_width = 0;
  Padding padding{};

  /// Output rows and columns; meaningful once validate() has passed.
  [[nodiscard]] std::size_t out_height() const noexcept;
  [[nodiscard]] std::size_t out_width() const noexcept;
  [[nodiscard]] std::size_t input_size() const noexcept;   ///< N·C·H·W
  [[nodiscard]] std::size_t weight_size() const noexcept;  ///< K·C·Kh·Kw
  [[nodiscard]] std::size_t output_size() const noexcept;  ///< N·K·Oh·Ow
  /// Throws invalid_argument (with the reason) for a zero dimension or an empty output.
  void validate() const;
  friend bool operator==(const Conv2dShape&, const Conv2dShape&) = default;
};

enum class Conv2dAlgorithm { auto_, direct, im2col_gemm, fft2d, winograd, polyhankel, polyhankel_merged };

/// "auto", "direct", "im2col_gemm", "fft2d", "winograd", "polyhankel", "polyhankel_merged".
std::string_view to_string(Conv2dAlgorithm algorithm) noexcept;
/// The names of to_string, "im2col-gemm" and "polyhankel-merged"; nullopt for anything else.
std::optional<Conv2dAlgorithm> parse_conv2d_algorithm(std::string_view name) noexcept;
/// Every algorithm's name, for messages: "auto, direct, …, polyhankel or polyhankel_merged".
std::string conv2d_algorithm_names();

/// The FFT library behind the cpu backend's fft2d and polyhankel, a build choice (FASTCONV_FFT):
/// FFTW's version string ("fftw-3.3.10-sse2-avx", naming its SIMD codelets) or
/// "Intel MKL 2026.2 (<the code path it runs on this CPU>)".
std::string conv2d_fft_library();

template <class T>
concept Conv2dElement = std::same_as<T, float> || std::same_as<T, double>;

/// Whether `algorithm` computes `shape`'s kind of convolution on the cpu backend (winograd: 3×3
/// kernels only; the others: always). Sizes are checked when a plan is made: an FFT longer than
/// the FFT library's (fft2d, polyhankel), or a GEMM dimension beyond BLAS's int (im2col_gemm),
/// is an unsupported Error there, and auto leaves that algorithm out.
bool conv2d_supports(Conv2dAlgorithm algorithm, const Conv2dShape& shape) noexcept;
/// The algorithms backend `backend_name` computes ("cpu": all; "reference": direct; "cuda":
/// polyhankel; others: none), auto_ first when there are any.
std::vector<Conv2dAlgorithm> conv2d_algorithms(std::string_view backend_name);
/// Throws unless backend `backend_name` ("auto" = cpu) computes `algorithm`, without opening a
/// device: invalid_argument for an unknown backend, unsupported (saying what it computes) for a
/// backend without conv2d or without that algorithm.
void check_conv2d_backend(std::string_view backend_name, Conv2dAlgorithm algorithm);

/// A convolution planned once for one shape and one set of weights, executed many times.
///
/// Construction copies and transforms the weights (kernel spectra, Winograd filter
/// transforms), makes FFT plans and allocates scratch; with Conv2dAlgorithm::auto_ it also
/// times every applicable algorithm on the shape, once per process for each
/// (shape, type, threads). It gives the planning of fft2d and polyhankel, together, 10 runs of
/// the fastest of direct, im2col_gemm and winograd, and at least 4 s, and leaves out the one
/// not planned by then (a transform or a timing under way finishes first; name either to plan
/// it in full). `threads` = 0: OpenMP's default. BLAS calls use OpenBLAS's own
/// thread count (OPENBLAS_NUM_THREADS). Work that does not fit in the memory this process may
/// use is refused before it is allocated (an out_of_memory Error), and an FFT longer than the
/// FFT library takes along one dimension (2^31 − 1 points) is unsupported.
///
/// execute() may be called from several threads on one plan; the calls share the plan's
/// scratch and run one after another.
template <Conv2dElement T>
class Conv2dPlan {
 public:
  /// `weights`: K·C·Kh·Kw values; `bias`: K values or empty (no bias). Throws
  /// invalid_argument for a bad shape or sizes, unsupported for an algorithm that cannot
  /// compute the shape (winograd with a kernel other than 3×3).
  Conv2dPlan(const Conv2dShape& shape, std::span<const T> weights, std::span<const T> bias = {},
             Conv2dAlgorithm algorithm = Conv2dAlgorithm::auto_, int threads = 0);
  /// The same on `backend` (see the top of this header): a cpu backend's threads are its own;
  /// an algorithm the backend does not compute, or a backend without conv2d, is an
  /// unsupported Error naming the ones it has. On cuda the weights' spectra are made on the
  /// device and stay there.
  Conv2dPlan(const Conv2dShape& shape, std::span<const T> weights, std::span<const T> bias,
             Conv2dAlgorithm algorithm, const Backend& backend);
  ~Conv2dPlan();
  Conv2dPlan(Conv2dPlan&&) noexcept;
  Conv2dPlan& operator=(Conv2dPlan&&) noexcept;

  /// `input`: shape().input_size() values; `output`: shape().output_size() values,
  /// overwritten. Other sizes are an invalid_argument Error.
  void execute(std::span<const T> input, std::span<T> output) const;

  /// The convolution of arrays that live in the plan's device memory — CUDA device pointers,
  /// e.g. PyTorch or CuPy tensors' data — with no copy through the host: `device_input` holds
  /// shape().input_size() values and `device_output` receives shape().output_size(), both
  /// contiguous NCHW. Queued on `stream` (a cudaStream_t; nullptr = the legacy default stream)
  /// after what is already there; complete when the call returns. Only on the cuda backend
  /// (an unsupported Error elsewhere).
  void execute_device(const T* device_input, T* device_output, void* stream = nullptr) const;

  /// The algorithm that runs: the one asked for, or the one auto_ chose.
  [[nodiscard]] Conv2dAlgorithm algorithm() const noexcept;
  [[nodiscard]] const Conv2dShape& shape() const noexcept;
  /// The backend it runs on (Backend::cpu(threads) for the constructor that takes threads).
  [[nodiscard]] const Backend& backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-off convolution: plans, executes once and returns the N·K·Oh·Ow output. The shape and
/// sizes are checked, and the output's memory, before the output is allocated (the errors of
/// Conv2dPlan and execute).
template <Conv2dElement T>
std::vector<T> conv2d(std::span<const T> input, std::span<const T> weights, std::span<const T> bias,
                      const Conv2dShape& shape, Conv2dAlgorithm algorithm = Conv2dAlgorithm::auto_,
                      int threads = 0);

/// The same on `backend`.
template <Conv2dElement T>
std::vector<T> conv2d(std::span<const T> input, std::span<const T> weights, std::span<const T> bias,
                      const Conv2dShape& shape, Conv2dAlgorithm algorithm, const Backend& backend);

}  // namespace fastconv
