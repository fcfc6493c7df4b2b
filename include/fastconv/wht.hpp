// fastconv/wht.hpp — the fast Walsh–Hadamard transform.
//
// y[k] = Σₓ (−1)^popcount(h(k) & x) · x[x] for N = 2^n points, where h(k) = k in Hadamard
// (natural) order, the bit-reversed Gray code of k in sequency (Walsh) order and the
// bit-reversed k in Paley (dyadic) order. O(N log N) additions; no multiplications except
// the normalisation. Every ordered matrix is symmetric with W·W = N·I, so the inverse
// transform is the forward one with Normalization::inverse (1/N).
//
// Integers are exact: int32 and int64 data are transformed with integer arithmetic wide
// enough for the result; a result that does not fit the element type is an `overflow`
// Error and the data are left untouched. Floating-point results have the forward error
// |ŷ[k] − y[k]| ≤ n·u·Σ|x| (u = 2^-24 for float, 2^-53 for double; see docs/accuracy.md).
//
// 16-bit floats (float16, bfloat16 — e.g. the batched Hadamard rotations of LLM quantisation)
// are storage only: each value is loaded to float exactly, the transform and its normalisation
// run in float, and each result is rounded once, to nearest even, on store:
// |ŷ[k] − s·y[k]| ≤ (n+2)·2^-24·s·Σ|x| + u₁₆·|ŷ[k]| + ε₁₆ — the float bound with the scaling s
// done in float, plus the output rounding: u₁₆ = 2^-11 (float16) or 2^-8 (bfloat16), and
// ε₁₆ = 2^-25 or 2^-134 below the normal range. A float16 result beyond ±65504 is ±infinity.
// Every backend gives its float transform rounded once; the cuda backend's `fast` variant
// loads and stores the 16-bit values natively, the others convert cache-sized blocks of rows.
//
// Accumulation::float64 computes a float (or 16-bit) transform in double: the data are widened
// exactly, transformed and normalised in double (u₆₄ = 2^-53), and each result is rounded once
// to the element type: |ŷ[k] − s·y[k]| ≤ u_T·|s·y[k]| + (n+3)·2^-53·s·Σ|x| (u_T = 2^-24 float,
// 2^-11 float16, 2^-8 bfloat16; plus ε₁₆ below the 16-bit normal range): in effect one rounding
// of the exact result wherever (n+3)·2^-53·s·Σ|x| is small against u_T·|s·y[k]|. It costs the
// double transform's time plus a widened copy of cache-sized blocks of rows, and needs a backend
// with double precision (an OpenCL device without cl_khr_fp64 is an unsupported Error). double
// and integer data are unaffected.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>

#include "fastconv/backend.hpp"
#include "fastconv/error.hpp"
#include "fastconv/types.hpp"

namespace fastconv {

/// Order of the output coefficients.
enum class Order {
  hadamard,  ///< natural order: row k of the Kronecker power of [[1,1],[1,−1]]
  sequency,  ///< Walsh order: row k has exactly k sign changes
  paley,     ///< dyadic order: Hadamard row bit-reverse(k)
};

/// Scale applied to the result.
enum class Normalization {
  none,         ///< unnormalised (default)
  orthonormal,  ///< 1/√N: the transform is its own inverse
  inverse,      ///< 1/N: the inverse of the unnormalised transform
};

/// The precision a floating-point transform computes in.
enum class Accumulation {
  native,   ///< the element type's own (float16 and bfloat16: float) — the default
  float64,  ///< double, each result rounded once to the element type (float, float16, bfloat16;
            ///< double and integer data are unaffected)
};

struct WhtOptions {
  Order order = Order::hadamard;
  Normalization normalization = Normalization::none;
  Accumulation accumulation = Accumulation::native;
};

std::string_view to_string(Order order) noexcept;
std::string_view to_string(Normalization normalization) noexcept;
std::string_view to_string(Accumulation accumulation) noexcept;
/// "hadamard"|"natural", "sequency"|"walsh", "paley"|"dyadic".
std::optional<Order> parse_order(std::string_view name) noexcept;
/// "none", "orthonormal"|"ortho", "inverse".
std::optional<Normalization> parse_normalization(std::string_view name) noexcept;
/// "native", "float64"|"double".
std::optional<Accumulation> parse_accumulation(std::string_view name) noexcept;

/// log2 of `length` if it is a power of two (1, 2, 4, ...); otherwise an invalid_argument
/// Error saying `what` has a length that is not a power of two.
int log2_exact(std::size_t length, std::string_view what);

/// A WHT of 2^log2n points, planned once on a backend and executed many times.
///
/// Construction makes the expensive choices (kernels, scratch sizes); execute() does no
/// set-up work. One plan may be executed concurrently from several threads on different data.
///
/// Integer plans: Normalization::inverse (and ::orthonormal for even n) must divide every
/// result exactly, otherwise execute() throws invalid_argument and leaves the data untouched;
/// ::orthonormal for odd n cannot be exact and is rejected (unsupported) at construction.
template <TransformElement T>
class WhtPlan {
 public:
  /// Throws invalid_argument if log2n is outside [0, 48], unsupported as described above.
  explicit WhtPlan(int log2n, WhtOptions options = {}, Backend backend = Backend::best());
  ~WhtPlan();
  WhtPlan(WhtPlan&&) noexcept;
  WhtPlan& operator=(WhtPlan&&) noexcept;

