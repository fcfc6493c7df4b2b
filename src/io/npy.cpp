// NumPy .npy files: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"

namespace fastconv::io {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kPreambleSize = kMagic.size() + 2;  // magic, major and minor version

// bfloat16 has no NumPy dtype (ml_dtypes' is not in NumPy's format): it is not stored in .npy.
constexpr std::array<std::pair<std::string_view, DType>, 5> kDescrs{{
    {"<f4", DType::float32},
    {"<f8", DType::float64},
    {"<i4", DType::int32},
    {"<i8", DType::int64},
    {"<f2", DType::float16},
}};

/// Integer dtypes no transform computes in, read into the smallest type that holds all their
/// values: bool, int8, uint8, int16 and uint16 as int32, uint32 and uint64 as int64 (a uint64
/// beyond int64's range is an error naming it). S-box tables are often uint8 (the product's own
/// SBox.lut() is uint32), truth tables bool or uint8.
struct Widened {
  std::string_view descr, name;
  std::size_t item;
  bool is_signed;
  DType to;
};
constexpr std::array<Widened, 7> kWidened{{
    {"|b1", "bool", 1, false, DType::int32},
    {"|i1", "int8", 1, true, DType::int32},
    {"|u1", "uint8", 1, false, DType::int32},
    {"<i2", "int16", 2, true, DType::int32},
    {"<u2", "uint16", 2, false, DType::int32},
    {"<u4", "uint32", 4, false, DType::int64},
    {"<u8", "uint64", 8, false, DType::int64},
}};

const Widened* widened_of(std::string_view descr) {
  for (const Widened& w : kWidened)
    if (descr == w.descr) return &w;
  return nullptr;
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

// Parses the header's Python dict literal, e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (3,), }:
// keys in any order, any whitespace, either quote, a trailing comma, and the "L" suffix that
// Python 2 wrote after long integers.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  NpyHeader parse() {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::uint64_t>> shape;
    expect('{');
    while (!accept('}')) {
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        set_once(descr, parse_string(), key);
      } else if (key == "fortran_order") {
        set_once(fortran_order, parse_bool(), key);
      } else if (key == "shape") {
        set_once(shape, parse_shape(), key);
      } else {
        malformed("unexpected key '" + detail::printable(key) + "'");
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_blanks();
    if (pos_ != text_.size()) malformed("unexpected text after the dictionary");
    if (!descr) malformed("the key 'descr' is missing");
    if (!fortran_order) malformed("the key 'fortran_order' is missing");
    if (!shape) malformed("the key 'shape' is missing");
    return {std::move(*descr), *fortran_order, std::move(*shape)};
  }

 private:
  template <class T>
  void set_once(std::optional<T>& slot, T value, std::string_view key) {
    if (slot) malformed("the key '" + detail::printable(key) + "' appears twice");
    slot = std::move(value);
  }

  void skip_blanks() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool accept(char c) {
    skip_blanks();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool accept_word(std::string_view word) {
    skip_blanks();
    if (!text_.substr(pos_).starts_with(word)) return false;
    pos_ += word.size();
    return true;
  }

  void expect(char c) {
    if (!accept(c)) malformed(std::string("expected '") + c + "'");
  }

  std::string parse_string() {
    skip_blanks();
    const char quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') malformed("expected a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) malformed("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  bool parse_bool() {
    if (accept_word("True")) return true;
    if (accept_word("False")) return false;
    malformed("expected True or False");
  }

  std::vector<std::uint64_t> parse_shape() {
    std::vector<std::uint64_t> shape;
    expect('(');
    while (!accept(')')) {
      shape.push_back(parse_dimension());
      accept('L');
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::uint64_t parse_dimension() {
    skip_blanks();
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_) {
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        malformed("a dimension does not fit in 64 bits");
      }
    }
    if (pos_ == start) malformed("expected a dimension (a non-negative integer)");
    return value;
  }

  [[noreturn]] void malformed(const std::string& what) const {
    detail::fail(ErrorCode::io, source_, "malformed .npy header: " + what + " at header byte " + std::to_string(pos_));
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

DType parse_descr(const std::string& descr, std::string_view source) {
  for (const auto& [name, dtype] : kDescrs) {
    if (descr == name) return dtype;
  }
  if (const Widened* w = widened_of(descr)) {
    detail::fail(ErrorCode::invalid_argument, source,
                 "dtype " + std::string(w->name) + " is read whole only (as " + std::string(to_string(w->to)) +
                     "), not in pieces: convert the array to " + std::string(to_string(w->to)) +
                     " (numpy's astype) first");
  }
  detail::fail(ErrorCode::io, source,
               "unsupported dtype '" + detail::printable(descr) +
                   "': only little-endian <f4, <f8, <i4, <i8, <f2 and the integers |b1, |i1, |u1, <i2, <u2, <u4, <u8 "
                   "are read");
}

/// Reads `count` values of a widened dtype and converts them to its wider type.
Array read_widened(detail::InputFile& file, const Widened& w, std::size_t count) {
  const std::string what = file.name() + ": reading " + std::to_string(count) + " " + std::string(w.name) + " values";
  fastconv::detail::require_elements(count, w.item + size_of(w.to), what);
  std::vector<unsigned char> bytes(count * w.item);
  file.read_exact(bytes.data(), bytes.size());
  const bool boolean = w.descr == "|b1";
  const auto value = [&](std::size_t i) -> std::int64_t {  // little-endian, as the descr says
    std::uint64_t u = 0;
    for (std::size_t b = w.item; b-- > 0;) u = u << 8 | bytes[i * w.item + b];
    if (boolean) return u != 0;
    if (w.is_signed && w.item < 8 && (u >> (8 * w.item - 1)) != 0) u |= ~std::uint64_t(0) << (8 * w.item);
    if (!w.is_signed && w.item == 8 && u > static_cast<std::uint64_t>(INT64_MAX)) {
      detail::fail(ErrorCode::invalid_argument, file.name(),
                   "element " + std::to_string(i) + ": " + std::to_string(u) + " does not fit int64, the widest "
                   "integer type computed in");
    }
    return static_cast<std::int64_t>(u);
  };
  if (w.to == DType::int32) {
    std::vector<std::int32_t> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<std::int32_t>(value(i));
    return make_array(std::move(values), 1, count, false);
  }
  std::vector<std::int64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = value(i);
  return make_array(std::move(values), 1, count, false);
}

std::string_view descr_of(DType dtype) {
  for (const auto& [name, d] : kDescrs) {
    if (d == dtype) return name;
  }
  return {};
}

// Reads the preamble and the header; leaves the file at the first data byte.
std::pair<NpyHeader, std::uint64_t> read_header(detail::InputFile& file, std::uint64_t file_size) {
  std::array<char, kPreambleSize> preamble{};
  if (file_size < preamble.size()) {
    detail::fail(ErrorCode::io, file.name(), "not a .npy file: " + std::to_string(file_size) + " bytes is too short");
  }
  file.read_exact(preamble.data(), preamble.size());
  if (std::string_view(preamble.data(), kMagic.size()) != kMagic) {
    detail::fail(ErrorCode::io, file.name(), "not a .npy file: it does not start with \\x93NUMPY");
  }
  const auto major = static_cast<unsigned char>(preamble[kMagic.size()]);
  const auto minor = static_cast<unsigned char>(preamble[kMagic.size() + 1]);
  if (major < 1 || major > 3 || minor != 0) {  // NumPy writes only these three
    detail::fail(ErrorCode::io, file.name(),
                 "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                     ": versions 1.0, 2.0 and 3.0 are read");
  }
  // Version 1 stores the header length in 2 bytes, later versions in 4 (little-endian).
  const std::size_t length_size = major == 1 ? 2 : 4;
  std::array<unsigned char, 4> length_bytes{};
  if (file_size < preamble.size() + length_size)
    detail::fail(ErrorCode::io, file.name(), "truncated: the file ends inside the .npy header");
  file.read_exact(length_bytes.data(), length_size);
  std::uint64_t header_length = 0;
  for (std::size_t i = length_size; i-- > 0;) header_length = header_length << 8 | length_bytes[i];
  const std::uint64_t data_offset = preamble.size() + length_size + header_length;
  if (data_offset > file_size) {
    detail::fail(ErrorCode::io, file.name(),
                 "truncated: the header claims " + std::to_string(header_length) + " bytes but only " +
                     std::to_string(file_size - preamble.size() - length_size) + " follow");
  }
  std::string text(header_length, '\0');
  file.read_exact(text.data(), text.size());
  return {HeaderParser(text, file.name()).parse(), data_offset};
}

// The number of elements the shape holds, checked so that it and its size in bytes fit in 64 bits.
std::uint64_t element_count(const std::vector<std::uint64_t>& shape, std::size_t item, std::string_view source) {
  std::uint64_t count = 1;
  for (const std::uint64_t dimension : shape) {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, dimension, &count) || __builtin_mul_overflow(count, item, &bytes)) {
      detail::fail(ErrorCode::io, source, "shape " + shape_text(shape) + " is too large: its size overflows 64 bits");
    }
  }
  return count;
}

void check_shape(const NpyHeader& header, std::string_view source, std::size_t max_dimensions) {
  if (header.fortran_order) {
    detail::fail(ErrorCode::io, source,
                 "Fortran-order (column-major) arrays are not read: save a C-order array "
                 "(numpy.ascontiguousarray)");
  }
  if (header.shape.empty() || header.shape.size() > max_dimensions) {
    detail::fail(ErrorCode::io, source,
                 "shape " + shape_text(header.shape) + " has " + std::to_string(header.shape.size()) +
                     " dimensions: only " + (max_dimensions == 2 ? std::string("1-D and 2-D arrays are") :
                     "arrays of 1 to " + std::to_string(max_dimensions) + " dimensions are") + " read here");
  }
}

void check_data_size(std::uint64_t count, std::uint64_t bytes, std::uint64_t available, std::string_view source) {
  const std::string promise = std::to_string(count) + " elements (" + std::to_string(bytes) + " bytes of data)";
  if (bytes > available) {
    detail::fail(
        ErrorCode::io, source,
        "truncated: header promises " + promise + " but the file has " + std::to_string(available) + " bytes of data");
  }
  if (bytes < available) {
    detail::fail(ErrorCode::io, source,
                 std::to_string(available - bytes) + " unexpected bytes after the " + promise + " the header promises");
  }
}

}  // namespace

namespace detail {

std::string npy_header(const Array& array) {
  return npy_header(array.dtype(), array.two_d ? std::vector<std::uint64_t>{array.rows, array.cols}
                                               : std::vector<std::uint64_t>{array.size()});
}

std::string npy_header(DType dtype, const std::vector<std::uint64_t>& shape) {
  std::string dict = "{'descr': '" + std::string(descr_of(dtype)) +
                     "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // NumPy pads with spaces so the data starts at a multiple of 64 bytes, aligned for mmap.
  const std::size_t unpadded = kPreambleSize + 2 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header(kMagic);
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

}  // namespace detail

namespace {

/// The header and values of a .npy file of 1 to `max_dimensions` dimensions, all checked.
std::pair<NpyHeader, Array> read_checked(const std::filesystem::path& path, std::size_t max_dimensions) {
  detail::InputFile file(path);
  const std::uint64_t file_size = file.size();
  auto [header, data_offset] = read_header(file, file_size);
  const Widened* widened = widened_of(header.descr);
  const std::optional<DType> dtype =
      widened != nullptr ? std::nullopt : std::optional(parse_descr(header.descr, file.name()));
  const std::size_t item = dtype ? size_of(*dtype) : widened->item;
  check_shape(header, file.name(), max_dimensions);
  const std::uint64_t count = element_count(header.shape, item, file.name());
  check_data_size(count, count * item, file_size - data_offset, file.name());
  if (count == 0) {
    detail::fail(ErrorCode::invalid_argument, file.name(),
                 "no values: the array's shape is " + shape_text(header.shape));
  }
  Array array = dtype ? detail::read_values(file, *dtype, static_cast<std::size_t>(count))
                      : read_widened(file, *widened, static_cast<std::size_t>(count));
  if (header.shape.size() == 2) {  // a NaN is then reported with its row and column
    array.rows = static_cast<std::size_t>(header.shape[0]);
    array.cols = static_cast<std::size_t>(header.shape[1]);
    array.two_d = true;
  }
  detail::reject_non_finite(array, file.name());
  return {std::move(header), std::move(array)};
}

}  // namespace

std::uint64_t ArrayFileLayout::count() const noexcept {
  std::uint64_t count = 1;
  for (const std::uint64_t d : shape) count *= d;
  return count;
}

ArrayFileLayout read_array_layout(const std::filesystem::path& path, std::optional<DType> raw_dtype) {
  ArrayFileLayout layout;
  layout.format = format_of(path);
  detail::InputFile file(path);
  const std::uint64_t file_size = file.size();
  switch (layout.format) {
    case Format::text:
      detail::fail(ErrorCode::invalid_argument, file.name(),
                   "a text file cannot be read in pieces: convert it to .npy or raw (.bin)");
    case Format::raw: {
      if (!raw_dtype) detail::fail(ErrorCode::invalid_argument, file.name(), "a raw file needs --dtype");
      layout.dtype = *raw_dtype;
      const std::size_t item = size_of(layout.dtype);
      if (file_size == 0) detail::fail(ErrorCode::invalid_argument, file.name(), "no values: the file is empty");
      if (file_size % item != 0)
        detail::fail(ErrorCode::io, file.name(),
                     "size " + std::to_string(file_size) + " bytes is not a multiple of " + std::to_string(item) +
                         " (" + std::string(to_string(layout.dtype)) + ")");
      layout.shape = {file_size / item};
      return layout;
    }
    case Format::npy: break;
  }
  auto [header, data_offset] = read_header(file, file_size);
  layout.dtype = parse_descr(header.descr, file.name());
  check_shape(header, file.name(), 2);
  const std::uint64_t count = element_count(header.shape, size_of(layout.dtype), file.name());
  check_data_size(count, count * size_of(layout.dtype), file_size - data_offset, file.name());
  if (count == 0)
    detail::fail(ErrorCode::invalid_argument, file.name(), "no values: the array's shape is " + shape_text(header.shape));
  layout.shape = std::move(header.shape);
  layout.data_offset = data_offset;
  return layout;
}

std::string array_file_prefix(const std::filesystem::path& path, DType dtype, const std::vector<std::uint64_t>& shape) {
  switch (format_of(path)) {
    case Format::raw: return {};
    case Format::npy:
      if (dtype == DType::bfloat16)
        detail::fail(ErrorCode::invalid_argument, path.string(),
                     "bfloat16 has no NumPy dtype: write raw (.bin), or convert to float32");
      return detail::npy_header(dtype, shape);
    case Format::text: break;
  }
  detail::fail(ErrorCode::invalid_argument, path.string(), "a text file cannot be written in pieces: write .npy or raw (.bin)");
}

Array read_npy(const std::filesystem::path& path) { return read_checked(path, 2).second; }

Tensor read_npy_tensor(const std::filesystem::path& path) {
  auto [header, array] = read_checked(path, kMaxTensorDimensions);
  array.cols = array.size();  // the tensor's values, flat (size() is rows * cols: read it first)
  array.rows = 1;
  array.two_d = false;
  return {std::vector<std::size_t>(header.shape.begin(), header.shape.end()), std::move(array)};
}

}  // namespace fastconv::io
