// Dyadic convolution, autocorrelation, deconvolution and DyadicSystem on any backend.
//
// Floating point: straight through the backend's DyadicKernel with the 1/N scale folded in.
// Integers: the operands go into the ring Z/2^64 (or Z/2^128 when a bound on the result
// requires it), where the kernel computes N·C exactly; the front end divides by N with an
// arithmetic shift and checks that every value fits the element type. int64 data are the
// 64-bit ring's words already (the same bits): the kernel reads the caller's arrays and writes
// N·C into the output, which is divided where it lies; no result can overflow there.
// Accumulation::float64 on float data: the double operation on widened copies, each result
// rounded once to float.
#include "fastconv/dyadic.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <utility>
#include <vector>

#include "core/accumulation.hpp"
#include "core/backend_impl.hpp"
#include "core/exact.hpp"
#include "core/memory.hpp"
#include "fastconv/memory.hpp"

namespace fastconv::detail {

/// Buffers of the exact ring: on a cache line (a malloc'd vector's data sits 16 bytes past one,
/// which slows the kernels), from 4 MiB on AlignedAllocator's 2 MiB-aligned huge pages, and not
/// value-initialised (every word is written before it is read). Below 4 MiB, huge pages cost
/// more than they give for buffers allocated on every call: the 2^16-word ring took 1.2–1.5×
/// as long with them (one thread, `fastconv::convolve` and `DyadicSystem::apply` of int32 and
/// int64), while at 2^20 and 2^22 words they made the calls 1.8–2× faster than line-aligned
/// memory.
template <class W>
struct RingAllocator : AlignedAllocator<W> {
  static constexpr std::size_t kHugeFrom = std::size_t{4} << 20;
  template <class U>
  struct rebind {
    using other = RingAllocator<U>;
  };
  RingAllocator() noexcept = default;
  [[nodiscard]] W* allocate(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(W) - 64) throw std::bad_array_new_length();
    const std::size_t bytes = count * sizeof(W);
    if (bytes >= kHugeFrom) return AlignedAllocator<W>::allocate(count);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<W*>(p);
  }
  template <class U>
  RingAllocator(const RingAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// Words of the exact ring (or of a float operand's copy).
template <class W>
using Words = std::vector<W, RingAllocator<W>>;

/// Operand `values` as `size` words (zero-padded), integers sign-extended into the ring.
template <class W, class T>
Words<W> to_words(std::span<const T> values, std::size_t size) {
  require_elements(size, sizeof(W), "a copy of the operand in the exact ring");
  Words<W> words(size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_floating_point_v<W>) words[i] = values[i];
    else words[i] = static_cast<W>(static_cast<i128>(values[i]));
  }
  std::fill(words.begin() + static_cast<std::ptrdiff_t>(values.size()), words.end(), W{0});
  return words;
}

/// convolution_bound of two operands held in memory (an autocorrelation's one scanned once).
template <class T>
u128 convolution_bound(std::span<const T> f, std::span<const T> g) {
  const Norms nf = norms(f), ng = g.data() == f.data() && g.size() == f.size() ? nf : norms(g);
  return convolution_bound(nf.l1, nf.max, ng.l1, ng.max);
}

/// int64 values as the 64-bit ring's words: the same bits (and a type that may alias them).
inline std::span<const std::uint64_t> ring_words(std::span<const std::int64_t> values) {
  return {reinterpret_cast<const std::uint64_t*>(values.data()), values.size()};
}
inline std::span<std::uint64_t> ring_words(std::span<std::int64_t> values) {
  return {reinterpret_cast<std::uint64_t*>(values.data()), values.size()};
}

/// Divides the ring values N·C by N and writes C to `out` if every value fits T;
/// otherwise an overflow Error and `out` is untouched. `ring` may be `out`'s own words.
template <class T, class W>
void store_exact(std::span<const W> ring, int log2n, std::span<T> out, std::string_view op) {
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    // The 64-bit ring is chosen only where |N·C| < 2^63: the words read as int64 are N·C, and an
    // arithmetic shift divides. In 64-bit arithmetic both passes vectorise (the 128-bit path
    // below took a third of an int32 convolution's time at 2^20).
    const auto quotient = [&](std::size_t t) { return static_cast<std::int64_t>(ring[t]) >> log2n; };
    if constexpr (!std::is_same_v<T, std::int64_t>) {
      std::int64_t lo = 0, hi = 0;
      for (std::size_t t = 0; t < ring.size(); ++t) {
        lo = std::min(lo, quotient(t));
        hi = std::max(hi, quotient(t));
      }
      if (!fits<T>(lo) || !fits<T>(hi))
        for (std::size_t t = 0; t < ring.size(); ++t)
          if (!fits<T>(quotient(t))) throw_overflow<T>(op, "element " + std::to_string(t), quotient(t));
    }
    for (std::size_t t = 0; t < ring.size(); ++t) out[t] = static_cast<T>(quotient(t));
    return;
  }
  for (std::size_t t = 0; t < ring.size(); ++t) {
    const i128 v = signed_value(ring[t]) >> log2n;
    if (!fits<T>(v)) throw_overflow<T>(op, "element " + std::to_string(t), v);
  }
  for (std::size_t t = 0; t < ring.size(); ++t) out[t] = static_cast<T>(signed_value(ring[t]) >> log2n);
}

