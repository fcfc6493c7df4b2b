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
/// - `cpu`: vectorised (SSE2/AVX2/AVX-512 chosen at run time), cache-blocked and
///   multithreaded (OpenMP) kernels.
class Backend {
 public:
  /// The textbook loop (seed 004's Algorithm 0).
  static Backend reference();
  /// The fast CPU backend. `threads` = 0 uses OpenMP's default (all cores, or OMP_NUM_THREADS).
  static Backend cpu(int threads = 0);
  /// The fastest backend this build offers (today: cpu).
  static Backend best();
  /// A backend by name: "reference", "cpu", or "auto" (= best()). An unknown name is an
  /// invalid_argument Error that lists the valid ones.
  static Backend from_name(std::string_view name, int threads = 0);
  /// Names accepted by from_name(), "auto" first.
  static std::vector<std::string> names();

  /// "reference" or "cpu".
  [[nodiscard]] std::string_view name() const noexcept;
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
