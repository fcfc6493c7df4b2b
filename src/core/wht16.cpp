#include "core/wht16.hpp"

#include <algorithm>
#include <vector>

namespace fastconv::detail {
namespace {

/// Float scratch per block of rows: enough rows to keep every thread of the cpu backend busy,
/// few enough that a block converted to float is still in the last-level cache when the
/// transform reads it, and the copy never doubles the memory a large batch takes.
constexpr std::size_t kBlockFloats = std::size_t{1} << 20;

// Plain loops over the branch-free conversions of types.hpp: the compiler vectorises them.
template <HalfFloat T>
void widen(const T* from, float* to, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) to[i] = from[i];
}

template <HalfFloat T>
void narrow(const float* from, T* to, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) to[i] = T(from[i]);
}

/// A backend's float kernel on float copies of blocks of rows of 16-bit values.
template <HalfFloat T>
class ConvertingWht final : public WhtKernel {
 public:
  ConvertingWht(std::unique_ptr<WhtKernel> float_kernel, int log2n)
      : float_kernel_(std::move(float_kernel)), size_(std::size_t{1} << log2n) {}

  /// The conversion runs on the host: 16-bit device data need a native kernel.
  void execute_device(void*, std::size_t, std::size_t, double, void*) const override {
    throw Error(ErrorCode::unsupported, "16-bit float device arrays need the cuda backend's fast variant and rows of "
                                        "at least 8 points (other variants convert to float on the host)");
  }

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    T* const values = static_cast<T*>(data);
    const std::size_t block_rows = std::clamp<std::size_t>(kBlockFloats / size_, 1, rows);
    std::vector<float> block(block_rows * size_);  // per call: a plan may run on several threads at once
    for (std::size_t first = 0; first < rows; first += block_rows) {
      const std::size_t count = std::min(block_rows, rows - first);
      for (std::size_t r = 0; r < count; ++r) widen(values + (first + r) * stride, block.data() + r * size_, size_);
      float_kernel_->execute(block.data(), count, size_, scale);
      for (std::size_t r = 0; r < count; ++r) narrow(block.data() + r * size_, values + (first + r) * stride, size_);
    }
  }

 private:
  std::unique_ptr<WhtKernel> float_kernel_;
  std::size_t size_;
};

}  // namespace

std::unique_ptr<WhtKernel> make_wht16(const BackendImpl& backend, int log2n, Word16 word, Order order) {
  if (auto native = backend.make_wht16(log2n, word, order)) return native;
  auto float_kernel = backend.make_wht(log2n, Word::f32, order);
  if (word == Word16::f16) return std::make_unique<ConvertingWht<float16>>(std::move(float_kernel), log2n);
  return std::make_unique<ConvertingWht<bfloat16>>(std::move(float_kernel), log2n);
}

}  // namespace fastconv::detail