/// An exact integer dyadic operation `op` into `out`, in the ring its result's bound calls for:
/// in the 64-bit ring, int64 data in the caller's words (`in_place(words)` writes N·C into
/// `out`'s), other data through `in_ring.template operator()<W>()`, which returns N·C in ring
/// words W; N·C is then divided by N into `out`, checked.
template <class T, class InPlace, class InRing>
void exact_dyadic(u128 bound, int log2n, std::span<T> out, std::string_view op, const InPlace& in_place,
                  const InRing& in_ring) {
  const auto through_ring = [&]<class W>() {
    const auto words = in_ring.template operator()<W>();
    store_exact<T>(std::span<const W>(words), log2n, out, op);
  };
  switch (choose_ring(bound, log2n)) {
    case Ring::u64:
      if constexpr (std::is_same_v<T, std::int64_t>) {
        in_place(ring_words(out).data());
        store_exact<T>(std::span<const std::uint64_t>(ring_words(out)), log2n, out, op);
      } else {
        through_ring.template operator()<std::uint64_t>();
      }
      break;
    case Ring::u128: through_ring.template operator()<u128>(); break;
    case Ring::none: throw_too_wide(op, type_name<T>(), bound, log2n);
  }
}

/// The spectrum of `values` in words W; floats go straight from the caller's data, integers
/// through a sign-extended copy in the ring.
template <class W, class T>
std::unique_ptr<Spectrum> spectrum_of(const DyadicKernel& kernel, std::span<const T> values) {
  if constexpr (std::is_same_v<W, T>) {
    return kernel.spectrum(values.data());
  } else {
    const auto words = to_words<W>(values, values.size());
    return kernel.spectrum(words.data());
  }
}

/// out = N⁻¹·W(spectrum ⊙ W·x) in word type W, x and out at 2^log2n points (they may alias);
/// the spectrum may come from 2^m ≤ 2^log2n points. `same_size` is a kernel at 2^log2n, if at hand.
template <class W>
void apply_words(const BackendImpl& b, const DyadicKernel* same_size, const Spectrum& s, int log2n, const W* x,
                 W* out) {
  const double scale = std::ldexp(1.0, -log2n);
  if (same_size != nullptr) {
    same_size->apply(s, x, out, scale);
  } else {
    b.make_dyadic(log2n, word_of<W>)->apply(s, x, out, scale);
  }
}

/// Float data with Accumulation::float64: computed in double (widened(), round_into()).
template <class T>
bool in_double_precision(const DyadicOptions& options) {
  return accumulates_in_double<T> && options.accumulation == Accumulation::float64;
}

