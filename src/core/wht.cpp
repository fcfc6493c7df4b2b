#include "fastconv/wht.hpp"

#include <cmath>
#include <vector>

#include "core/accumulation.hpp"
#include "core/backend_impl.hpp"
#include "core/converting_wht.hpp"
#include "core/exact.hpp"
#include "core/memory.hpp"
#include "core/normalization.hpp"
#include "core/wht16.hpp"

namespace fastconv {

std::string_view to_string(Order order) noexcept {
  switch (order) {
    case Order::hadamard: return "hadamard";
    case Order::sequency: return "sequency";
    case Order::paley: return "paley";
  }
  return "?";
}

std::string_view to_string(Normalization normalization) noexcept {
  switch (normalization) {
    case Normalization::none: return "none";
    case Normalization::orthonormal: return "orthonormal";
    case Normalization::inverse: return "inverse";
  }
  return "?";
}

std::string_view to_string(Accumulation accumulation) noexcept {
  switch (accumulation) {
    case Accumulation::native: return "native";
    case Accumulation::float64: return "float64";
  }
  return "?";
}

std::optional<Order> parse_order(std::string_view name) noexcept {
  if (name == "hadamard" || name == "natural") return Order::hadamard;
  if (name == "sequency" || name == "walsh") return Order::sequency;
  if (name == "paley" || name == "dyadic") return Order::paley;
  return std::nullopt;
}

std::optional<Normalization> parse_normalization(std::string_view name) noexcept {
  if (name == "none") return Normalization::none;
  if (name == "orthonormal" || name == "ortho") return Normalization::orthonormal;
  if (name == "inverse") return Normalization::inverse;
  return std::nullopt;
}

std::optional<Accumulation> parse_accumulation(std::string_view name) noexcept {
  if (name == "native") return Accumulation::native;
  if (name == "float64" || name == "double") return Accumulation::float64;
  return std::nullopt;
}

int log2_exact(std::size_t length, std::string_view what) {
  if (length == 0 || (length & (length - 1)) != 0)
    throw Error(ErrorCode::invalid_argument,
                std::string(what) + " has length " + std::to_string(length) +
                    ", which is not a power of two (1, 2, 4, 8, ...)");
  return std::countr_zero(length);
}

namespace {

constexpr int kMaxLog2 = 48;

void check_batch(std::size_t span_size, std::size_t rows, std::size_t stride, std::size_t size) {
  if (rows == 0) return;
  if (stride < size)
    throw Error(ErrorCode::invalid_argument, "WHT batch: row stride " + std::to_string(stride) +
                                                 " is smaller than the row length " + std::to_string(size));
  std::size_t needed = 0;
  if (__builtin_mul_overflow(rows - 1, stride, &needed) || __builtin_add_overflow(needed, size, &needed) ||
      needed > span_size)
    throw Error(ErrorCode::invalid_argument,
                "WHT batch: " + std::to_string(rows) + " rows of " + std::to_string(size) + " with stride " +
                    std::to_string(stride) + " do not fit in the " + std::to_string(span_size) +
                    " elements given");
}

/// The kernel of a float or 16-bit plan with Accumulation::float64: the backend's double kernel
/// on widened copies of blocks of rows, each result rounded once to T.
template <class T>
std::unique_ptr<detail::WhtKernel> make_accumulating_wht(const detail::BackendImpl& backend, int log2n, Order order) {
  return std::make_unique<detail::ConvertingWht<T, double>>(
      detail::in_double([&] { return backend.make_wht(log2n, detail::Word::f64, order); }), log2n,
      "float64 accumulation widens the data on the host: device arrays take Accumulation::native");
}

}  // namespace

template <TransformElement T>
struct WhtPlan<T>::Impl {
  int log2n;
  WhtOptions options;
  Backend backend;
  std::unique_ptr<detail::WhtKernel> kernel;  // floats: T itself (16-bit: computed in float), or
                                              // double (Accumulation::float64); integers: the
                                              // ring of T's width
  std::unique_ptr<detail::WhtKernel> wide;    // integers: a ring wide enough for any result
                                              // (uint64 for int32 up to 2^31 points, else uint128)

  std::size_t size() const { return std::size_t{1} << log2n; }

  void run(T* data, std::size_t rows, std::size_t stride) const {
    if constexpr (std::is_integral_v<T>) {
      run_exact(data, rows, stride);
    } else {
      kernel->execute(data, rows, stride, detail::normalization_scale(log2n, options.normalization));
    }
  }

  /// Integers: in place in T's own ring when the result provably fits and needs no division;
  /// otherwise through a wide ring, checked, and written back only if every value is valid.
  /// (A template so that explicit instantiations for the floating-point types never instantiate it.)
  template <std::integral U>
  void run_exact(U* data, std::size_t rows, std::size_t stride) const {
    const int bits = std::numeric_limits<T>::digits;  // 31 or 63
    if (options.normalization == Normalization::none) {
      // Every |x| < 2^(bits − n) keeps every result in T. Kernels that can check this as they
      // first read the data do (cpu: no separate pass over the array); the others get a scan.
      using Bounded = detail::WhtKernel::Bounded;
      const Bounded bounded = kernel->execute_bounded(data, rows, stride, std::max(0, bits - log2n));
      if (bounded == Bounded::done) return;
      if (bounded == Bounded::unsupported) {
        std::uint64_t bound = 0;
        for (std::size_t r = 0; r < rows; ++r)
          bound = std::max(bound, detail::magnitude_bound(std::span<const U>(data + r * stride, size())));
        if (detail::below_power_of_two(bound, log2n, bits)) {
          kernel->execute(data, rows, stride, 1.0);
          return;
        }
      }
    }
    if (uses_wide64()) {
      run_wide<std::uint64_t>(data, rows, stride);
    } else {
      run_wide<detail::u128>(data, rows, stride);
    }
  }

