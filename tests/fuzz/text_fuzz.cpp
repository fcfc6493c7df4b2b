// Fuzz target: io::read_text, the reader of text arrays (numbers separated by blanks and
// commas, one row per line, '#' comments). What it reads must be written back by
// io::write_text as text that reads back to the same values and shape.
#include <sstream>

#include "array_util.hpp"

using namespace fastconv;

namespace {

constexpr std::string_view kSource = "<fuzz>";

// write_text prints each value in the shortest form that reads back to it; an integral float64
// below 2^63 prints as an integer, so it reads back as int64 of the same value.
void check_round_trip(const io::Array& array) {
  std::ostringstream out;
  io::write_text(out, array);
  std::istringstream in(out.str());
  const io::Array back = io::read_text(in, "<written>");
  fuzz::check(back.rows == array.rows && back.cols == array.cols && back.two_d == array.two_d,
              "write_text then read_text changed the shape");
  if (array.dtype() == DType::int64) {
    fuzz::check(fuzz::identical(back, array), "write_text then read_text changed an int64 value");
  } else {
    fuzz::check(fuzz::as_doubles(back) == fuzz::as_doubles(array), "write_text then read_text changed a value");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  io::Array array;
  if (fuzz::error_naming(kSource, [&] { array = io::read_text(in, kSource); })) return 0;
  fuzz::check_well_formed(array);
  fuzz::check(array.dtype() == DType::int64 || array.dtype() == DType::float64, "text is read as int64 or float64");
  fuzz::check(!array.two_d || (array.rows > 1 && array.cols > 1), "a 2-D array read from text has one row or column");
  check_round_trip(array);
  return 0;
}
