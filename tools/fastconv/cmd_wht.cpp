// fastconv wht — the Walsh–Hadamard transform of a vector or of each row of a batch.
#include "common.hpp"

namespace fastconv::cli {
namespace {

struct WhtArgs {
  std::string input = "-";
  std::string output = "-";
  std::string order = "hadamard";
  std::string normalize;
  bool inverse = false;
  std::string accumulate = "native";
  ComputeOptions compute;
  DistributedArgs distributed;
  OutOfCoreArgs out_of_core;
};

WhtOptions parse_options(const WhtArgs& args) {
  WhtOptions options;
  const auto order = parse_order(args.order);
  if (!order) usage_error("--order: unknown order '" + args.order + "': use hadamard, sequency or paley");
  options.order = *order;
  if (!args.normalize.empty()) {
    const auto norm = parse_normalization(args.normalize);
    if (!norm) usage_error("--normalize: unknown normalisation '" + args.normalize + "': use none, orthonormal or inverse");
    if (args.inverse && *norm != Normalization::inverse)
      usage_error("--inverse means --normalize inverse and contradicts --normalize " + args.normalize);
    options.normalization = *norm;
  } else if (args.inverse) {
    options.normalization = Normalization::inverse;
  }
  const char* mode = args.distributed.enabled ? "--distributed" : args.out_of_core.enabled ? "--out-of-core" : nullptr;
  options.accumulation = parse_accumulate(args.accumulate, mode);
  return options;
}

int run_wht(const WhtArgs& args) {
  const WhtOptions options = parse_options(args);
  if (args.distributed.enabled && args.out_of_core.enabled)
    usage_error("--distributed and --out-of-core are alternatives: give one");
  if (args.distributed.enabled) return run_wht_distributed(args.distributed, args.input, args.output, options, args.compute);
  if (args.out_of_core.enabled) return run_wht_out_of_core(args.input, args.output, options, args.compute, args.out_of_core);
  return suggesting_out_of_core([&] {
    const Backend backend = args.compute.make_backend();
    const auto wanted = args.compute.requested_dtype();
    io::Array array = read_input(args.input, wanted);
    if (wanted) array = to_dtype(array, *wanted, args.input);
    const int log2n = log2_exact(array.cols, display_name(args.input) + ": each row");
    with_transform_type(array.dtype(), [&]<class T>() {
      auto& values = array.values<T>();
      WhtPlan<T>(log2n, options, backend).execute(std::span<T>(values), array.rows, array.cols);
    });
    write_output(args.output, array);
    return 0;
  });
}

}  // namespace

void add_wht_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<WhtArgs>();
  CLI::App* cmd = app.add_subcommand(
      "wht", "Walsh–Hadamard transform of a vector (or of each row of a 2-D input), length 2^n");
  cmd->footer(
      "Examples:\n"
      "  echo \"1 0 1 1\" | fastconv wht                 -> 3 1 -1 1\n"
      "  fastconv wht --order sequency --normalize orthonormal x.npy y.npy\n"
      "  fastconv wht --inverse spectrum.txt            (inverse = forward / N)\n"
      "Formats follow the extension: .txt/.csv/.tsv/.dat text, .npy NumPy, .bin/.raw raw (needs --dtype).\n"
      "Integer input gives exact integer output; a result that does not fit is an error.\n"
      "--dtype float16 or bfloat16 stores 16-bit values and computes in float: each result is rounded once.\n"
      "--accumulate float64 computes float32 (and 16-bit) data in double: each result is rounded once.\n"
      "  mpirun -np 4 fastconv wht --distributed x.npy y.npy   (each rank transforms a quarter; MPI-IO)");
  cmd->add_option("INPUT", args->input, "Input file, or - for standard input (text) [default: -]");
  cmd->add_option("OUTPUT", args->output, "Output file, or - for standard output (text) [default: -]");
  cmd->add_option("--order", args->order, "Output order: hadamard (natural, default), sequency (Walsh), paley (dyadic)");
  cmd->add_option("--normalize", args->normalize, "Normalisation: none (default), orthonormal (1/sqrt N), inverse (1/N)");
  cmd->add_flag("--inverse", args->inverse, "Inverse transform (same as --normalize inverse)");
  add_accumulate_option(*cmd, args->accumulate);
  args->compute.add_to(*cmd);
  add_distributed_options(*cmd, args->distributed);
  add_out_of_core_options(*cmd, args->out_of_core);
  cmd->callback([args, &action] { action = [args] { return run_wht(*args); }; });
}

}  // namespace fastconv::cli
