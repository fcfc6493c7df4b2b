// src/nn/kernels.hpp — the conv2d algorithms behind Conv2dPlan, one factory each.
#pragma once

#include <omp.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>

#include "fastconv/conv2d.hpp"
#include "fastconv/error.hpp"

namespace fastconv::nn {

/// One planned algorithm: weights transformed, scratch sized. run() reads shape.input_size()
/// values and overwrites shape.output_size() values; the plan has checked the sizes and
/// serialises the calls, so a kernel may keep mutable scratch.
template <class T>
class Conv2dKernel {
 public:
  virtual ~Conv2dKernel() = default;
  virtual void run(const T* input, T* output) const = 0;
  /// The same on arrays in the backend's device memory, queued on `stream` (device backends).
  virtual void run_device(const T* /*input*/, T* /*output*/, void* /*stream*/) const {
    throw Error(ErrorCode::unsupported, "conv2d: execute_device needs a plan on the cuda backend");
  }
};

template <class T>
using KernelPtr = std::unique_ptr<Conv2dKernel<T>>;

/// The time auto gives an algorithm's planning (see measure_fastest in conv2d.cpp). A factory
/// that makes a timed choice (polyhankel's FFT length and bands, seconds on a large shape) calls
/// check() before each candidate it times and before its final FFT plan, and SpectralConv's
/// weight transforms stop at passed(); once the deadline has passed, Passed is thrown and the
/// algorithm leaves auto's race unbuilt. Passed is not an Error, so that the choices' Refusals
/// let it through, and a choice cut short is not cached.
class PlanDeadline {
 public:
  struct Passed {};
  explicit PlanDeadline(std::chrono::steady_clock::duration budget)
      : deadline_(std::chrono::steady_clock::now() + budget) {}
  [[nodiscard]] bool passed() const noexcept { return std::chrono::steady_clock::now() >= deadline_; }
  void check() const {
    if (passed()) throw Passed{};
  }

 private:
  std::chrono::steady_clock::time_point deadline_;
};

/// The arguments every factory takes: shape validated, weights K·C·Kh·Kw, bias K or empty.
template <class T>
struct KernelArgs {
  Conv2dShape shape;
  std::span<const T> weights;
  std::span<const T> bias;
  int threads;                            ///< > 0: resolved by the plan
  const PlanDeadline* deadline = nullptr;  ///< auto's limit on timed choices; none when null

  /// PlanDeadline::check() when there is a deadline.
  void check_deadline() const {
    if (deadline != nullptr) deadline->check();
  }
};

/// direct, register-blocked (the cpu backend's).
template <class T> KernelPtr<T> make_direct(const KernelArgs<T>& args);
/// direct as the plain loops, on one thread (the reference backend's).
template <class T> KernelPtr<T> make_direct_reference(const KernelArgs<T>& args);
template <class T> KernelPtr<T> make_im2col_gemm(const KernelArgs<T>& args);
template <class T> KernelPtr<T> make_fft2d(const KernelArgs<T>& args);
template <class T> KernelPtr<T> make_winograd(const KernelArgs<T>& args);
/// fft_length = 0: chosen by measurement (cached per shape); otherwise that length, which
/// must be at least polyhankel_min_length(shape, band_rows) (tests use it to check the bound).
/// band_rows: output rows per band (≥ Oh: no bands); 0: chosen by measurement when fft_length
/// is 0 (cached per shape), no bands otherwise. quick_plan: an estimated FFT plan, made in
/// milliseconds, even where a measured one would pay.
template <class T>
KernelPtr<T> make_polyhankel(const KernelArgs<T>& args, std::size_t fft_length = 0, std::size_t band_rows = 0,
                             bool quick_plan = false);
/// seed 002's merged channels: polyhankel of each image's channels stacked into one
/// (polyhankel_merged.cpp).
template <class T>
KernelPtr<T> make_polyhankel_merged(const KernelArgs<T>& args);

/// Row stride S of the polynomial: the image rows with at least max(left, right) zeros
/// between them, which serve as one row's right padding and the next row's left padding.
std::size_t polyhankel_row_stride(const Conv2dShape& shape) noexcept;
/// The shortest cyclic length L that gives exact outputs: wrap-around lands only on
/// discarded degrees when L ≥ max(S·(H+bottom−1) + W+right, S·(H+top−1) + W+left). With
/// bands of `band_rows` output rows (< Oh), the largest such bound over the bands, each band
/// taken as a convolution of its own input rows and the padding it meets.
std::size_t polyhankel_min_length(const Conv2dShape& shape, std::size_t band_rows = SIZE_MAX) noexcept;

/// bias[k], or 0 without a bias.
template <class T>
T bias_of(std::span<const T> bias, std::size_t k) noexcept {
  return bias.empty() ? T(0) : bias[k];
}

inline int resolve_threads(int threads) noexcept { return threads > 0 ? threads : omp_get_max_threads(); }

/// The candidates a measured choice (auto's race of the algorithms, polyhankel's FFT length and
/// bands) could not make: those refused for memory (out_of_memory, or std::bad_alloc) or for an
/// FFT beyond the library's extents (unsupported) are left out while the others are measured;
/// when none is left, the first refusal is the choice's error.
class Refusals {
 public:
  /// Runs `make`: true when it returned; false when it was refused (kept when it is the first).
  /// Other Errors pass through.
  template <class Make>
  bool made(Make&& make) {
    try {
      make();
      return true;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::out_of_memory && e.code() != ErrorCode::unsupported) throw;
      if (!first_) first_.emplace(e);
      return false;
    } catch (const std::bad_alloc&) {  // scratch below the size that is checked first
      if (!first_) first_.emplace(ErrorCode::out_of_memory, "conv2d: out of memory for a candidate's scratch");
      return false;
    }
  }

  /// Throws the first refusal; called when every candidate was refused.
  [[noreturn]] void rethrow_first() const {
    if (!first_) throw std::logic_error("conv2d: a choice found no candidate and none was refused");
    throw *first_;
  }

 private:
  std::optional<Error> first_;
};

}  // namespace fastconv::nn
