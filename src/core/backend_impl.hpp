// src/core/backend_impl.hpp — the one interface every backend implements.
//
// Backends work on "words": the element types the kernels compute in. Floating-point data
// are transformed as themselves; integer data are transformed in the wrapping rings
// Z/2^32, Z/2^64 or Z/2^128 (uint32/uint64/unsigned __int128). The WHT and the dyadic
// convolution use only +, − and ×, which commute with reduction mod 2^w, so a ring result is
// the exact integer result whenever that result fits w bits signed — the front end
// (src/core/wht.cpp, dyadic.cpp) picks the ring from a bound on the result and does the
// exact division and range checks. Backends never see an int32_t or int64_t.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastconv/wht.hpp"
#include "nn/kernels.hpp"

namespace fastconv::detail {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

enum class Word { f32, f64, u32, u64, u128 };

template <class W>
inline constexpr Word word_of = std::is_same_v<W, float>           ? Word::f32
                                : std::is_same_v<W, double>        ? Word::f64
                                : std::is_same_v<W, std::uint32_t> ? Word::u32
                                : std::is_same_v<W, std::uint64_t> ? Word::u64
                                                                   : Word::u128;

/// 16-bit floating-point words (float16, bfloat16): stored in 16 bits, computed in float.
/// Kept apart from Word because no backend transforms them as themselves: a kernel for one
/// (make_wht16) loads to float and rounds on store, and backends without such kernels need
/// not know the type exists (the front end converts blocks of rows to float for their f32
/// kernel: core/wht16.hpp).
enum class Word16 { f16, bf16 };

template <class T>
inline constexpr Word16 word16_of = std::is_same_v<T, float16> ? Word16::f16 : Word16::bf16;

constexpr bool is_float(Word w) noexcept { return w == Word::f32 || w == Word::f64; }
constexpr std::size_t size_of(Word w) noexcept {
  switch (w) {
    case Word::f32:
    case Word::u32: return 4;
    case Word::f64:
    case Word::u64: return 8;
    case Word::u128: return 16;
  }
  return 0;
}

/// A WHT of fixed size, word type and order, ready to run.
class WhtKernel {
 public:
  virtual ~WhtKernel() = default;
  /// Transforms `rows` rows of 2^log2n words in place, row r at data + r·stride words,
  /// into the kernel's order, multiplying float results by `scale` (rings: scale is 1).
  virtual void execute(void* data, std::size_t rows, std::size_t stride, double scale) const = 0;
  /// The same on words in the backend device's own memory (a CUDA device pointer), in place,
  /// ordered after the work already queued on `stream` (a cudaStream_t; nullptr = the legacy
  /// default stream) and complete when it returns. Default: an unsupported Error, for kernels
  /// that compute on host memory.
  virtual void execute_device(void* data, std::size_t rows, std::size_t stride, double scale, void* stream) const;
  /// What execute_bounded did.
  enum class Bounded { unsupported, done, exceeded };
  /// Integer rings: execute() if every input word, read as signed, has magnitude below
  /// 2^limit_log2, checked as the transform first reads the data; `exceeded`, with every row
  /// as it was, if not. Default: `unsupported` (the front end scans the data first).
  virtual Bounded execute_bounded(void* /*data*/, std::size_t /*rows*/, std::size_t /*stride*/,
                                  int /*limit_log2*/) const {
    return Bounded::unsupported;
  }
};

/// A transformed operand of a dyadic convolution, kept where the backend computes
/// (host memory for CPU backends, device memory for GPU ones).
class Spectrum {
 public:
  virtual ~Spectrum() = default;
  int log2n = 0;
  /// Floats: |S(k)| at or below this is indistinguishable from 0 (2·n·u·‖h‖₁); set by the
  /// front end (zero_threshold()) before a deconvolution, 0 otherwise.
  double zero_threshold = 0;
};

/// What a DyadicKernel computes from a transformed operand (the values are the CUDA kernels' modes).
enum class DyadicOp { convolve = 1, autocorrelate = 2, deconvolve = 3 };

/// Dyadic convolution engine for one size (2^log2n) and word type.
/// Every `x`/`out` holds 2^log2n words; a Spectrum may come from a smaller size 2^m ≤ 2^log2n
/// (made by another DyadicKernel of the same backend and word) and then stands for the
/// zero-padded operand: the spectrum of h padded from 2^m to 2^n points is S[k mod 2^m].
class DyadicKernel {
 public:
  virtual ~DyadicKernel() = default;
  /// S = W·h (natural order, unnormalised).
  [[nodiscard]] virtual std::unique_ptr<Spectrum> spectrum(const void* h) const = 0;
  /// out = scale · W(S ⊙ W·x)  (x may alias out).
  virtual void apply(const Spectrum& s, const void* x, void* out, double scale) const = 0;
  /// out = scale · W((W·x)²)  (x may alias out).
  virtual void autocorrelate(const void* x, void* out, double scale) const = 0;
  /// Floats only: out = scale · W((W·y) ⊘ S); an invalid_argument Error naming the first
  /// index k with |S(k)| ≤ S.zero_threshold.
  virtual void deconvolve(const Spectrum& s, const void* y, void* out, double scale) const = 0;
  /// out = scale · W(W·f ⊙ W·g), f and g both of this kernel's size (out may be f or g).
  /// Default: spectrum(g), then apply(); a backend may fuse the two.
  virtual void convolve(const void* f, const void* g, void* out, double scale) const;