/// `values` converted exactly to double.
template <class T>
std::vector<double> widened(std::span<const T> values) {
  require_elements(values.size(), sizeof(double), "a float64 copy of the operand (float64 accumulation)");
  return {values.begin(), values.end()};
}

/// Each double of `wide` rounded once to T, into `out` (as many elements).
template <class T>
void round_into(const std::vector<double>& wide, std::span<T> out) {
  for (std::size_t i = 0; i < wide.size(); ++i) out[i] = static_cast<T>(wide[i]);
}

/// `out` must hold `size` elements.
template <class T>
void check_output(std::span<T> out, std::size_t size, std::string_view op) {
  if (out.size() != size)
    throw Error(ErrorCode::invalid_argument, std::string(op) + ": the output has " + std::to_string(out.size()) +
                                                 " elements, the result has " + std::to_string(size));
}

/// C = f ⊛ g in words W into `out` (2^n_long words; it may be an operand of that length): at
/// one size, both operands in one kernel call (which a backend may fuse); otherwise the
/// spectrum of the shorter operand at its own size, applied to the longer one.
template <class W>
void convolve_words(const BackendImpl& b, std::span<const W> f, std::span<const W> g, W* out) {
  const bool f_longer = f.size() >= g.size();
  const auto longer = f_longer ? f : g, shorter = f_longer ? g : f;
  const int n_long = std::countr_zero(longer.size()), n_short = std::countr_zero(shorter.size());
  const auto kernel = b.make_dyadic(n_short, word_of<W>);
  if (n_long == n_short) {
    kernel->convolve(longer.data(), shorter.data(), out, std::ldexp(1.0, -n_long));
  } else {
    apply_words(b, nullptr, *kernel->spectrum(shorter.data()), n_long, longer.data(), out);
  }
}

/// N·C of integer operands in the ring W, in the copy of the longer one the function returns.
template <class W, class T>
Words<W> convolve_in_ring(const BackendImpl& b, std::span<const T> f, std::span<const T> g) {
  const bool f_longer = f.size() >= g.size();
  const auto longer = f_longer ? f : g, shorter = f_longer ? g : f;
  auto words = to_words<W>(longer, longer.size());
  const auto other = to_words<W>(shorter, shorter.size());
  convolve_words<W>(b, std::span<const W>(words), std::span<const W>(other), words.data());
  return words;
}

template <Element T>
void convolve(std::span<const T> f, std::span<const T> g, std::span<T> out, const DyadicOptions& options,
              const Backend& backend) {
  const int log2n = std::max(log2_exact(f.size(), "convolve: f"), log2_exact(g.size(), "convolve: g"));
  check_output(out, std::size_t{1} << log2n, "convolve");
  const auto& b = backend.impl();
  if (in_double_precision<T>(options)) {
    const auto fd = widened(f), gd = widened(g);  // both read before out (which may be f or g) is written
    require_elements(out.size(), sizeof(double), "the float64 result (float64 accumulation)");
    std::vector<double> result(out.size());
    in_double([&] { convolve<double>(fd, gd, std::span(result), {}, backend); });
    round_into(result, out);
  } else if constexpr (std::is_floating_point_v<T>) {
    convolve_words<T>(b, f, g, out.data());
  } else {
    exact_dyadic(
        convolution_bound(f, g), log2n, out, "dyadic convolution",
        [&](std::uint64_t* words) {
          if constexpr (std::is_same_v<T, std::int64_t>) convolve_words<std::uint64_t>(b, ring_words(f), ring_words(g), words);
        },
        [&]<class W>() { return convolve_in_ring<W>(b, f, g); });
  }
}