  template <class W>
  void run_wide(T* data, std::size_t rows, std::size_t stride) const {
    const std::size_t n = size();
    detail::require_elements(rows * n, sizeof(W), "the exact transform's copy in a wide ring");
    std::vector<W> buffer(rows * n);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < n; ++i) buffer[r * n + i] = static_cast<W>(static_cast<detail::i128>(data[r * stride + i]));
    wide->execute(buffer.data(), rows, n, 1.0);
    const int shift = detail::normalization_shift(log2n, options.normalization);
    for (std::size_t j = 0; j < buffer.size(); ++j)  // every value checked before any is written back
      buffer[j] = static_cast<W>(detail::checked_wht_quotient<T>(detail::signed_value(buffer[j]), shift,
                                                                 options.normalization, [&] { return position(j, rows); }));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < n; ++i) data[r * stride + i] = static_cast<T>(buffer[r * n + i]);
  }

  bool uses_wide64() const { return std::is_same_v<T, std::int32_t> && log2n <= 31; }

  /// "element i", and in a batch of several rows "element i of row r" (row 0 too).
  std::string position(std::size_t flat, std::size_t rows) const {
    const std::size_t row = flat >> log2n, col = flat & (size() - 1);
    return "element " + std::to_string(col) + (rows > 1 ? " of row " + std::to_string(row) : "");
  }
};

template <TransformElement T>
WhtPlan<T>::WhtPlan(int log2n, WhtOptions options, Backend backend)
    : impl_(std::make_unique<Impl>(Impl{log2n, options, std::move(backend), nullptr, nullptr})) {
  if (log2n < 0 || log2n > kMaxLog2)
    throw Error(ErrorCode::invalid_argument,
                "WHT size 2^" + std::to_string(log2n) + " is outside 2^0 … 2^" + std::to_string(kMaxLog2));
  const auto& b = impl_->backend.impl();
  if constexpr (detail::accumulates_in_double<T>) {
    if (options.accumulation == Accumulation::float64) {
      impl_->kernel = make_accumulating_wht<T>(b, log2n, options.order);
      return;
    }
  }
  if constexpr (HalfFloat<T>) {
    impl_->kernel = detail::make_wht16(b, log2n, detail::word16_of<T>, options.order);
  } else if constexpr (std::is_floating_point_v<T>) {
    impl_->kernel = b.make_wht(log2n, detail::word_of<T>, options.order);
  } else {
    detail::require_exact_normalization<T>(log2n, options.normalization);
    impl_->kernel = b.make_wht(log2n, detail::word_of<detail::ring_of<T>>, options.order);
    impl_->wide = b.make_wht(log2n, impl_->uses_wide64() ? detail::Word::u64 : detail::Word::u128,
                             options.order);
  }
}

template <TransformElement T>
WhtPlan<T>::~WhtPlan() = default;
template <TransformElement T>
WhtPlan<T>::WhtPlan(WhtPlan&&) noexcept = default;
template <TransformElement T>
WhtPlan<T>& WhtPlan<T>::operator=(WhtPlan&&) noexcept = default;

template <TransformElement T>
void WhtPlan<T>::execute(std::span<T> data) const {
  if (data.size() != size())
    throw Error(ErrorCode::invalid_argument, "WHT plan for " + std::to_string(size()) +
                                                 " points was given " + std::to_string(data.size()) +
                                                 " elements");
  impl_->run(data.data(), 1, size());
}

template <TransformElement T>
void WhtPlan<T>::execute(std::span<T> data, std::size_t rows, std::size_t row_stride) const {
  check_batch(data.size(), rows, row_stride, size());
  if (rows > 0) impl_->run(data.data(), rows, row_stride);
}

template <TransformElement T>
void WhtPlan<T>::execute_device(T* device_data, std::size_t rows, std::size_t row_stride, void* stream) const
  requires(!std::integral<T>)
{
  detail::require_device_backend(impl_->backend.name(), "a WHT");
  check_batch(std::numeric_limits<std::size_t>::max(), rows, row_stride, size());
  if (rows > 0) impl_->kernel->execute_device(device_data, rows, row_stride, detail::normalization_scale(log2n(), impl_->options.normalization), stream);
}

template <TransformElement T>
int WhtPlan<T>::log2n() const noexcept {
  return impl_->log2n;
}
template <TransformElement T>
const WhtOptions& WhtPlan<T>::options() const noexcept {
  return impl_->options;
}
template <TransformElement T>
const Backend& WhtPlan<T>::backend() const noexcept {
  return impl_->backend;
}

template class WhtPlan<float>;
template class WhtPlan<double>;
template class WhtPlan<std::int32_t>;
template class WhtPlan<std::int64_t>;
template class WhtPlan<float16>;
template class WhtPlan<bfloat16>;

}  // namespace fastconv
