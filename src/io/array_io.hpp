// src/io/array_io.hpp — reading and writing arrays: text, NumPy .npy and raw binary.
//
// I/O lives at the edges (CLI, bindings); kernels never see a file. Every failure is a
// fastconv::Error whose message names the source (file name or "<stdin>"), the place
// (line and column, element index or byte offset) and the reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fastconv/types.hpp"

namespace fastconv::io {

/// A 1-D array or a 2-D batch of `rows` rows of `cols` elements, row-major.
struct Array {
  using Storage = std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>,
                               std::vector<std::int64_t>, std::vector<float16>, std::vector<bfloat16>>;
  std::size_t rows = 1;
  std::size_t cols = 0;
  bool two_d = false;  ///< the source was 2-D (kept by writers); a 1-D array has rows == 1
  Storage data;

  [[nodiscard]] DType dtype() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept { return rows * cols; }
  template <class T>
  [[nodiscard]] std::vector<T>& values() { return std::get<std::vector<T>>(data); }
  template <class T>
  [[nodiscard]] const std::vector<T>& values() const { return std::get<std::vector<T>>(data); }
};

/// Makes an Array holding `values` with the given shape (rows * cols == values.size()).
template <class T>
Array make_array(std::vector<T> values, std::size_t rows, std::size_t cols, bool two_d) {
  Array a;
  a.rows = rows;
  a.cols = cols;
  a.two_d = two_d;
  a.data = std::move(values);
  return a;
}

enum class Format { text, npy, raw };

/// The format a path's extension names: .npy -> npy; .bin, .raw -> raw;
/// .txt, .csv, .tsv, .dat -> text. Anything else is an invalid_argument Error.
Format format_of(const std::filesystem::path& path);
/// Whether the path's extension is .npy, in any case (as format_of reads it).
bool has_npy_extension(const std::filesystem::path& path);

/// Reads text: numbers separated by whitespace and/or commas, '#' starts a comment
/// that runs to the end of the line, blank lines are ignored. Each non-empty line is a row;
/// if every row has one value the result is 1-D (a column of numbers is a vector), if
/// all rows have the same length > 1 and there are several rows it is 2-D, rows of
/// unequal length are an error. If every value is an integer the result is int64,
/// otherwise float64. NaN and infinities are rejected. `source` names the input in messages.
Array read_text(std::istream& in, std::string_view source);

/// Reads a .npy file (format versions 1, 2 and 3; little-endian <f4, <f8, <i4, <i8, <f2
/// (float16), and the integers |b1, |i1, |u1, <i2, <u2 as int32, <u4, <u8 as int64; C order;
/// 1-D or 2-D). The header's claimed size is checked against the file size before anything
/// is allocated. NaN and infinities are rejected.
Array read_npy(const std::filesystem::path& path);

/// Reads raw little-endian values of `dtype` (1-D). NaN and infinities are rejected.
Array read_raw(const std::filesystem::path& path, DType dtype);

/// Reads `path` in the format its extension names. `raw_dtype` is required for raw files
/// (an invalid_argument Error without it) and ignored otherwise.
Array read_file(const std::filesystem::path& path, std::optional<DType> raw_dtype);

/// Writes one row per line, values separated by single spaces; integers without a decimal
/// point, floating-point values in the shortest form that reads back to the same value
/// (float16 and bfloat16: the float they equal, in its shortest form).
void write_text(std::ostream& out, const Array& array);

/// Writes `array` to `path` in the format its extension names (.npy keeps 1-D/2-D shape;
/// raw writes the values only). bfloat16 has no NumPy dtype: writing it to .npy is an
/// invalid_argument Error (use text, raw, or float32). The data goes to a temporary file in the same directory
/// that is renamed over `path` only once complete: a failure leaves no new file and
/// never touches an existing one.
void write_file(const std::filesystem::path& path, const Array& array);

/// An array of any number of dimensions (conv2d's NCHW tensors): its shape, and its values
/// in C order as a 1-D Array.
struct Tensor {
  std::vector<std::size_t> shape;
  Array values;
};
inline constexpr std::size_t kMaxTensorDimensions = 8;
/// Reads a .npy file as read_npy does, of 1 to kMaxTensorDimensions dimensions.
Tensor read_npy_tensor(const std::filesystem::path& path);
/// Writes `tensor` as .npy (`path` must end in .npy), atomically as write_file does; the
/// shape's product must be the number of values.
void write_npy_tensor(const std::filesystem::path& path, const Tensor& tensor);

/// Where the values of a .npy or raw file lie, for readers that stream them in pieces (the
/// out-of-core and MPI-distributed transforms) rather than load the whole array.
struct ArrayFileLayout {
  Format format = Format::raw;
  DType dtype = DType::float64;
  std::vector<std::uint64_t> shape;  ///< .npy: the header's (1-D or 2-D); raw: {count}
  std::uint64_t data_offset = 0;     ///< the byte offset of the first value
  [[nodiscard]] std::uint64_t count() const noexcept;
};

/// Reads and checks a .npy header as read_npy does (version, dtype, C order, 1-D or 2-D, the
/// file's size against the header), or a raw file's size, without reading any value. Text
/// files cannot be streamed: an invalid_argument Error. `raw_dtype` as for read_file.
ArrayFileLayout read_array_layout(const std::filesystem::path& path, std::optional<DType> raw_dtype);

/// The bytes ahead of the values in file `path` (in the format its extension names) holding a
/// C-order array of `shape` and `dtype`: a .npy header, or nothing (raw). A text file, or
/// bfloat16 in .npy, is an invalid_argument Error naming `path`.
std::string array_file_prefix(const std::filesystem::path& path, DType dtype, const std::vector<std::uint64_t>& shape);

/// Converts `array` to `to`. Integer -> float is always allowed (int64 values beyond 2^53
/// round), as is rounding to a narrower float as long as no finite value becomes infinite
/// (to float16 and bfloat16: rounded once, to nearest even); float -> integer requires every
/// value to be integral and in range, int64 -> int32 requires every value in range; otherwise
/// an invalid_argument Error naming the first offending element and `source`. `first`: the
/// index in `source` of a 1-D array's element 0, when the array is a piece of it.
Array convert(const Array& array, DType to, std::string_view source, std::uint64_t first = 0);

}  // namespace fastconv::io
