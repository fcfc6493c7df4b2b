#include "fastconv/types.hpp"

#include "fastconv/error.hpp"

namespace fastconv {

std::string_view to_string(DType dtype) noexcept {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  if (name == "float32" || name == "f4" || name == "float") return DType::float32;
  if (name == "float64" || name == "f8" || name == "double") return DType::float64;
  if (name == "int32" || name == "i4") return DType::int32;
  if (name == "int64" || name == "i8") return DType::int64;
  if (name == "float16" || name == "f2" || name == "half") return DType::float16;
  if (name == "bfloat16" || name == "bf16") return DType::bfloat16;
  return std::nullopt;
}

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::io: return "io";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::device: return "device";
    case ErrorCode::overflow: return "overflow";
    case ErrorCode::out_of_memory: return "out_of_memory";
  }
  return "?";
}

}  // namespace fastconv
