#include "common.hpp"

#include <charconv>
#include <cstdio>
#include <iostream>

namespace fastconv::cli {

void usage_error(const std::string& message) { throw Error(ErrorCode::invalid_argument, message); }

void refuse_storage_type(DType dtype, const std::string& where) {
  usage_error(where + std::string(to_string(dtype)) +
              " is a storage type of the WHT only (computed in float): use --dtype float32 here");
}

int exit_code(const Error& error) noexcept {
  return error.code() == ErrorCode::device || error.code() == ErrorCode::out_of_memory ? 1 : 2;
}

CLI::Validator whole_number_at_least(long long min) {
  return CLI::Validator(
      [min](std::string& text) {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc() && ptr == end && value >= min) return std::string();
        return "'" + text + "' is not a whole number >= " + std::to_string(min);
      },
      "");  // no description: the help keeps showing the type (INT)
}

namespace {

/// "reference: textbook; cpu: baseline, avx2": every backend's variants on this machine.
std::string variants_by_backend() {
  std::string out;
  for (const auto& name : Backend::names()) {
    if (name == "auto") continue;
    std::string list;
    for (const auto& v : Backend::variants_of(name)) list += (list.empty() ? "" : ", ") + v;
    out += (out.empty() ? "" : "; ") + name + ": " + list;
  }
  return out;
}

}  // namespace

void ComputeOptions::add_backend_options(CLI::App& command) {
  std::string names;
  for (const auto& n : Backend::names()) names += (names.empty() ? "" : ", ") + n;
  command.add_option("--backend", backend, "Backend to run on: " + names + " (default: auto, the fastest)");
  command.add_option("--threads", threads, "Threads for the cpu backend (default: all cores)")
      ->check(whole_number_at_least(0));
  command.add_option("--variant", variant,
                     "Implementation of the backend's kernels (" + variants_by_backend() +
                         "; default: the backend's own choice, see 'fastconv info'). Every variant gives the same results");
  command.add_option("--device", device,
                     "Device of the opencl backend as PLATFORM:DEVICE, e.g. 0:1 (default: FASTCONV_OPENCL_DEVICE, else the "
                     "first GPU, else the first device), or of the cuda backend as N (default: FASTCONV_CUDA_DEVICE, "
                     "else 0); 'fastconv info' lists them");
}

void ComputeOptions::add_to(CLI::App& command) {
  add_backend_options(command);
  command.add_option("--dtype", dtype,
                     "Element type to compute in: float32, float64, int32, int64; for wht also float16 (f2, half) "
                     "and bfloat16 (bf16), stored in 16 bits and computed in float (default: the input's; "
                     "text input is int64 if every value is an integer, else float64; required for raw files)");
}

Backend ComputeOptions::make_backend() const { return Backend::from_name(backend, threads, variant, device); }

std::optional<DType> ComputeOptions::requested_dtype() const {
  if (dtype.empty()) return std::nullopt;
  if (const auto d = parse_dtype(dtype)) return d;
  usage_error("--dtype: unknown type '" + dtype + "': use float32, float64, int32, int64, float16 or bfloat16");
}

void add_accumulate_option(CLI::App& command, std::string& value) {
  command.add_option("--accumulate", value,
                     "Precision float data are computed in: native (default: each type in its own; float16 and "
                     "bfloat16 in float) or float64 (float32, float16 and bfloat16 in double, each result rounded "
                     "once; float64 and integer data are unaffected)");
}

Accumulation parse_accumulate(const std::string& value, const char* mode) {
  const auto accumulation = parse_accumulation(value);
  if (!accumulation) usage_error("--accumulate: unknown accumulation '" + value + "': use native or float64");
  if (mode != nullptr && *accumulation != Accumulation::native)
    throw Error(ErrorCode::unsupported, std::string("--accumulate ") + value + " is not supported with " + mode +
                                            ": convert the data to float64 instead");
  return *accumulation;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

io::Array read_input(const std::string& path, std::optional<DType> dtype) {
  if (path == "-") return io::read_text(std::cin, "<stdin>");
  if (!dtype && io::format_of(path) == io::Format::raw)
    usage_error(path + ": a raw file does not record its element type: give --dtype float32, float64, int32, int64, float16 or bfloat16");
  return io::read_file(path, dtype);
}

io::Array to_dtype(const io::Array& array, DType dtype, const std::string& source, std::uint64_t first) {
  return array.dtype() == dtype ? array : io::convert(array, dtype, display_name(source), first);
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
