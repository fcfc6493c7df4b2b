// fastconv/dyadic.hpp — dyadic (XOR) convolution, correlation and deconvolution.
//
// C(τ) = Σₓ f(x)·g(x ⊕ τ), τ = 0 … N−1 (seed 001, eq. 1), computed through the convolution
// theorem C = N⁻¹·W((W·f) ⊙ (W·g)) in O(N log N). Because ⊕ is its own inverse, dyadic
// correlation Σₓ f(x)·g(x ⊕ τ) is the very same sum: correlate() is convolve().
//
// Lengths must be powers of two; operands of different lengths are zero-padded to the longer
// (the shorter one's spectrum is reused, never recomputed at the longer size).
//
// Integers are exact: int32/int64 results are computed with integer arithmetic wide enough
// for the result (64-bit, or 128-bit when bounds require it) and an output that does not fit
// the element type is an `overflow` Error, never wrapped. Floating-point results satisfy
// |Ĉ(τ) − C(τ)| ≤ (3n+2)·u·‖f‖₂·‖g‖₂ (u = 2^-24 float, 2^-53 double; docs/accuracy.md).
//
// DyadicOptions{.accumulation = Accumulation::float64} computes float operations in double: the
// operands are widened exactly, everything runs in double and each result is rounded once to
// float: |Ĉ(τ) − C(τ)| ≤ 2^-24·|C(τ)| + (3n+2)·2^-53·‖f‖₂·‖g‖₂. It costs double transforms and
// widened copies of the operands and the result, and needs a backend with double precision (an
// OpenCL device without cl_khr_fp64 is an unsupported Error). double and integer data are
// unaffected.
#pragma once

#include <algorithm>
#include <concepts>
#include <memory>
#include <span>
#include <vector>

#include "fastconv/backend.hpp"
#include "fastconv/wht.hpp"