template <Element T>
void autocorrelate(std::span<const T> f, std::span<T> out, const DyadicOptions& options, const Backend& backend) {
  const int log2n = log2_exact(f.size(), "autocorrelate: f");
  check_output(out, f.size(), "autocorrelate");
  const auto& b = backend.impl();
  const double scale = std::ldexp(1.0, -log2n);
  if (in_double_precision<T>(options)) {
    auto wide = widened(f);
    in_double([&] { autocorrelate<double>(wide, std::span(wide), {}, backend); });
    round_into(wide, out);
  } else if constexpr (std::is_floating_point_v<T>) {
    b.make_dyadic(log2n, word_of<T>)->autocorrelate(f.data(), out.data(), scale);
  } else {
    exact_dyadic(
        convolution_bound(f, f), log2n, out, "dyadic autocorrelation",
        [&](std::uint64_t* words) {
          if constexpr (std::is_same_v<T, std::int64_t>)
            b.make_dyadic(log2n, Word::u64)->autocorrelate(ring_words(f).data(), words, scale);
        },
        [&]<class W>() {
          auto words = to_words<W>(f, f.size());
          b.make_dyadic(log2n, word_of<W>)->autocorrelate(words.data(), words.data(), scale);
          return words;
        });
  }
}

namespace {

/// Exact integer deconvolution: Ŷ/Ĥ must be integers (they are Ŵf when y = f ⊛ h with integer
/// f), and so must W(Ŷ/Ĥ)/N. Computed in Z/2^128, which holds every intermediate for n ≤ 31.
template <class T>
std::vector<T> deconvolve_exact(std::span<const T> y, std::span<const T> h, int log2n, const BackendImpl& b) {
  if (log2n > 31)
    throw Error(ErrorCode::unsupported, "exact integer deconvolution is limited to 2^31 points (got 2^" +
                                            std::to_string(log2n) + "); use a floating-point dtype");
  const std::size_t size = std::size_t{1} << log2n;
  const auto wht = b.make_wht(log2n, Word::u128, Order::hadamard);
  auto ys = to_words<u128>(y, size), hs = to_words<u128>(h, size);
  wht->execute(ys.data(), 1, size, 1.0);
  wht->execute(hs.data(), 1, size, 1.0);
  const std::string not_integer = "the result is not an integer signal; use a floating-point dtype";
  for (std::size_t k = 0; k < h.size(); ++k)  // the padded h's spectrum repeats h's own
    if (hs[k] == 0)
      throw Error(ErrorCode::invalid_argument, "deconvolve: the Walsh spectrum of h is zero at index " +
                                                   std::to_string(k) +
                                                   ": the system is singular and its input cannot be identified");
  for (std::size_t k = 0; k < size; ++k) {
    const i128 hk = signed_value(hs[k]), yk = signed_value(ys[k]);
    if (yk % hk != 0)
      throw Error(ErrorCode::invalid_argument, "deconvolve: Walsh coefficient " + std::to_string(k) + " of y (" +
                                                   to_string(yk) + ") is not a multiple of that of h (" +
                                                   to_string(hk) + "): " + not_integer);
    ys[k] = static_cast<u128>(yk / hk);
  }
  wht->execute(ys.data(), 1, size, 1.0);
  for (std::size_t t = 0; t < size; ++t) {
    const i128 sum = signed_value(ys[t]);
    if (sum % static_cast<i128>(size) != 0)
      throw Error(ErrorCode::invalid_argument, "deconvolve: output element " + std::to_string(t) + " would be " +
                                                   to_string(sum) + "/" + std::to_string(size) +
                                                   ", not an integer: " + not_integer);
  }
  std::vector<T> out(size);
  store_exact<T>(std::span<const u128>(ys), log2n, std::span(out), "dyadic deconvolution");
  return out;
}

}  // namespace

