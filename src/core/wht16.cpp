#include "core/wht16.hpp"

#include "core/converting_wht.hpp"

namespace fastconv::detail {

std::unique_ptr<WhtKernel> make_wht16(const BackendImpl& backend, int log2n, Word16 word, Order order) {
  if (auto native = backend.make_wht16(log2n, word, order)) return native;
  auto float_kernel = backend.make_wht(log2n, Word::f32, order);
  const std::string refusal = "16-bit float device arrays need the cuda backend's fast variant and rows of at least 8 "
                              "points (other variants convert to float on the host)";
  const BackendImpl::Conversions16 convert = backend.conversions16();
  if (word == Word16::f16)
    return std::make_unique<ConvertingWht<float16, float>>(std::move(float_kernel), log2n, refusal, convert.widen_f16,
                                                           convert.narrow_f16);
  return std::make_unique<ConvertingWht<bfloat16, float>>(std::move(float_kernel), log2n, refusal, convert.widen_bf16,
                                                          convert.narrow_bf16);
}

}  // namespace fastconv::detail
