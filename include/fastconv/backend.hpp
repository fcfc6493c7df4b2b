// fastconv/backend.hpp — where a computation runs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fastconv {

namespace detail {
class BackendImpl;
}

/// A handle to a compute backend. Cheap to copy; plans keep the backend they were made on.
///
/// - `reference`: seed 004's Algorithm 0, the textbook loop on one thread. Slow and simple
///   on purpose: it is the oracle every other path is tested against.
/// - `cpu`: vectorised, cache-blocked and multithreaded (OpenMP) kernels. Its variants are
///   the instruction sets this CPU runs ("avx512", "avx2", "sse4", ...); the default is the
///   fastest one.
///
/// A variant is one implementation of a backend's algorithms (variants() lists them); every
/// variant computes the same results.
class Backend {
 public:
  /// The textbook loop (seed 004's Algorithm 0).
  static Backend reference();
  /// The fast CPU backend. `threads` = 0 uses OpenMP's default (all cores, or OMP_NUM_THREADS).
  /// `variant` names an instruction set from variants() ("" = the fastest this CPU has, or the
  /// one the environment variable FASTCONV_CPU_ISA names).
  static Backend cpu(int threads = 0, std::string_view variant = {});
  /// The fastest backend this build offers (today: cpu).
  static Backend best();
  /// A backend by name: "reference", "cpu", or "auto" (= best()), and optionally one of its
  /// variants ("" = its default). An unknown name or variant is an invalid_argument Error
  /// that lists the valid ones.
  static Backend from_name(std::string_view name, int threads = 0, std::string_view variant = {});
  /// Names accepted by from_name(), "auto" first.
  static std::vector<std::string> names();

  /// "reference" or "cpu".
  [[nodiscard]] std::string_view name() const noexcept;
  /// The variant in use, e.g. "avx2" (the reference backend's only one is "textbook").
  [[nodiscard]] std::string_view variant() const noexcept;
  /// Every variant this backend offers on this machine, slowest first.
  [[nodiscard]] std::vector<std::string> variants() const;
  /// One line about what the backend runs on, e.g. "cpu: AVX2+FMA kernels, 2 threads".
  [[nodiscard]] std::string description() const;

  /// The implementation (internal; used by plans).
  [[nodiscard]] const detail::BackendImpl& impl() const noexcept { return *impl_; }

 private:
  explicit Backend(std::shared_ptr<const detail::BackendImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const detail::BackendImpl> impl_;
};

/// The library's version, e.g. "0.1.0".
std::string_view version() noexcept;

}  // namespace fastconv
