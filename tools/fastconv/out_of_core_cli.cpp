// --out-of-core for `fastconv wht` and `fastconv dyadic conv|autocorr`: .npy or raw files
// transformed in tiles (fastconv/out_of_core.hpp), with progress on stderr.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <limits>

#include "common.hpp"

namespace fastconv::cli {
namespace {

/// "4G", "512M", "64K", "1048576": bytes, with binary multiples (K = 1024).
std::uint64_t parse_memory_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string suffix = text.substr(digits);
  const std::string units = "KMGT";
  const auto unit = suffix.size() == 1 ? units.find(static_cast<char>(std::toupper(suffix[0]))) : std::string::npos;
  if (digits == 0 || digits > 15 || (!suffix.empty() && unit == std::string::npos))
    usage_error("--memory: '" + text + "' is not a size: use bytes or a number with K, M, G or T (e.g. 512M, 4G)");
  const std::uint64_t value = std::stoull(text.substr(0, digits));
  if (value == 0)  // the library's 0 means "decide": said by leaving --memory out, not by --memory 0
    usage_error("--memory: '" + text + "' is no memory: give a positive size, or leave --memory out for half of "
                "the available memory");
  const std::size_t shift = suffix.empty() ? 0 : 10 * (unit + 1);
  if (value > std::numeric_limits<std::uint64_t>::max() >> shift)
    usage_error("--memory: '" + text + "' is more than 2^64 bytes");
  return value << shift;
}

/// An operand of --out-of-core: the vector its file holds, and whether that is a 2-D array of
/// one row (the output then keeps that shape, as the in-memory commands' outputs do).
struct Operand {
  FileArray array;
  bool one_row = false;
};

/// The .npy or raw file at `path` (one vector); text and stdin cannot be read in pieces.
Operand file_operand(const std::string& path, std::optional<DType> dtype) {
  if (path == "-" || io::format_of(path) == io::Format::text)
    usage_error(display_name(path) + ": --out-of-core reads .npy or raw (.bin, .raw) files: text cannot be read in pieces");
  if (!dtype && io::format_of(path) == io::Format::raw)
    usage_error(path + ": a raw file does not record its element type: give --dtype float32, float64, int32, int64, float16 or bfloat16");
  const io::ArrayFileLayout layout = io::read_array_layout(path, dtype);
  if (layout.shape.size() == 2 && layout.shape[0] != 1)
    usage_error(path + ": --out-of-core transforms one vector, not the " + std::to_string(layout.shape[0]) +
                " rows of a 2-D array");
  if (dtype && *dtype != layout.dtype)
    usage_error("--dtype " + std::string(to_string(*dtype)) + ": " + path + " holds " +
                std::string(to_string(layout.dtype)) + " values, and --out-of-core computes in the file's own type");
  return {{path, layout.data_offset, layout.count(), layout.dtype}, layout.shape.size() == 2};
}

/// The output file of `count` values, of the first operand's shape: (count,) or (1, count).
FileOutput file_output(const std::string& path, DType dtype, std::uint64_t count, const Operand& first) {
  if (path == "-") usage_error("--out-of-core writes a .npy or raw file, not standard output");
  return {path, io::array_file_prefix(path, dtype,
                                      first.one_row ? std::vector<std::uint64_t>{1, count} : std::vector<std::uint64_t>{count})};
}

/// Progress lines on stderr, at most one a second and one at the end of each pass.
std::function<void(const OutOfCoreProgress&)> progress_printer() {
  auto last = std::make_shared<double>(-1.0);
  return [last](const OutOfCoreProgress& p) {
    const bool pass_done = p.bytes_done == p.bytes_total;
    if (!pass_done && p.seconds - *last < 1.0 && *last >= 0) return;
    *last = pass_done ? -1.0 : p.seconds;
    std::fprintf(stderr, "fastconv: pass %d/%d: %3.0f%% (%.0f MB/s)\n", p.pass, p.passes,
                 100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total),
                 p.seconds > 0 ? static_cast<double>(p.bytes_done) / p.seconds / 1e6 : 0.0);
  };
}

OutOfCoreOptions library_options(const ComputeOptions& compute, const OutOfCoreArgs& args) {
  OutOfCoreOptions options;
  options.memory_bytes = args.memory.empty() ? 0 : parse_memory_size(args.memory);
  options.backend = compute.make_backend();
  options.threads = compute.threads;
  if (!args.quiet) options.progress = progress_printer();
  return options;
}

int summarize(const OutOfCoreReport& r, const OutOfCoreArgs& args) {
  if (args.quiet) return 0;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  std::fprintf(stderr, "fastconv: %s: %d pass%s, %.2f GiB read, %.2f GiB written in %.1f s", r.in_memory ? "in memory" : "out of core",
               r.passes, r.passes == 1 ? "" : "es", static_cast<double>(r.bytes_read) / gib,
               static_cast<double>(r.bytes_written) / gib, r.seconds);
  if (!r.in_memory)
    std::fprintf(stderr, " (tiles of %llu words, rows of 2^%d, columns of 2^%d)",
                 static_cast<unsigned long long>(r.tile_elements), r.low_bits, r.high_bits);
  std::fprintf(stderr, "\n");
  return 0;
}

}  // namespace

void add_out_of_core_options(CLI::App& command, OutOfCoreArgs& args) {
  CLI::Option* flag = command.add_flag(
      "--out-of-core", args.enabled,
      "Stream a .npy or raw file in tiles (arrays larger than memory): at most 3 passes over the file, "
      "progress on stderr");
  command
      .add_option("--memory", args.memory,
                  "With --out-of-core: the memory the tiles may take, e.g. 512M, 4G (default: half of the "
                  "available memory, within cgroup and ulimit -v limits)")
      ->needs(flag);
  command.add_flag("--quiet", args.quiet, "With --out-of-core: no progress on stderr")->needs(flag);
}

int run_wht_out_of_core(const std::string& input, const std::string& output, WhtOptions options,
                        const ComputeOptions& compute, const OutOfCoreArgs& args) {
  const Operand x = file_operand(input, compute.requested_dtype());
  const OutOfCoreOptions ooc = library_options(compute, args);
  return summarize(wht_file(x.array, file_output(output, x.array.dtype, x.array.count, x), options, ooc), args);
}

int run_dyadic_out_of_core(const std::string& first, const std::string* second, const std::string& output,
                           const ComputeOptions& compute, const OutOfCoreArgs& args) {
  const Operand f = file_operand(first, compute.requested_dtype());
  const OutOfCoreOptions ooc = library_options(compute, args);
  if (second == nullptr)
    return summarize(autocorrelate_file(f.array, file_output(output, f.array.dtype, f.array.count, f), ooc), args);
  const Operand g = file_operand(*second, compute.requested_dtype());
  const std::uint64_t count = std::max(f.array.count, g.array.count);
  return summarize(convolve_files(f.array, g.array, file_output(output, f.array.dtype, count, f), ooc), args);
}

}  // namespace fastconv::cli
