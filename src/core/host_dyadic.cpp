// The default dyadic-convolution engine: spectra in host memory, transforms by the
// backend's own WHT kernels. Backends with device memory override BackendImpl::make_dyadic.
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"
#include "cpu/backends.hpp"

namespace fastconv::detail {
namespace {

template <class W>
class HostSpectrum final : public Spectrum {
 public:
  std::vector<W> values;
};

template <class W>
class HostDyadic final : public DyadicKernel {
 public:
  HostDyadic(const BackendImpl& backend, int log2n)
      : log2n_(log2n), wht_(backend.make_wht(log2n, word_of<W>, Order::hadamard)) {}

  std::unique_ptr<Spectrum> spectrum(const void* h) const override {
    auto s = std::make_unique<HostSpectrum<W>>();
    s->log2n = log2n_;
    require_elements(size(), sizeof(W), "the spectrum");
    s->values.assign(static_cast<const W*>(h), static_cast<const W*>(h) + size());
    forward(s->values.data());
    return s;
  }

  void apply(const Spectrum& s, const void* x, void* out, double scale) const override {
    W* y = load(x, out);
    const auto& spec = values_of(s);
    const std::size_t mask = spec.size() - 1;
    const W factor = ring_or_float(scale);
    for (std::size_t k = 0; k < size(); ++k) y[k] *= spec[k & mask] * factor;
    forward(y);
  }

  void autocorrelate(const void* x, void* out, double scale) const override {
    W* y = load(x, out);
    const W factor = ring_or_float(scale);
    for (std::size_t k = 0; k < size(); ++k) y[k] *= y[k] * factor;
    forward(y);
  }

  void deconvolve(const Spectrum& s, const void* y_in, void* out, double scale) const override {
    if constexpr (!std::is_floating_point_v<W>) {
      throw Error(ErrorCode::unsupported, "deconvolution in integer rings is done exactly by the caller");
    } else {
      const auto& spec = values_of(s);
      if (const std::ptrdiff_t k = first_zero(spec.data(), s.log2n, s.zero_threshold); k >= 0)
        throw_singular(static_cast<std::size_t>(k), std::abs(static_cast<double>(spec[k])), s.zero_threshold);
      W* y = load(y_in, out);
      const std::size_t mask = spec.size() - 1;
      const W factor = static_cast<W>(scale);
      for (std::size_t k = 0; k < size(); ++k) y[k] = y[k] / spec[k & mask] * factor;
      forward(y);
    }
  }

 private:
  std::size_t size() const noexcept { return std::size_t{1} << log2n_; }
  void forward(W* data) const { wht_->execute(data, 1, size(), 1.0); }

  W* load(const void* x, void* out) const {
    if (x != out) std::memcpy(out, x, size() * sizeof(W));
    W* y = static_cast<W*>(out);
    forward(y);
    return y;
  }

  static const std::vector<W>& values_of(const Spectrum& s) {
    return static_cast<const HostSpectrum<W>&>(s).values;
  }

  static W ring_or_float(double scale) {
    if constexpr (std::is_floating_point_v<W>) return static_cast<W>(scale);
    else return W{1};  // rings: the caller divides exactly
  }

  int log2n_;
  std::unique_ptr<WhtKernel> wht_;
};

}  // namespace

void throw_singular(std::size_t k, double magnitude, double threshold) {
  std::ostringstream msg;
  msg << "deconvolve: the Walsh spectrum of h is zero at index " << k << " (|H(" << k << ")| = " << magnitude
      << " <= tolerance " << threshold << "): the system is singular and its input cannot be identified";
  throw Error(ErrorCode::invalid_argument, msg.str());
}

namespace {
[[noreturn]] void throw_host_memory() {
  throw Error(ErrorCode::unsupported, "this backend computes on host memory: device arrays need the cuda backend");
}
}  // namespace

void require_device_backend(std::string_view backend, std::string_view op) {
  if (backend != "cuda")
    throw Error(ErrorCode::unsupported, std::string(op) + " of device arrays runs on the cuda backend, not on " +
                                            std::string(backend) + " (which computes on host memory)");
}

void WhtKernel::execute_device(void*, std::size_t, std::size_t, double, void*) const { throw_host_memory(); }
void DyadicKernel::convolve(const void* f, const void* g, void* out, double scale) const {
  apply(*spectrum(g), f, out, scale);
}

std::unique_ptr<Spectrum> DyadicKernel::spectrum_device(const void*, void*, bool) const { throw_host_memory(); }
void DyadicKernel::run_device(DyadicOp, const Spectrum*, const void*, std::size_t, void*, double, void*) const {
  throw_host_memory();
}

std::unique_ptr<DyadicKernel> BackendImpl::make_dyadic(int log2n, Word word) const {
  return make_for_word<HostDyadic, DyadicKernel>(word, *this, log2n);
}

}  // namespace fastconv::detail
