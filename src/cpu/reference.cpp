// The reference backend: seed 004's Algorithm 0 as printed, one thread. It is the oracle
// every other path is tested against, so it stays as plain as the paper's pseudocode.
#include <memory>
#include <string>
#include <vector>

#include "core/backend_impl.hpp"
#include "cpu/backends.hpp"
#include "cpu/order.hpp"

namespace fastconv::cpu {
namespace {

/// Algorithm 0 (Bikov & Bouyukliev 2018): in-place FWT, Hadamard order.
template <class W>
void algorithm0(W* wf, std::size_t size) {
  for (std::size_t j = 1; j < size; j *= 2) {
    for (std::size_t i = 0; i < size; ++i) {
      if ((i & j) == 0) {
        const W temp = wf[i];
        wf[i] = wf[i] + wf[i + j];
        wf[i + j] = temp - wf[i + j];
      }
    }
  }
}

template <class W>
class ReferenceWht final : public detail::WhtKernel {
 public:
  ReferenceWht(int log2n, Order order) : log2n_(log2n), order_(order) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    const std::size_t size = std::size_t{1} << log2n_;
    std::vector<W> natural;
    for (std::size_t r = 0; r < rows; ++r) {
      W* row = static_cast<W*>(data) + r * stride;
      algorithm0(row, size);
      if (order_ != Order::hadamard) {
        natural.assign(row, row + size);
        for (std::size_t k = 0; k < size; ++k) row[k] = natural[natural_index(k, log2n_, order_)];
      }
      if constexpr (std::is_floating_point_v<W>) {
        if (scale != 1.0)
          for (std::size_t k = 0; k < size; ++k) row[k] = static_cast<W>(row[k] * scale);
      }
    }
  }

 private:
  int log2n_;
  Order order_;
};

class ReferenceBackend final : public detail::BackendImpl {
 public:
  std::string_view name() const noexcept override { return "reference"; }
  std::string description() const override {
    return "reference: seed 004's Algorithm 0 (textbook loop), 1 thread";
  }
  std::string_view variant() const noexcept override { return "textbook"; }
  std::vector<std::string> variants() const override { return {"textbook"}; }
  std::unique_ptr<detail::WhtKernel> make_wht(int log2n, detail::Word word,
                                              Order order) const override {
    return detail::make_for_word<ReferenceWht>(word, log2n, order);
  }
};

}  // namespace

std::shared_ptr<const detail::BackendImpl> make_reference_backend() {
  return std::make_shared<ReferenceBackend>();
}

}  // namespace fastconv::cpu