  // Device backends, on words in their device's own memory (CUDA device pointers), ordered after
  // the work queued on `stream` (a cudaStream_t; nullptr = the legacy default stream) and
  // complete on return. Defaults: an unsupported Error, for kernels that compute on the host.
  /// spectrum() of device words h; `for_deconvolution` also sets its zero_threshold.
  [[nodiscard]] virtual std::unique_ptr<Spectrum> spectrum_device(const void* h, void* stream,
                                                                  bool for_deconvolution) const;
  /// out = `op` of x, the x_words ≤ 2^log2n words of x zero-padded (x may alias out when
  /// x_words = 2^log2n); `s` is null for autocorrelate.
  virtual void run_device(DyadicOp op, const Spectrum* s, const void* x, std::size_t x_words, void* out, double scale,
                          void* stream) const;
};

/// Spectrum::zero_threshold for the spectrum of h (2^log2n words): 2·n·u·‖h‖₁ for floats,
/// 0 for rings.
template <class W>
double zero_threshold(const W* h, int log2n) {
  if constexpr (std::is_floating_point_v<W>) {
    double l1 = 0;
    for (std::size_t k = 0; k < (std::size_t{1} << log2n); ++k) l1 += h[k] < 0 ? -double(h[k]) : double(h[k]);
    return 2.0 * (log2n > 0 ? log2n : 1) * std::numeric_limits<W>::epsilon() / 2 * l1;
  } else {
    return 0;
  }
}

/// Floats: the index of the first |S(k)| ≤ threshold among 2^log2n words, or −1.
template <class W>
std::ptrdiff_t first_zero(const W* s, int log2n, double threshold) {
  for (std::size_t k = 0; k < (std::size_t{1} << log2n); ++k)
    if ((s[k] < 0 ? -double(s[k]) : double(s[k])) <= threshold) return static_cast<std::ptrdiff_t>(k);
  return -1;
}

/// Device arrays are the cuda backend's (other backends would read them as host memory): an
/// unsupported Error naming `op` for any other backend.
void require_device_backend(std::string_view backend, std::string_view op);

/// The invalid_argument Error of a deconvolution whose spectrum S is zero at index k.
[[noreturn]] void throw_singular(std::size_t k, double magnitude, double threshold);

/// Device backends: time and counts summed from their events, per backend handle (copies of a
/// Backend share them; Backend::timings()).
struct DeviceCounters {
  std::atomic<std::uint64_t> transfer_ns{0}, compute_ns{0}, transfers{0}, launches{0};

