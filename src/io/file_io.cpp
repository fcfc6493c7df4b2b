// Choosing the format by extension, and reading and writing whole files.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/files.hpp"

namespace fastconv::io {
namespace {

constexpr std::string_view kExtensions = "use .txt, .csv, .tsv, .dat, .npy, .bin or .raw";

}  // namespace

namespace {

std::string lower_extension(const std::filesystem::path& path) {
  std::string lower = path.extension().string();
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

}  // namespace

bool has_npy_extension(const std::filesystem::path& path) { return lower_extension(path) == ".npy"; }

Format format_of(const std::filesystem::path& path) {
  if (path.empty()) throw Error(ErrorCode::invalid_argument, "an empty file name: " + std::string(kExtensions));
  const std::string extension = path.extension().string();
  const std::string lower = lower_extension(path);
  if (lower == ".npy") return Format::npy;
  if (lower == ".bin" || lower == ".raw") return Format::raw;
  if (lower == ".txt" || lower == ".csv" || lower == ".tsv" || lower == ".dat") return Format::text;
  const std::string problem = extension.empty() ? "no extension" : "unknown extension '" + extension + "'";
  detail::fail(ErrorCode::invalid_argument, path.string(), problem + ": " + std::string(kExtensions));
}

Array read_file(const std::filesystem::path& path, std::optional<DType> raw_dtype) {
  switch (format_of(path)) {
    case Format::npy: return read_npy(path);
    case Format::raw:
      if (!raw_dtype) {
        detail::fail(ErrorCode::invalid_argument, path.string(),
                     "a raw file does not record its element type: name one (float32, float64, int32, int64, float16 or bfloat16)");
      }
      return read_raw(path, *raw_dtype);
    case Format::text: break;
  }
  // Read through InputFile, not std::ifstream, so a missing file is reported with its reason.
  std::istringstream text(detail::InputFile(path).read_rest());
  return read_text(text, path.string());
}

void write_file(const std::filesystem::path& path, const Array& array) {
  const Format format = format_of(path);
  detail::require_consistent(array, path.string());
  if (format == Format::npy && array.dtype() == DType::bfloat16)
    detail::fail(ErrorCode::invalid_argument, path.string(),
                 "bfloat16 has no NumPy dtype, so it cannot be written to .npy: write text or raw (.bin), or "
                 "convert to float32");
  detail::AtomicFile file(path);
  switch (format) {
    case Format::text: detail::write_text_chunks(array, [&](std::string_view text) { file.write(text); }); break;
    case Format::npy:
      file.write(detail::npy_header(array));
      file.write(detail::value_bytes(array));
      break;
    case Format::raw: file.write(detail::value_bytes(array)); break;
  }
  file.commit();
}

void write_npy_tensor(const std::filesystem::path& path, const Tensor& tensor) {
  if (format_of(path) != Format::npy)
    detail::fail(ErrorCode::invalid_argument, path.string(), "a tensor of several dimensions is written as .npy only");
  detail::require_consistent(tensor.values, path.string());
  std::uint64_t count = 1;
  for (const std::size_t d : tensor.shape) count *= d;
  if (tensor.shape.empty() || count != tensor.values.size())
    detail::fail(ErrorCode::invalid_argument, path.string(), "the shape does not match the number of values");
  if (tensor.values.dtype() == DType::bfloat16)
    detail::fail(ErrorCode::invalid_argument, path.string(), "bfloat16 has no NumPy dtype, so it cannot be written to .npy");
  detail::AtomicFile file(path);
  file.write(detail::npy_header(tensor.values.dtype(), std::vector<std::uint64_t>(tensor.shape.begin(), tensor.shape.end())));
  file.write(detail::value_bytes(tensor.values));
  file.commit();
}

}  // namespace fastconv::io
