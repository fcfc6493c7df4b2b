// src/core/converting_wht.hpp — a backend's WHT in a wider word type W run on copies of blocks of
// rows of T: 16-bit floats computed in float (core/wht16.cpp), and float or 16-bit data
// accumulated in double (Accumulation::float64, core/wht.cpp).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"

namespace fastconv::detail {

/// The kernel `wide` (words W) on W copies of blocks of rows of T: each value is loaded exactly,
/// transformed and scaled in W, and rounded once to T on store (T's constructor from W: to
/// nearest even, and from double to a 16-bit float without a double rounding through float).
template <class T, class W>
class ConvertingWht final : public WhtKernel {
 public:
  /// W scratch per block of rows: enough rows to keep every thread of the cpu backend busy, few
  /// enough that a widened block is still in the last-level cache when the transform reads it,
  /// and the copy never doubles the memory a large batch takes.
  static constexpr std::size_t kBlockWords = std::size_t{1} << 20;

  using Widen = void (*)(const T*, W*, std::size_t);
  using Narrow = void (*)(const W*, T*, std::size_t);

  /// `device_refusal`: the message of the unsupported Error execute_device() throws (the
  /// conversion runs on the host). `widen`, `narrow`: the backend's own conversions, the same
  /// as T's (Conversions16), or null for the plain loops.
  ConvertingWht(std::unique_ptr<WhtKernel> wide, int log2n, std::string device_refusal, Widen widen = nullptr,
                Narrow narrow = nullptr)
      : wide_(std::move(wide)),
        size_(std::size_t{1} << log2n),
        device_refusal_(std::move(device_refusal)),
        widen_(widen != nullptr ? widen : &plain_widen),
        narrow_(narrow != nullptr ? narrow : &plain_narrow) {}

  void execute_device(void*, std::size_t, std::size_t, double, void*) const override {
    throw Error(ErrorCode::unsupported, device_refusal_);
  }

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    T* const values = static_cast<T*>(data);
    const std::size_t block_rows = std::clamp<std::size_t>(kBlockWords / size_, 1, rows);
    require_elements(block_rows * size_, sizeof(W), "the widened copy of the rows");
    std::vector<W> block(block_rows * size_);  // per call: a plan may run on several threads at once
    // Rows back to back convert as one run: short rows cost no call each.
    const bool packed = stride == size_;
    for (std::size_t first = 0; first < rows; first += block_rows) {
      const std::size_t count = std::min(block_rows, rows - first);
      const std::size_t runs = packed ? 1 : count, words = packed ? count * size_ : size_;
      for (std::size_t r = 0; r < runs; ++r) widen_(values + (first + r) * stride, block.data() + r * size_, words);
      wide_->execute(block.data(), count, size_, scale);
      for (std::size_t r = 0; r < runs; ++r) narrow_(block.data() + r * size_, values + (first + r) * stride, words);
    }
  }

 private:
  // Plain loops over the branch-free conversions of types.hpp: the compiler vectorises most.
  static void plain_widen(const T* from, W* to, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) to[i] = static_cast<W>(from[i]);
  }
  static void plain_narrow(const W* from, T* to, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) to[i] = T(from[i]);
  }

  std::unique_ptr<WhtKernel> wide_;
  std::size_t size_;
  std::string device_refusal_;
  Widen widen_;
  Narrow narrow_;
};

}  // namespace fastconv::detail