template <Element T>
std::vector<T> deconvolve(std::span<const T> y, std::span<const T> h, const DyadicOptions& options,
                          const Backend& backend) {
  const int log2y = log2_exact(y.size(), "deconvolve: y"), log2h = log2_exact(h.size(), "deconvolve: h");
  const int log2n = std::max(log2y, log2h);
  const auto& b = backend.impl();
  if (in_double_precision<T>(options)) {
    const auto result = in_double([&] { return deconvolve<double>(widened(y), widened(h), {}, backend); });
    std::vector<T> out(result.size());
    round_into(result, std::span(out));
    return out;
  } else if constexpr (std::is_floating_point_v<T>) {
    const auto h_kernel = b.make_dyadic(log2h, word_of<T>);
    const auto spectrum = h_kernel->spectrum(h.data());
    spectrum->zero_threshold = zero_threshold(h.data(), log2h);
    std::vector<T> out(std::size_t{1} << log2n, T{0});  // y, zero-padded: the result's own buffer
    std::copy(y.begin(), y.end(), out.begin());
    const auto kernel = log2h == log2n ? nullptr : b.make_dyadic(log2n, word_of<T>);
    (kernel ? *kernel : *h_kernel).deconvolve(*spectrum, out.data(), out.data(), std::ldexp(1.0, -log2n));
    return out;
  } else {
    return deconvolve_exact(y, h, log2n, b);
  }
}

// --- device memory (cuda) --------------------------------------------------------------------

template <std::floating_point T>
void convolve_device(DeviceArray<const T> f, DeviceArray<const T> g, DeviceArray<T> out, const Backend& backend,
                     void* stream) {
  require_device_backend(backend.name(), "dyadic convolution");
  const int log2f = log2_exact(f.size, "convolve: f"), log2g = log2_exact(g.size, "convolve: g");
  const int log2n = std::max(log2f, log2g);
  check_output(std::span(out.data, out.size), std::size_t{1} << log2n, "convolve");
  const auto& b = backend.impl();
  const bool f_longer = log2f >= log2g;
  const auto longer = f_longer ? f : g, shorter = f_longer ? g : f;
  const int log2s = std::min(log2f, log2g);
  const auto short_kernel = b.make_dyadic(log2s, word_of<T>);
  const auto spectrum = short_kernel->spectrum_device(shorter.data, stream, false);
  const auto long_kernel = log2s == log2n ? nullptr : b.make_dyadic(log2n, word_of<T>);
  (long_kernel ? *long_kernel : *short_kernel)
      .run_device(DyadicOp::convolve, spectrum.get(), longer.data, longer.size, out.data, std::ldexp(1.0, -log2n),
                  stream);
}

template <std::floating_point T>
void autocorrelate_device(DeviceArray<const T> f, DeviceArray<T> out, const Backend& backend, void* stream) {
  require_device_backend(backend.name(), "dyadic autocorrelation");
  const int log2n = log2_exact(f.size, "autocorrelate: f");
  check_output(std::span(out.data, out.size), f.size, "autocorrelate");
  backend.impl().make_dyadic(log2n, word_of<T>)->run_device(DyadicOp::autocorrelate, nullptr, f.data, f.size, out.data,
                                                             std::ldexp(1.0, -log2n), stream);
}

template <std::floating_point T>
void deconvolve_device(DeviceArray<const T> y, DeviceArray<const T> h, DeviceArray<T> out, const Backend& backend,
                       void* stream) {
  require_device_backend(backend.name(), "dyadic deconvolution");
  const int log2y = log2_exact(y.size, "deconvolve: y"), log2h = log2_exact(h.size, "deconvolve: h");
  const int log2n = std::max(log2y, log2h);
  check_output(std::span(out.data, out.size), std::size_t{1} << log2n, "deconvolve");
  const auto& b = backend.impl();
  const auto h_kernel = b.make_dyadic(log2h, word_of<T>);
  const auto spectrum = h_kernel->spectrum_device(h.data, stream, /*for_deconvolution=*/true);
  const auto kernel = log2h == log2n ? nullptr : b.make_dyadic(log2n, word_of<T>);
  (kernel ? *kernel : *h_kernel)
      .run_device(DyadicOp::deconvolve, spectrum.get(), y.data, y.size, out.data, std::ldexp(1.0, -log2n), stream);
}

