// Fuzz target: raw files — io::read_raw, io::read_file on .bin and io::read_array_layout —
// with the element type named by the first byte (float32, float64, int32, int64, float16,
// bfloat16) and the rest as the file. What is read must be written back as the same bytes (raw,
// and .npy but for bfloat16), and as text that reads back, converted, to the same values.
#include <filesystem>
#include <sstream>

#include "array_util.hpp"
#include "io/array_io.hpp"

using namespace fastconv;

namespace {

constexpr DType kTypes[] = {DType::float32, DType::float64, DType::int32,
                            DType::int64,   DType::float16, DType::bfloat16};

void check_written_back(const io::Array& array) {
  const std::filesystem::path raw = fuzz::scratch_dir() / "out.raw";
  io::write_file(raw, array);
  fuzz::check(fuzz::identical(io::read_raw(raw, array.dtype()), array), "write_file then read_raw changed the array");
  if (array.dtype() != DType::bfloat16) {
    const std::filesystem::path npy = fuzz::scratch_dir() / "out.npy";
    io::write_file(npy, array);
    fuzz::check(fuzz::identical(io::read_npy(npy), array), "write_file then read_npy changed the array");
  }
  // Text holds each value in the shortest form that reads back to it (float16 and bfloat16:
  // the float they equal); read as int64 or float64, it converts back exactly.
  std::ostringstream text;
  io::write_text(text, array);
  std::istringstream in(text.str());
  const io::Array back = io::convert(io::read_text(in, "<written>"), array.dtype(), "<written>");
  fuzz::check(back.size() == array.size() && fuzz::as_doubles(back) == fuzz::as_doubles(array),
              "write_text then read_text changed a value");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::single_threaded();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const DType dtype = kTypes[data[0] % std::size(kTypes)];
  const std::filesystem::path path = fuzz::write_scratch("in.bin", fuzz::as_text(data + 1, size - 1));
  const std::string name = path.string();

  io::Array array;
  io::ArrayFileLayout layout;
  const auto array_error = fuzz::error_naming(name, [&] { array = io::read_raw(path, dtype); });
  const auto file_error = fuzz::error_naming(name, [&] {
    fuzz::check(fuzz::identical(io::read_file(path, dtype), array), "read_file and read_raw disagree");
  });
  fuzz::check(array_error.has_value() == file_error.has_value(), "read_file and read_raw disagree on the file");
  const auto layout_error = fuzz::error_naming(name, [&] { layout = io::read_array_layout(path, dtype); });
  fuzz::check(!layout_error || array_error, "read_array_layout rejects a raw file that read_raw reads");
  if (!layout_error) {
    fuzz::check(layout.format == io::Format::raw && layout.dtype == dtype && layout.data_offset == 0 &&
                    layout.count() * size_of(dtype) == size - 1,
                "read_array_layout's layout of a raw file");
  }
  if (array_error) return 0;
  fuzz::check_well_formed(array);
  fuzz::check(array.dtype() == dtype && !array.two_d && array.size() * size_of(dtype) == size - 1,
              "read_raw's array does not hold the file's values");
  check_written_back(array);
  return 0;
}
