// Text arrays: numbers separated by whitespace and commas, one row per line.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <ostream>
#include <string>
#include <system_error>

#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/memory.hpp"

namespace fastconv::io {
namespace {

constexpr std::string_view kBlanks = " \t\r\v\f";
constexpr std::string_view kSeparators = " \t\r\v\f,";

bool is_integer_token(std::string_view token) {
  if (!token.empty() && (token.front() == '+' || token.front() == '-')) token.remove_prefix(1);
  return !token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos;
}

// from_chars rejects a leading '+', which people write; a second sign stays an error.
std::string_view without_plus(std::string_view token) {
  if (token.starts_with('+') && !token.substr(1).starts_with('+') && !token.substr(1).starts_with('-')) {
    token.remove_prefix(1);
  }
  return token;
}

// The values read so far: int64 while every token is an integer, float64 from the first
// token that is not.
class Values {
 public:
  explicit Values(std::string_view source) : source_(source) {}

  void add(std::int64_t value) {
    if (floating_) {
      push(floats_, static_cast<double>(value));
    } else {
      push(ints_, value);
    }
  }
  void add(double value) {
    if (!floating_) {
      fastconv::detail::require_elements(ints_.size(), sizeof(double), what());
      floats_.assign(ints_.begin(), ints_.end());
      ints_ = {};
      floating_ = true;
    }
    push(floats_, value);
  }
  [[nodiscard]] bool empty() const noexcept { return ints_.empty() && floats_.empty(); }
  Array take(std::size_t rows, std::size_t cols, bool two_d) {
    if (floating_) return make_array(std::move(floats_), rows, cols, two_d);
    return make_array(std::move(ints_), rows, cols, two_d);
  }

 private:
  /// Appends, checking before the vector grows that its new storage fits in memory.
  template <class V>
  void push(std::vector<V>& values, V value) {
    if (values.size() == values.capacity())
      fastconv::detail::require_elements(std::max<std::size_t>(2 * values.capacity(), 1), sizeof(V), what());
    values.push_back(value);
  }
  [[nodiscard]] std::string what() const { return std::string(source_) + ": the values read"; }

  std::string_view source_;
  std::vector<std::int64_t> ints_;
  std::vector<double> floats_;
  bool floating_ = false;
};

class TextReader {
 public:
  explicit TextReader(std::string_view source) : source_(source), values_(source) {}

  void add_line(std::string_view line) {
    ++line_;
    const std::size_t count = add_row(line.substr(0, line.find('#')));
    if (count == 0) return;
    if (rows_ == 0) {
      cols_ = count;
      first_line_ = line_;
    } else if (count != cols_) {
      fail_at(ErrorCode::io, 0,
              std::to_string(count) + (count == 1 ? " value" : " values") + ", but line " +
                  std::to_string(first_line_) + " has " + std::to_string(cols_) +
                  ": every row must have the same number of values");
    }
    ++rows_;
  }

  Array finish() {
    if (values_.empty()) detail::fail(ErrorCode::invalid_argument, source_, "no values: the input is empty");
    // A column of numbers is a vector, as is a single row.
    if (cols_ == 1 || rows_ == 1) return values_.take(1, rows_ * cols_, false);
    return values_.take(rows_, cols_, true);
  }

 private:
  // Returns the number of values on the line. Columns are 1-based byte offsets.
  std::size_t add_row(std::string_view line) {
    std::size_t count = 0;
    bool value_before_comma = false;
    std::size_t open_comma = 0;  // column of a comma still waiting for the value after it
    for (std::size_t pos = line.find_first_not_of(kBlanks); pos != std::string_view::npos;
         pos = line.find_first_not_of(kBlanks, pos)) {
      if (line[pos] == ',') {
        if (!value_before_comma) fail_empty_field(pos + 1);
        value_before_comma = false;
        open_comma = ++pos;
        continue;
      }
      const std::size_t end = std::min(line.find_first_of(kSeparators, pos), line.size());
      add_token(line.substr(pos, end - pos), pos + 1);
      ++count;
      value_before_comma = true;
      open_comma = 0;
      pos = end;
    }
    if (open_comma != 0) fail_empty_field(open_comma);
    return count;
  }

  void add_token(std::string_view token, std::size_t column) {
    const std::string_view number = without_plus(token);
    const char* const end = number.data() + number.size();
    if (is_integer_token(token)) {
      std::int64_t value = 0;
      if (std::from_chars(number.data(), end, value).ec == std::errc::result_out_of_range) {
        fail_at(ErrorCode::invalid_argument, column,
                "integer " + detail::quoted_token(token) + " is out of the int64 range (write " +
                    (token.size() <= detail::kQuotedTokenBytes ? std::string(token) + ".0" : std::string("it with .0 after it")) +
                    " to read it as an approximate float)");
      }
      values_.add(value);
      return;
    }
    double value = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), end, value);
    if (ec == std::errc::invalid_argument || ptr != end) {
      fail_at(ErrorCode::io, column, detail::quoted_token(token) + " is not a number");
    }
    if (ec == std::errc::result_out_of_range) {
      fail_at(ErrorCode::invalid_argument, column, detail::quoted_token(token) + " is outside the float64 range");
    }
    if (!std::isfinite(value)) {
      fail_at(ErrorCode::invalid_argument, column,
              "non-finite value " + detail::quoted_token(token) + ": NaN and infinities are not accepted");
    }
    values_.add(value);
  }

  [[noreturn]] void fail_empty_field(std::size_t column) const {
    fail_at(ErrorCode::io, column, "empty field: every ',' must stand between two values");
  }

  // column 0 means the whole line.
  [[noreturn]] void fail_at(ErrorCode code, std::size_t column, const std::string& what) const {
    std::string place = "line " + std::to_string(line_);
    if (column != 0) place += ", column " + std::to_string(column);
    detail::fail(code, source_, place + ": " + what);
  }

  std::string_view source_;
  Values values_;
  std::size_t line_ = 0;
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::size_t first_line_ = 0;
};

}  // namespace

namespace detail {

void write_text_chunks(const Array& array, const std::function<void(std::string_view)>& sink) {
  // Big enough to make the sink's per-call cost negligible, small enough not to double memory.
  constexpr std::size_t chunk_size = 1 << 16;
  std::visit(
      [&](const auto& values) {
        std::string buffer;
        for (std::size_t r = 0; r < array.rows; ++r) {
          for (std::size_t c = 0; c < array.cols; ++c) {
            if (c != 0) buffer += ' ';
            append_value(buffer, values[r * array.cols + c]);
            if (buffer.size() >= chunk_size) {
              sink(buffer);
              buffer.clear();
            }
          }
          buffer += '\n';
        }
        sink(buffer);
      },
      array.data);
}

}  // namespace detail

Array read_text(std::istream& in, std::string_view source) {
  TextReader reader(source);
  std::string line;
  while (std::getline(in, line)) reader.add_line(line);
  if (in.bad()) detail::fail(ErrorCode::io, source, "cannot read: the input stream failed");
  return reader.finish();
}

void write_text(std::ostream& out, const Array& array) {
  constexpr std::string_view target = "<output>";
  detail::require_consistent(array, target);
  detail::write_text_chunks(array, [&](std::string_view text) { out.write(text.data(), std::ssize(text)); });
  if (!out) detail::fail(ErrorCode::io, target, "cannot write: the output stream failed");
}

}  // namespace fastconv::io
