// src/nn/fft.hpp — the little of an FFT library that conv2d uses, for float and double:
// real-to-complex and complex-to-real transforms of one shape, executed on many arrays from
// several threads at once, and SIMD-aligned scratch.
//
// The library is a build choice (FASTCONV_FFT): FFTW 3 (fft_fftw.cpp, the default) or Intel
// MKL's DFTI (fft_mkl.cpp, 2–3× faster than Debian's FFTW on AVX-512 Intel CPUs, whose FFTW
// has no AVX-512 codelets: docs/benchmarks.md). One of them is compiled in, never both.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/memory.hpp"
#include "fastconv/error.hpp"
#include "nn/lengths.hpp"

namespace fastconv::nn {

/// The FFT library compiled in, with its version: "fftw-3.3.10-sse2-avx" (FFTW's own string,
/// naming its SIMD codelets), "Intel MKL 2026.2 (…AVX-512…)" (with the code path it runs).
std::string fft_library();

/// An array of 64-byte alignment (every SIMD width), zero-filled. Throws an out_of_memory
/// Error that says how much was asked for, before allocating when it exceeds the memory this
/// process may use (the zeros touch every page: a request the system overcommitted would
/// otherwise end in the OOM killer).
template <class E>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t count) : count_(count) {
    if (count == 0) return;
    detail::require_elements(count, sizeof(E), "conv2d: a work array of " + std::to_string(count) + " values");
    data_.reset(static_cast<E*>(::operator new(count * sizeof(E), std::align_val_t{64}, std::nothrow)));
    if (!data_)
      throw Error(ErrorCode::out_of_memory, "conv2d: out of memory for " + std::to_string(count * sizeof(E)) + " bytes");
    std::fill(data_.get(), data_.get() + count, E{});
  }
  E* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return count_; }
  E& operator[](std::size_t i) const noexcept { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(E* p) const noexcept { ::operator delete(p, std::align_val_t{64}); }
  };
  std::unique_ptr<E, Free> data_;
  std::size_t count_ = 0;
};

/// Elements per aligned row: rows of a batch start on 64-byte boundaries, so that every row
/// has the alignment of the arrays the plan was made with.
inline std::size_t aligned_count(std::size_t count, std::size_t element_bytes) noexcept {
  const std::size_t per_line = 64 / element_bytes;
  return (count + per_line - 1) / per_line * per_line;
}

/// The real values and complex bins of a real transform of `dims` (row-major, the last
/// dimension halved to dims.back()/2 + 1 bins). Throws an unsupported Error for an extent
/// beyond kLongestFftExtent; with two such extents the product fits 64 bits.
inline std::pair<std::size_t, std::size_t> real_fft_sizes(const std::vector<std::size_t>& dims) {
  std::size_t real = 1;
  for (const std::size_t d : dims) {
    check_fft_extent(d);
    real *= d;
  }
  return {real, real / dims.back() * (dims.back() / 2 + 1)};
}

/// Values of T the FFT library's own tables (twiddle factors) take in a plan of `dims`: about
/// 2.2 per point along each dimension. FFTW 3.3.10's measured: planning a forward and an inverse
/// transform of 144 120 000 floats took 1.26 GB, 16 000 000 floats 81 MB, and 12005x12096 3 MB.
/// (With MKL the same figure stands in: its tables were not measured.)
inline double fft_table_values(const std::vector<std::size_t>& dims) {
  double points = 0;
  for (const std::size_t d : dims) points += static_cast<double>(d);
  return 2.25 * points;
}

/// `values` of `element_bytes` each, refused (detail::require_elements) when they do not fit in
/// the memory this process may use; a count beyond 64 bits is refused all the same.
inline void require_values(double values, std::size_t element_bytes, std::string_view what) {
  detail::require_elements(values >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(values), element_bytes, what);
}

/// "12005x12096".
inline std::string extents_text(const std::vector<std::size_t>& dims) {
  std::string text;
  for (const std::size_t d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

/// How much a plan may cost to make. FFTW: `quick` is FFTW_ESTIMATE (milliseconds),
/// `measured` FFTW_MEASURE (0.1–2 s per length, transforms 1.2–1.5× faster). MKL plans the
/// same way for both, in milliseconds.
enum class FftPlanning { quick, measured };

/// A forward r2c and an inverse c2r transform of `dims` (row-major, last dimension halved to
/// dims.back()/2 + 1 complex bins), on arrays aligned like AlignedArray's rows. Thread-safe:
/// forward() and inverse() may run on several threads at once.
template <class T>
class RealFftPair {
 public:
  using complex = std::complex<T>;

  /// Implemented per library (fft_fftw.cpp, fft_mkl.cpp), each starting from dimensions().
  RealFftPair(const std::vector<std::size_t>& dims, FftPlanning planning);
  ~RealFftPair();
  RealFftPair(const RealFftPair&) = delete;
  RealFftPair& operator=(const RealFftPair&) = delete;

  std::size_t real_size() const noexcept { return real_; }
  std::size_t bins() const noexcept { return bins_; }
  /// `out` receives bins() values; `in` is left as it was.
  void forward(T* in, complex* out) const;
  /// Unnormalised (× real_size()); may destroy `in`.
  void inverse(complex* in, T* out) const;

 private:
  struct Plans;
  /// dims_, real_ and bins_ from `dims`: what both libraries' constructors set first. Refuses
  /// (out_of_memory) a plan whose scratch arrays (real_ values and bins_ complex ones, FFTW's)
  /// and the library's tables would not fit.
  void dimensions(const std::vector<std::size_t>& dims) {
    std::tie(real_, bins_) = real_fft_sizes(dims);
    dims_.assign(dims.begin(), dims.end());  // each within int: real_fft_sizes checked
    require_values(static_cast<double>(real_) + 2 * static_cast<double>(bins_) + fft_table_values(dims), sizeof(T),
                   "conv2d: planning an FFT of " + extents_text(dims) + " points");
  }

  std::vector<int> dims_;
  std::size_t real_ = 0, bins_ = 0;
  std::unique_ptr<Plans> plans_;
};

}  // namespace fastconv::nn