#define FASTCONV_INSTANTIATE(T)                                                                                 \
  template void convolve<T>(std::span<const T>, std::span<const T>, std::span<T>, const DyadicOptions&,           \
                            const Backend&);                                                                      \
  template void autocorrelate<T>(std::span<const T>, std::span<T>, const DyadicOptions&, const Backend&);          \
  template std::vector<T> deconvolve<T>(std::span<const T>, std::span<const T>, const DyadicOptions&, const Backend&);
FASTCONV_INSTANTIATE(float)
FASTCONV_INSTANTIATE(double)
FASTCONV_INSTANTIATE(std::int32_t)
FASTCONV_INSTANTIATE(std::int64_t)
#undef FASTCONV_INSTANTIATE

#define FASTCONV_INSTANTIATE(T)                                                                               \
  template void convolve_device<T>(DeviceArray<const T>, DeviceArray<const T>, DeviceArray<T>, const Backend&, \
                                   void*);                                                                    \
  template void autocorrelate_device<T>(DeviceArray<const T>, DeviceArray<T>, const Backend&, void*);          \
  template void deconvolve_device<T>(DeviceArray<const T>, DeviceArray<const T>, DeviceArray<T>, const Backend&, \
                                     void*);
FASTCONV_INSTANTIATE(float)
FASTCONV_INSTANTIATE(double)
#undef FASTCONV_INSTANTIATE

}  // namespace fastconv::detail

namespace fastconv {

using detail::i128;
using detail::u128;

template <Element T>
struct DyadicSystem<T>::Impl {
  using Word = std::conditional_t<std::is_floating_point_v<T>, T, std::uint64_t>;

  Impl(DyadicOptions o, Backend b) : options(o), backend(std::move(b)) {}

  DyadicOptions options;
  Backend backend;
  std::vector<T> h;  // integers: kept for the bound and the rare 128-bit path
  int log2h = 0;
  std::unique_ptr<detail::DyadicKernel> kernel;  // at h's size
  std::unique_ptr<detail::Spectrum> spectrum;    // W·h (integers: in Z/2^64)
  std::unique_ptr<DyadicSystem<double>> wide;    // float with Accumulation::float64: instead of the two above

