// tools/fastconv/common.hpp — what the subcommands share: options, input, output, errors.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastconv/fastconv.hpp"
#include "io/array_io.hpp"

namespace fastconv::cli {

/// Parses `argv` and runs the subcommand it names; returns the process exit code (0, 1 or 2),
/// having printed any error to stderr. Called by main() and by the CLI's fuzz target.
int run(int argc, char** argv);

/// The exit code of an Error: 1 for the environment (device, out_of_memory), 2 for bad input.
int exit_code(const Error& error) noexcept;

/// The action a parsed subcommand runs; returns the process exit code.
using Action = std::function<int()>;

/// Options every computing subcommand takes.
struct ComputeOptions {
  std::string backend = "auto";
  int threads = 0;
  std::string variant;  ///< empty: the backend's default
  std::string device;   ///< empty: FASTCONV_OPENCL_DEVICE or the backend's default
  std::string dtype;    ///< empty: the input's own type

  /// Adds --backend, --threads, --variant, --device and --dtype.
  void add_to(CLI::App& command);
  /// Adds --backend, --threads, --variant and --device only (for commands with their own --dtype).
  void add_backend_options(CLI::App& command);
  /// The backend --backend, --threads, --variant and --device name; an unknown name, variant
  /// or device is an invalid_argument Error listing the valid ones.
  [[nodiscard]] Backend make_backend() const;
  [[nodiscard]] std::optional<DType> requested_dtype() const;
};

/// `--accumulate` (wht and dyadic): the precision float data are computed in.
void add_accumulate_option(CLI::App& command, std::string& value);
/// The Accumulation `--accumulate` names; an unknown name is an invalid_argument Error. With
/// --out-of-core or --distributed (`mode`: the option's name, null when neither is given) only
/// "native" is supported.
Accumulation parse_accumulate(const std::string& value, const char* mode);

/// `--distributed` and `--exchange` (tools/fastconv/distributed_cli.cpp).
struct DistributedArgs {
  bool enabled = false;
  std::string exchange = "auto";
};
void add_distributed_options(CLI::App& command, DistributedArgs& args);
/// The WHT of INPUT over the ranks of MPI_COMM_WORLD into OUTPUT (both .npy or raw files).
/// Built without MPI: a device Error saying how to build with it.
int run_wht_distributed(const DistributedArgs& args, const std::string& input, const std::string& output,
                        const WhtOptions& options, const ComputeOptions& compute);
/// Dyadic convolution of F and G (or autocorrelation of F when `second` is null), distributed.
int run_dyadic_distributed(const DistributedArgs& args, const std::string& first, const std::string* second,
                           const std::string& output, const ComputeOptions& compute);

/// Reads INPUT ("-" = stdin as text) in the format its extension names; raw files need `dtype`.
io::Array read_input(const std::string& path, std::optional<DType> dtype);
/// Converts to `dtype` (checked: no value changes silently except int → float rounding); a 1-D
/// array that is a piece of `source` starts at its element `first`, which errors count from.
io::Array to_dtype(const io::Array& array, DType dtype, const std::string& source, std::uint64_t first = 0);
/// Writes OUTPUT ("-" = stdout as text), atomically for files.
void write_output(const std::string& path, const io::Array& array);
/// `s` as a JSON string literal, quoted and escaped (the --json outputs).
std::string json_string(std::string_view s);
/// "<stdin>" for "-", else the path.
std::string display_name(const std::string& path);

/// Throws an invalid_argument Error with `message`.
[[noreturn]] void usage_error(const std::string& message);

/// The usage error for float16 or bfloat16 data given to a command that computes in other types
/// (only the WHT takes them); `where` ("x.npy: ", or empty) names the operand.
[[noreturn]] void refuse_storage_type(DType dtype, const std::string& where = "");

/// Runs `body` on the C++ Element type that `dtype` names. float16 and bfloat16 are an
/// invalid_argument Error: only the WHT takes them (with_transform_type).
template <class Body>
decltype(auto) with_type(DType dtype, Body&& body) {
  switch (dtype) {
    case DType::float32: return body.template operator()<float>();
    case DType::float64: return body.template operator()<double>();
    case DType::int32: return body.template operator()<std::int32_t>();
    case DType::int64: return body.template operator()<std::int64_t>();
    case DType::float16:
    case DType::bfloat16: break;
  }
  refuse_storage_type(dtype);
}

/// Runs `body` on the C++ TransformElement type that `dtype` names (the WHT's types).
template <class Body>
decltype(auto) with_transform_type(DType dtype, Body&& body) {
  switch (dtype) {
    case DType::float16: return body.template operator()<float16>();
    case DType::bfloat16: return body.template operator()<bfloat16>();
    default: return with_type(dtype, std::forward<Body>(body));
  }
}

/// An out_of_memory Error whose message already says what to do (run() adds general advice to
/// the others).
class AdvisedError : public Error {
 public:
  using Error::Error;
};

/// Runs `body`; an out_of_memory Error it throws gains `advice` at the end of its message.
template <class Body>
decltype(auto) advising_on_out_of_memory(std::string_view advice, Body&& body) {
  try {
    return body();
  } catch (const AdvisedError&) {
    throw;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::out_of_memory) throw;
    throw AdvisedError(e.code(), std::string(e.what()) + std::string(advice));
  }
}

/// Runs the in-memory path of a command that also has --out-of-core: an out_of_memory Error
/// gains the advice to try --out-of-core (which reads the files' own dtypes, not the widened ones).
template <class Body>
int suggesting_out_of_core(Body&& body) {
  return advising_on_out_of_memory(" (try --out-of-core, which reads float16/32/64 and int32/64 files)",
                                   std::forward<Body>(body));
}

/// --out-of-core, --memory and --quiet (out_of_core_cli.cpp).
struct OutOfCoreArgs {
  bool enabled = false;
  std::string memory;  ///< empty: decided from the available memory
  bool quiet = false;
};
void add_out_of_core_options(CLI::App& command, OutOfCoreArgs& args);
/// `fastconv wht --out-of-core INPUT OUTPUT`.
int run_wht_out_of_core(const std::string& input, const std::string& output, WhtOptions options,
                        const ComputeOptions& compute, const OutOfCoreArgs& args);
/// `fastconv dyadic conv --out-of-core F G OUTPUT` (`second` null: autocorr F OUTPUT).
int run_dyadic_out_of_core(const std::string& first, const std::string* second, const std::string& output,
                           const ComputeOptions& compute, const OutOfCoreArgs& args);

/// A CLI11 check that an option's value is a whole number no smaller than `min`.
CLI::Validator whole_number_at_least(long long min);

void add_wht_command(CLI::App& app, Action& action);
void add_dyadic_command(CLI::App& app, Action& action);
void add_info_command(CLI::App& app, Action& action);
void add_demo_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_boolean_command(CLI::App& app, Action& action);
void add_sbox_command(CLI::App& app, Action& action);
void add_conv2d_command(CLI::App& app, Action& action);
/// `fastconv bench gajic` (cmd_bench_gajic.cpp), a subcommand of `bench`.
void add_bench_gajic_command(CLI::App& bench, Action& action);
/// `bench bikov`: seed 004's Tables 2-3 (tools/fastconv/cmd_bench_bikov.cpp).
void add_bench_bikov_command(CLI::App& bench, Action& action);

}  // namespace fastconv::cli
