// Array itself, conversions between element types, and the helpers every format shares.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/memory.hpp"

namespace fastconv::io {
namespace detail {

void fail(ErrorCode code, std::string_view source, std::string_view what) {
  std::string message(source);
  message += ": ";
  message += what;
  throw Error(code, message);
}

std::string printable(std::string_view text) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kDigits[byte >> 4];
      out += kDigits[byte & 15];
    }
  }
  return out;
}

std::string quoted_token(std::string_view token) {
  return "'" + printable(token.substr(0, kQuotedTokenBytes)) + (token.size() > kQuotedTokenBytes ? "…" : "") + "'";
}

std::string element_place(const Array& array, std::size_t index) {
  std::string place = "element " + std::to_string(index);
  if (array.two_d && array.cols > 0) {
    place += " (row " + std::to_string(index / array.cols) + ", column " + std::to_string(index % array.cols) + ")";
  }
  return place;
}

void require_consistent(const Array& array, std::string_view target) {
  const std::size_t count = std::visit([](const auto& v) { return v.size(); }, array.data);
  if (array.rows * array.cols != count) {
    fail(ErrorCode::invalid_argument, target,
         "the array's shape (" + std::to_string(array.rows) + ", " + std::to_string(array.cols) +
             ") does not match its " + std::to_string(count) + " values");
  }
}

void reject_non_finite(const Array& array, std::string_view source) {
  std::visit(
      [&](const auto& values) {
        using T = typename std::decay_t<decltype(values)>::value_type;
        if constexpr (!std::is_integral_v<T>) {
          for (std::size_t i = 0; i < values.size(); ++i) {
            if (!std::isfinite(static_cast<double>(values[i]))) {
              fail(ErrorCode::invalid_argument, source,
                   element_place(array, i) + ": non-finite value '" + format_value(values[i]) +
                       "': NaN and infinities are not accepted");
            }
          }
        }
      },
      array.data);
}

std::string_view value_bytes(const Array& array) {
  return std::visit(
      [](const auto& values) {
        return std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(values[0]));
      },
      array.data);
}

}  // namespace detail

DType Array::dtype() const noexcept {
  return std::visit([](const auto& values) { return dtype_of<typename std::decay_t<decltype(values)>::value_type>; },
                    data);
}

namespace {

// Whether `value` survives the trip to `To` unchanged (floats rounding to a narrower float excepted).
template <TransformElement To, TransformElement From>
bool representable(From value) {
  if constexpr (HalfFloat<From>) {
    return representable<To>(static_cast<float>(value));  // exact
  } else if constexpr (!std::is_integral_v<To>) {
    // Rounding is the point of narrowing to a float; only a finite value turning infinite is lost.
    return !std::isfinite(value) || std::isfinite(static_cast<double>(static_cast<To>(value)));
  } else if constexpr (std::is_floating_point_v<From>) {
    // -2^(bits-1) and 2^(bits-1) are exact in double; the comparison must not round To's max.
    constexpr double limit = -static_cast<double>(std::numeric_limits<To>::min());
    return std::trunc(value) == value && value >= -limit && value < limit;
  } else {
    return std::in_range<To>(value);
  }
}

template <TransformElement To, TransformElement From>
std::string why_not(From value) {
  // A float is shown as the double it equals: its shortest float form can look in range
  // (2^31 prints as "2147483600").
  using Shown = std::conditional_t<std::is_integral_v<From>, From, double>;
  const std::string text = "'" + detail::format_value(static_cast<Shown>(value)) + "'";
  const std::string to = std::string(to_string(dtype_of<To>));
  if constexpr (!std::is_integral_v<To>) {
    return text + " overflows " + to;
  } else if constexpr (!std::is_integral_v<From>) {
    if (std::trunc(static_cast<double>(value)) != static_cast<double>(value)) return text + " is not an integer";
  }
  return text + " is out of the " + to + " range";
}

template <TransformElement To, TransformElement From>
std::vector<To> convert_values(const Array& array, const std::vector<From>& values, std::string_view source,
                               std::uint64_t first) {
  fastconv::detail::require_elements(values.size(), sizeof(To),
                                     std::string(source) + ": converting to " + std::string(to_string(dtype_of<To>)));
  std::vector<To> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!representable<To>(values[i])) {
      detail::fail(ErrorCode::invalid_argument, source,
                   detail::element_place(array, static_cast<std::size_t>(first) + i) + ": " + why_not<To>(values[i]) +
                       ": cannot convert " +
                       std::string(to_string(dtype_of<From>)) + " to " + std::string(to_string(dtype_of<To>)));
    }
    out[i] = static_cast<To>(values[i]);
  }
  return out;
}

}  // namespace

Array convert(const Array& array, DType to, std::string_view source, std::uint64_t first) {
  return detail::with_element(to, [&](auto to_tag) {
    using To = decltype(to_tag);
    return std::visit(
        [&](const auto& values) {
          return make_array(convert_values<To>(array, values, source, first), array.rows, array.cols, array.two_d);
        },
        array.data);
  });
}

}  // namespace fastconv::io