  void apply(std::span<const T> x, std::span<T> out) const {
    const int log2x = log2_exact(x.size(), "DyadicSystem::apply: input");
    const int log2n = std::max(log2h, log2x);
    const std::size_t size = std::size_t{1} << log2n;
    detail::check_output(out, size, "DyadicSystem::apply");
    const auto& b = backend.impl();
    const auto* same = log2n == log2h ? kernel.get() : nullptr;
    if (wide) {
      detail::require_elements(size, sizeof(double), "the float64 result (float64 accumulation)");
      std::vector<double> result(size);
      wide->apply(detail::widened(x), std::span(result));
      detail::round_into(result, out);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (x.size() == size) {
        detail::apply_words(b, same, *spectrum, log2n, x.data(), out.data());
      } else {  // zero-pad the input in the output buffer
        std::fill(std::copy(x.begin(), x.end(), out.begin()), out.end(), T{0});
        detail::apply_words(b, same, *spectrum, log2n, out.data(), out.data());
      }
    } else {
      const std::span<const T> hs(h);
      const u128 bound = detail::convolution_bound(x, hs);
      switch (detail::choose_ring(bound, log2n)) {
        case detail::Ring::u64:
          if constexpr (std::is_same_v<T, std::int64_t>) {  // in the caller's words (dyadic.cpp's header)
            const auto ring = detail::ring_words(out);
            if (x.size() == size) {
              detail::apply_words(b, same, *spectrum, log2n, detail::ring_words(x).data(), ring.data());
            } else {  // zero-padded in the output
              std::fill(std::copy(x.begin(), x.end(), out.begin()), out.end(), T{0});
              detail::apply_words(b, same, *spectrum, log2n, ring.data(), ring.data());
            }
            detail::store_exact<T>(std::span<const std::uint64_t>(ring), log2n, out, "dyadic convolution");
          } else {
            auto words = detail::to_words<std::uint64_t>(x, size);
            detail::apply_words(b, same, *spectrum, log2n, words.data(), words.data());
            detail::store_exact<T>(std::span<const std::uint64_t>(words), log2n, out, "dyadic convolution");
          }
          break;
        case detail::Ring::u128:  // rare: recompute the spectrum in the wide ring
          detail::convolve(x, hs, out, options, backend);
          break;
        case detail::Ring::none: detail::throw_too_wide("dyadic convolution", detail::type_name<T>(), bound, log2n);
      }
    }
  }
};

template <Element T>
DyadicSystem<T>::DyadicSystem(std::span<const T> impulse_response, Backend backend)
    : DyadicSystem(impulse_response, DyadicOptions{}, std::move(backend)) {}

template <Element T>
DyadicSystem<T>::DyadicSystem(std::span<const T> impulse_response, DyadicOptions options, Backend backend)
    : impl_(std::make_unique<Impl>(options, std::move(backend))) {
  impl_->log2h = log2_exact(impulse_response.size(), "DyadicSystem: impulse response");
  if (detail::in_double_precision<T>(options)) {
    impl_->wide = detail::in_double([&] {
      return std::make_unique<DyadicSystem<double>>(detail::widened(impulse_response), DyadicOptions{}, impl_->backend);
    });
    return;
  }
  impl_->kernel = impl_->backend.impl().make_dyadic(impl_->log2h, detail::word_of<typename Impl::Word>);
  impl_->spectrum = detail::spectrum_of<typename Impl::Word>(*impl_->kernel, impulse_response);
  if constexpr (!std::is_floating_point_v<T>) impl_->h.assign(impulse_response.begin(), impulse_response.end());
}

template <Element T>
DyadicSystem<T>::~DyadicSystem() = default;
template <Element T>
DyadicSystem<T>::DyadicSystem(DyadicSystem&&) noexcept = default;
template <Element T>
DyadicSystem<T>& DyadicSystem<T>::operator=(DyadicSystem&&) noexcept = default;

template <Element T>
std::vector<T> DyadicSystem<T>::apply(std::span<const T> input) const {
  std::vector<T> out(std::max(size(), input.size()));
  impl_->apply(input, out);
  return out;
}

template <Element T>
void DyadicSystem<T>::apply(std::span<const T> input, std::span<T> output) const {
  impl_->apply(input, output);
}

template <Element T>
void DyadicSystem<T>::apply_device(DeviceArray<const T> input, DeviceArray<T> output, void* stream) const
  requires std::floating_point<T>
{
  detail::require_device_backend(impl_->backend.name(), "DyadicSystem::apply");
  if (impl_->wide)
    throw Error(ErrorCode::unsupported, "DyadicSystem::apply: a system with float64 accumulation widens the data on "
                                        "the host: device arrays take Accumulation::native");
  const int log2n = std::max(impl_->log2h, log2_exact(input.size, "DyadicSystem::apply: input"));
  detail::check_output(std::span(output.data, output.size), std::size_t{1} << log2n, "DyadicSystem::apply");
  const auto other = log2n == impl_->log2h ? nullptr : impl_->backend.impl().make_dyadic(log2n, detail::word_of<T>);
  (other ? *other : *impl_->kernel)
      .run_device(detail::DyadicOp::convolve, impl_->spectrum.get(), input.data, input.size, output.data,
                  std::ldexp(1.0, -log2n), stream);
}

template <Element T>
std::size_t DyadicSystem<T>::size() const noexcept {
  return std::size_t{1} << impl_->log2h;
}

template <Element T>
const DyadicOptions& DyadicSystem<T>::options() const noexcept {
  return impl_->options;
}

template <Element T>
const Backend& DyadicSystem<T>::backend() const noexcept {
  return impl_->backend;
}

template class DyadicSystem<float>;
template class DyadicSystem<double>;
template class DyadicSystem<std::int32_t>;
template class DyadicSystem<std::int64_t>;

}  // namespace fastconv