namespace fastconv {

/// How the dyadic operations compute.
struct DyadicOptions {
  /// Accumulation::float64: float data computed in double, each result rounded once (above).
  Accumulation accumulation = Accumulation::native;
};

namespace detail {
template <Element T>
void convolve(std::span<const T> f, std::span<const T> g, std::span<T> out, const DyadicOptions& options,
              const Backend& backend);
template <Element T>
void autocorrelate(std::span<const T> f, std::span<T> out, const DyadicOptions& options, const Backend& backend);
template <Element T>
std::vector<T> deconvolve(std::span<const T> y, std::span<const T> h, const DyadicOptions& options,
                          const Backend& backend);

template <class R>
std::span<const element_t<R>> as_span(const R& r) {
  return {std::ranges::data(r), std::ranges::size(r)};
}
}  // namespace detail

/// Dyadic convolution C(τ) = Σₓ f(x)·g(x ⊕ τ); length max(|f|, |g|). O(N log N).
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
std::vector<element_t<F>> convolve(const F& f, const G& g, DyadicOptions options,
                                   const Backend& backend = Backend::best()) {
  std::vector<element_t<F>> out(std::max(std::ranges::size(f), std::ranges::size(g)));
  detail::convolve(detail::as_span(f), detail::as_span(g), std::span(out), options, backend);
  return out;
}
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
std::vector<element_t<F>> convolve(const F& f, const G& g, const Backend& backend = Backend::best()) {
  return convolve(f, g, DyadicOptions{}, backend);
}

/// The same, into `out` (exactly max(|f|, |g|) elements; it may be f or g itself). Nothing is
/// allocated for the result (but the widened copies of Accumulation::float64), and on an error
/// `out` is left as it was, except where it is f or g.
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
void convolve(const F& f, const G& g, std::span<element_t<F>> out, DyadicOptions options,
              const Backend& backend = Backend::best()) {
  detail::convolve(detail::as_span(f), detail::as_span(g), out, options, backend);
}
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
void convolve(const F& f, const G& g, std::span<element_t<F>> out, const Backend& backend = Backend::best()) {
  convolve(f, g, out, DyadicOptions{}, backend);
}

/// Dyadic correlation Σₓ f(x)·g(x ⊕ τ) — identical to convolve() on the dyadic group.
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
std::vector<element_t<F>> correlate(const F& f, const G& g, DyadicOptions options,
                                    const Backend& backend = Backend::best()) {
  return convolve(f, g, options, backend);
}
template <ElementRange F, ElementRange G>
  requires std::same_as<element_t<F>, element_t<G>>
std::vector<element_t<F>> correlate(const F& f, const G& g, const Backend& backend = Backend::best()) {
  return convolve(f, g, DyadicOptions{}, backend);
}

/// Dyadic autocorrelation R(τ) = Σₓ f(x)·f(x ⊕ τ) = N⁻¹·W((W·f)²); one forward transform.
template <ElementRange F>
std::vector<element_t<F>> autocorrelate(const F& f, DyadicOptions options, const Backend& backend = Backend::best()) {
  std::vector<element_t<F>> out(std::ranges::size(f));
  detail::autocorrelate(detail::as_span(f), std::span(out), options, backend);
  return out;
}
template <ElementRange F>
std::vector<element_t<F>> autocorrelate(const F& f, const Backend& backend = Backend::best()) {
  return autocorrelate(f, DyadicOptions{}, backend);
}

/// The same, into `out` (exactly |f| elements; it may be f itself).
template <ElementRange F>
void autocorrelate(const F& f, std::span<element_t<F>> out, DyadicOptions options,
                   const Backend& backend = Backend::best()) {
  detail::autocorrelate(detail::as_span(f), out, options, backend);
}
template <ElementRange F>
void autocorrelate(const F& f, std::span<element_t<F>> out, const Backend& backend = Backend::best()) {
  autocorrelate(f, out, DyadicOptions{}, backend);
}

/// System identification: the f with convolve(f, h) == y, i.e. f = N⁻¹·W((W·y) ⊘ (W·h)).
/// A (numerically) zero coefficient of h's Walsh spectrum makes the system singular: an
/// invalid_argument Error names its index. Floating point: a coefficient counts as zero when
/// |(W·h)(k)| ≤ 2·n·u·‖h‖₁, the rounding error it may carry. Integers: exact; if y is not the
/// convolution of h with an integer signal the result is not an integer and the Error says so
/// (use a floating-point type). With Accumulation::float64 a float deconvolution runs in double,
/// the threshold included (2·n·2^-53·‖h‖₁), and each result is rounded once to float.
template <ElementRange Y, ElementRange H>
  requires std::same_as<element_t<Y>, element_t<H>>
std::vector<element_t<Y>> deconvolve(const Y& y, const H& h, DyadicOptions options,
                                     const Backend& backend = Backend::best()) {
  return detail::deconvolve(detail::as_span(y), detail::as_span(h), options, backend);
}
template <ElementRange Y, ElementRange H>
  requires std::same_as<element_t<Y>, element_t<H>>
std::vector<element_t<Y>> deconvolve(const Y& y, const H& h, const Backend& backend = Backend::best()) {
  return deconvolve(y, h, DyadicOptions{}, backend);
}

/// A dyadic linear translation-invariant system y = h ⊛ x, built once from its impulse
/// response h: the spectrum W·h is computed and kept (on the backend's device), so each
/// apply() costs two transforms instead of three. apply() may run concurrently. With
/// Accumulation::float64 a float system keeps h's spectrum in double and computes each apply()
/// in double, rounding each result once to float.
// --- Arrays in device memory ------------------------------------------------------------------
// The cuda backend also computes on arrays that already live on its device (a CUDA tensor's
// data), with no copy through the host. The operations below are the ones above with device
// pointers: the work is queued on `stream` (a cudaStream_t; nullptr = the legacy default
// stream) after what is already there, and is complete when the call returns. Floating point
// only (exact integers check their range on the host); other backends compute on host memory
// and refuse device arrays (an unsupported Error).

/// `size` elements of T at `data`, a pointer into a device backend's memory.
template <class T>
struct DeviceArray {
  T* data = nullptr;
  std::size_t size = 0;
};

namespace detail {
template <std::floating_point T>
void convolve_device(DeviceArray<const T> f, DeviceArray<const T> g, DeviceArray<T> out, const Backend& backend,
                     void* stream);
template <std::floating_point T>
void autocorrelate_device(DeviceArray<const T> f, DeviceArray<T> out, const Backend& backend, void* stream);
template <std::floating_point T>
void deconvolve_device(DeviceArray<const T> y, DeviceArray<const T> h, DeviceArray<T> out, const Backend& backend,
                       void* stream);
}  // namespace detail

/// out = f ⊛ g on the device (out: max(|f|, |g|) elements, distinct from f and g).
template <std::floating_point T>
void convolve(DeviceArray<const T> f, DeviceArray<const T> g, DeviceArray<T> out, const Backend& backend,
              void* stream = nullptr) {
  detail::convolve_device(f, g, out, backend, stream);
}
/// out = f ⋆ f on the device (out: |f| elements; it may be f itself).
template <std::floating_point T>
void autocorrelate(DeviceArray<const T> f, DeviceArray<T> out, const Backend& backend, void* stream = nullptr) {
  detail::autocorrelate_device(f, out, backend, stream);
}
/// The f with f ⊛ h = y, on the device (out: max(|y|, |h|) elements, distinct from h).
template <std::floating_point T>
void deconvolve(DeviceArray<const T> y, DeviceArray<const T> h, DeviceArray<T> out, const Backend& backend,
                void* stream = nullptr) {
  detail::deconvolve_device(y, h, out, backend, stream);
}

template <Element T>
class DyadicSystem {
 public:
  explicit DyadicSystem(std::span<const T> impulse_response, Backend backend = Backend::best());
  DyadicSystem(std::span<const T> impulse_response, DyadicOptions options, Backend backend = Backend::best());
  ~DyadicSystem();
  DyadicSystem(DyadicSystem&&) noexcept;
  DyadicSystem& operator=(DyadicSystem&&) noexcept;

  /// y = h ⊛ x, of length max(size(), |x|).
  [[nodiscard]] std::vector<T> apply(std::span<const T> input) const;
  /// The same, into `output` (exactly max(size(), |x|) elements).
  void apply(std::span<const T> input, std::span<T> output) const;
  /// The same on arrays in the cuda backend's device memory (see DeviceArray below); not with
  /// Accumulation::float64 on float data (which widens on the host: an unsupported Error).
  void apply_device(DeviceArray<const T> input, DeviceArray<T> output, void* stream = nullptr) const
    requires std::floating_point<T>;

  /// Length of the impulse response.
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] const DyadicOptions& options() const noexcept;
  [[nodiscard]] const Backend& backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <ElementRange R>
DyadicSystem(const R&) -> DyadicSystem<element_t<R>>;
template <ElementRange R>
DyadicSystem(const R&, Backend) -> DyadicSystem<element_t<R>>;
template <ElementRange R>
DyadicSystem(const R&, DyadicOptions) -> DyadicSystem<element_t<R>>;
template <ElementRange R>
DyadicSystem(const R&, DyadicOptions, Backend) -> DyadicSystem<element_t<R>>;

}  // namespace fastconv
