#include "core/finite.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "fastconv/error.hpp"

namespace fastconv::detail {

template <TransformElement T>
void reject_non_finite(std::span<const T> values, std::uint64_t first, std::string_view source) {
  if constexpr (!std::is_integral_v<T>) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double value = static_cast<double>(values[i]);
      if (std::isfinite(value)) continue;
      char text[16];
      const auto end = std::to_chars(text, text + sizeof text, value).ptr;  // "nan", "-inf", ...
      throw Error(ErrorCode::invalid_argument, std::string(source) + ": element " + std::to_string(first + i) +
                                                   ": non-finite value '" + std::string(text, end) +
                                                   "': NaN and infinities are not accepted");
    }
  }
}
template void reject_non_finite(std::span<const float>, std::uint64_t, std::string_view);
template void reject_non_finite(std::span<const double>, std::uint64_t, std::string_view);
template void reject_non_finite(std::span<const std::int32_t>, std::uint64_t, std::string_view);
template void reject_non_finite(std::span<const std::int64_t>, std::uint64_t, std::string_view);
template void reject_non_finite(std::span<const float16>, std::uint64_t, std::string_view);
template void reject_non_finite(std::span<const bfloat16>, std::uint64_t, std::string_view);

}  // namespace fastconv::detail
