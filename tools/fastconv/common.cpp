#include "common.hpp"

#include <iostream>

namespace fastconv::cli {

void usage_error(const std::string& message) { throw Error(ErrorCode::invalid_argument, message); }

void ComputeOptions::add_to(CLI::App& command) {
  std::string names;
  for (const auto& n : Backend::names()) names += (names.empty() ? "" : ", ") + n;
  command.add_option("--backend", backend, "Backend to run on: " + names + " (default: auto, the fastest)");
  command.add_option("--threads", threads, "Threads for the cpu backend (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--dtype", dtype,
                     "Element type to compute in: float32, float64, int32, int64 (default: the input's; "
                     "text input is int64 if every value is an integer, else float64; required for raw files)");
}

Backend ComputeOptions::make_backend() const { return Backend::from_name(backend, threads); }

std::optional<DType> ComputeOptions::requested_dtype() const {
  if (dtype.empty()) return std::nullopt;
  if (const auto d = parse_dtype(dtype)) return d;
  usage_error("--dtype: unknown type '" + dtype + "': use float32, float64, int32 or int64");
}

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

io::Array read_input(const std::string& path, std::optional<DType> dtype) {
  if (path == "-") return io::read_text(std::cin, "<stdin>");
  if (!dtype && io::format_of(path) == io::Format::raw)
    usage_error(path + ": a raw file does not record its element type: give --dtype float32, float64, int32 or int64");
  return io::read_file(path, dtype);
}

io::Array to_dtype(const io::Array& array, DType dtype, const std::string& source) {
  return array.dtype() == dtype ? array : io::convert(array, dtype, display_name(source));
}

void write_output(const std::string& path, const io::Array& array) {
  if (path == "-") {
    io::write_text(std::cout, array);
    std::cout.flush();
    if (!std::cout) throw Error(ErrorCode::io, "<stdout>: write failed");
    return;
  }
  io::write_file(path, array);
}

}  // namespace fastconv::cli
