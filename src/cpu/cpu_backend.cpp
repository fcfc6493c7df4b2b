// The cpu backend: the blocked, vectorised, multithreaded kernels of blocked_wht.hpp for the
// instruction set of the running CPU, plus the output order and scale.
#include <omp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/backend_impl.hpp"
#include "cpu/backends.hpp"
#include "cpu/isa.hpp"
#include "cpu/order.hpp"

namespace fastconv::cpu {
namespace {

/// Rows up to this size are spread over threads one row per task.
constexpr int kRowParallelLog2 = 15;

template <class W>
class CpuWht final : public detail::WhtKernel {
 public:
  CpuWht(int log2n, Order order, int threads, const IsaKernels& isa)
      : log2n_(log2n), order_(order), threads_(threads), transform_(isa.wht<W>()) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    W* base = static_cast<W*>(data);
    const auto n_rows = static_cast<std::ptrdiff_t>(rows);
    if (rows > 1 && log2n_ <= kRowParallelLog2) {
      const int team = threads_ > 0 ? threads_ : omp_get_max_threads();
#pragma omp parallel num_threads(team) if (team > 1 && (rows << log2n_) >= (std::size_t{1} << 16))
      {
        std::vector<W> scratch;
#pragma omp for schedule(static)
        for (std::ptrdiff_t r = 0; r < n_rows; ++r) transform_row(base + r * stride, 1, scale, scratch);
      }
      return;
    }
    std::vector<W> scratch;
    for (std::ptrdiff_t r = 0; r < n_rows; ++r) transform_row(base + r * stride, threads_, scale, scratch);
  }

 private:
  void transform_row(W* row, int threads, double scale, std::vector<W>& scratch) const {
    transform_(row, log2n_, threads);
    const std::size_t size = std::size_t{1} << log2n_;
    if (order_ != Order::hadamard) {
      scratch.assign(row, row + size);
      for_each_natural_index(log2n_, order_, [&](std::size_t k, std::size_t h) { row[k] = scratch[h]; });
    }
    if constexpr (std::is_floating_point_v<W>) {
      if (scale != 1.0) {
        const W s = static_cast<W>(scale);
        for (std::size_t k = 0; k < size; ++k) row[k] *= s;
      }
    }
  }

  int log2n_;
  Order order_;
  int threads_;
  WhtFn<W> transform_;
};

class CpuBackend final : public detail::BackendImpl {
 public:
  CpuBackend(int threads, const IsaKernels& isa) : threads_(threads), isa_(isa) {}

  std::string_view name() const noexcept override { return "cpu"; }
  std::string description() const override {
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
    return "cpu: " + std::string(isa_.description) + " kernels, " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads");
  }
  std::string_view variant() const noexcept override { return isa_.name; }
  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const IsaKernels* isa : supported_isas()) names.emplace_back(isa->name);
    return names;
  }
  std::unique_ptr<detail::WhtKernel> make_wht(int log2n, detail::Word word,
                                              Order order) const override {
    return detail::make_for_word<CpuWht>(word, log2n, order, threads_, isa_);
  }

 private:
  int threads_;
  const IsaKernels& isa_;
};

}  // namespace

std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads, const IsaKernels& isa) {
  return std::make_shared<CpuBackend>(threads, isa);
}

std::shared_ptr<const detail::BackendImpl> make_cpu_backend(int threads) {
  return make_cpu_backend(threads, best_isa());
}

}  // namespace fastconv::cpu