  /// Transforms one array of exactly size() elements in place.
  void execute(std::span<T> data) const;
  /// Transforms a batch in place: `rows` rows of size() elements, row r starting at
  /// data[r · row_stride] (row_stride ≥ size()). `data` must cover every row.
  void execute(std::span<T> data, std::size_t rows, std::size_t row_stride) const;

  /// Transforms a batch that lives in the plan's device memory — a CUDA device pointer, e.g. a
  /// PyTorch or CuPy tensor's data — in place, with no copy through the host: `rows` rows of
  /// size() elements, row r at device_data + r · row_stride. The work is queued on `stream` (a
  /// cudaStream_t; nullptr = the legacy default stream) after what is already there, and is
  /// complete when the call returns. Only on the cuda backend (other backends compute on host
  /// memory: an unsupported Error), and only for floating-point types (exact integers check
  /// their range on the host); 16-bit floats need the `fast` variant and size() ≥ 8; a plan with
  /// Accumulation::float64 for float or 16-bit data is an unsupported Error (it widens on the host).
  void execute_device(T* device_data, std::size_t rows, std::size_t row_stride, void* stream = nullptr) const
    requires(!std::integral<T>);

  [[nodiscard]] int log2n() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept { return std::size_t{1} << log2n(); }
  [[nodiscard]] const WhtOptions& options() const noexcept;
  [[nodiscard]] const Backend& backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A contiguous range of a supported element type (std::vector, std::array, std::span, ...).
template <class R>
concept ElementRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                       Element<std::remove_cv_t<std::ranges::range_value_t<R>>>;

/// The same for the WHT, which also takes 16-bit floats.
template <class R>
concept TransformRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                         TransformElement<std::remove_cv_t<std::ranges::range_value_t<R>>>;

template <class R>
using element_t = std::remove_cv_t<std::ranges::range_value_t<R>>;

/// One-off WHT of `data` in place; its length must be a power of two.
template <TransformRange R>
void wht(R&& data, WhtOptions options = {}, Backend backend = Backend::best()) {
  std::span<element_t<R>> span(std::ranges::data(data), std::ranges::size(data));
  WhtPlan<element_t<R>>(log2_exact(span.size(), "WHT input"), options, std::move(backend))
      .execute(span);
}

/// One-off WHT of a batch of `rows` rows of `row_length` (a power of two) elements,
/// row r starting at data[r · row_stride].
template <TransformRange R>
void wht(R&& data, std::size_t rows, std::size_t row_length, std::size_t row_stride,
         WhtOptions options = {}, Backend backend = Backend::best()) {
  std::span<element_t<R>> span(std::ranges::data(data), std::ranges::size(data));
  WhtPlan<element_t<R>>(log2_exact(row_length, "WHT row"), options, std::move(backend))
      .execute(span, rows, row_stride);
}

}  // namespace fastconv