  [[nodiscard]] DeviceTimings snapshot() const {
    return {static_cast<double>(transfer_ns.load()) * 1e-6, static_cast<double>(compute_ns.load()) * 1e-6,
            transfers.load(), launches.load()};
  }
  void reset() {
    transfer_ns = 0;
    compute_ns = 0;
    transfers = 0;
    launches = 0;
  }
};

/// Device backends store a spectrum shorter than this many words repeated up to it, so that
/// their kernels can load it in whole vectors (the spectrum of h padded to 2^n is S[k mod |h|]).
constexpr std::size_t kMinDeviceSpectrumWords = 16;

class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  [[nodiscard]] virtual std::string description() const = 0;
  /// Backend::device(): the device id of a device backend, "" for a host one.
  [[nodiscard]] virtual std::string device() const { return {}; }
  [[nodiscard]] virtual std::string_view variant() const noexcept = 0;
  /// Every variant this backend offers on this machine, slowest first.
  [[nodiscard]] virtual std::vector<std::string> variants() const = 0;
  [[nodiscard]] virtual std::unique_ptr<WhtKernel> make_wht(int log2n, Word word, Order order) const = 0;
  /// A WHT that loads 16-bit `word`s, computes in float and stores each result rounded once
  /// (the scale folded into the store); nullptr where this backend has no such kernel for this
  /// size and order. Default: nullptr — the front end then runs make_wht(log2n, Word::f32,
  /// order) on float copies of blocks of rows (core/wht16.hpp), with the same results.
  [[nodiscard]] virtual std::unique_ptr<WhtKernel> make_wht16(int /*log2n*/, Word16 /*word*/, Order /*order*/) const {
    return nullptr;
  }
  /// Conversions between 16-bit floats and float for the front end's copies of blocks of rows
  /// (core/wht16.hpp), where this backend has faster ones than the portable loops of
  /// types.hpp (the cpu backend: compiled for the instruction set it runs on). The same
  /// results; null members: the portable loops.
  struct Conversions16 {
    void (*widen_f16)(const float16*, float*, std::size_t) = nullptr;
    void (*narrow_f16)(const float*, float16*, std::size_t) = nullptr;
    void (*widen_bf16)(const bfloat16*, float*, std::size_t) = nullptr;
    void (*narrow_bf16)(const float*, bfloat16*, std::size_t) = nullptr;
  };
  [[nodiscard]] virtual Conversions16 conversions16() const { return {}; }
  /// Default: composed on the host from this backend's make_wht (see host_dyadic.cpp).
  [[nodiscard]] virtual std::unique_ptr<DyadicKernel> make_dyadic(int log2n, Word word) const;
  /// Host threads the backend computes with (0 = OpenMP's default).
  [[nodiscard]] virtual int threads() const noexcept { return 1; }
  /// conv2d's `algorithm` (auto_ = the backend's choice) on this backend, or nullptr where it
  /// does not compute it. The host backends' conv2d is the core's (src/nn/conv2d.cpp); this
  /// is for device backends.
  [[nodiscard]] virtual nn::KernelPtr<float> make_conv2d(Conv2dAlgorithm /*algorithm*/,
                                                         const nn::KernelArgs<float>& /*args*/) const {
    return nullptr;
  }
  [[nodiscard]] virtual nn::KernelPtr<double> make_conv2d(Conv2dAlgorithm /*algorithm*/,
                                                          const nn::KernelArgs<double>& /*args*/) const {
    return nullptr;
  }
  /// Device backends: the time their kernels and copies took.
  [[nodiscard]] virtual DeviceTimings timings() const { return {}; }
  virtual void reset_timings() const {}
};

}  // namespace fastconv::detail
