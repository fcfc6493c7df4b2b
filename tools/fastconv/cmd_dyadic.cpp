// fastconv dyadic conv|autocorr|deconv — dyadic (XOR) convolution, autocorrelation and
// deconvolution. The first operand may be 2-D: each of its rows is processed with the second.
#include "common.hpp"

namespace fastconv::cli {
namespace {

enum class Op { conv, autocorr, deconv };

struct DyadicArgs {
  Op op = Op::conv;
  std::string first, second, output = "-";
  std::string accumulate = "native";
  ComputeOptions compute;
  DistributedArgs distributed;
  OutOfCoreArgs out_of_core;  ///< conv and autocorr only
};

/// NumPy's promotion of two element types: the wider integer, the wider float, and float64
/// whenever an integer meets a float.
DType promote(DType a, DType b) {
  if (a == b) return a;
  if (is_integer(a) && is_integer(b)) return DType::int64;
  return DType::float64;
}

io::Array load(const std::string& path, std::optional<DType> wanted, const char* what) {
  io::Array a = read_input(path, wanted);
  log2_exact(a.cols, display_name(path) + ": " + what);
  return a;
}

/// Applies `per_row(row)` to each row of `x`; every row result has the same length.
template <class T, class PerRow>
io::Array map_rows(const io::Array& x, PerRow&& per_row) {
  const auto& values = x.values<T>();
  std::vector<T> out;
  std::size_t cols = 0;
  for (std::size_t r = 0; r < x.rows; ++r) {
    std::vector<T> row;
    try {
      row = per_row(std::span<const T>(values.data() + r * x.cols, x.cols));
    } catch (const Error& e) {  // a batch's error names its row (an overflow, a singular system)
      if (x.rows == 1) throw;
      throw Error(e.code(), "row " + std::to_string(r) + ": " + e.what());
    }
    cols = row.size();
    out.insert(out.end(), row.begin(), row.end());
  }
  return io::make_array(std::move(out), x.rows, cols, x.two_d);
}

int run_dyadic_in_memory(const DyadicArgs& args, const DyadicOptions& options) {
  const Backend backend = args.compute.make_backend();
  const auto wanted = args.compute.requested_dtype();
  if (args.first == "-" && args.second == "-") usage_error("only one operand can be read from standard input");
  io::Array x = load(args.first, wanted, args.op == Op::deconv ? "Y" : "F");
  io::Array k;
  if (args.op != Op::autocorr) {
    k = load(args.second, wanted, args.op == Op::deconv ? "H" : "G");
    if (k.two_d && k.rows > 1)
      usage_error(display_name(args.second) + ": the second operand must be 1-D (it has " + std::to_string(k.rows) + " rows)");
  }
  // A 16-bit operand is refused whatever the other one is (promotion would otherwise make it
  // float64 beside some types and refuse it beside others).
  if (!wanted)
    for (const auto& [operand, path] : {std::pair{&x, &args.first}, std::pair{&k, &args.second}})
      if (operand->dtype() == DType::float16 || operand->dtype() == DType::bfloat16)
        refuse_storage_type(operand->dtype(), display_name(*path) + ": ");
  DType type = args.op == Op::autocorr ? x.dtype() : promote(x.dtype(), k.dtype());
  if (args.op == Op::deconv && !wanted && is_integer(type)) type = DType::float64;  // exact only on request
  if (wanted) type = *wanted;
  x = to_dtype(x, type, args.first);
  if (args.op != Op::autocorr) k = to_dtype(k, type, args.second);

  const io::Array result = with_type(type, [&]<class T>() {
    switch (args.op) {
      case Op::conv: {
        const DyadicSystem<T> system(k.values<T>(), options, backend);
        return map_rows<T>(x, [&](std::span<const T> row) { return system.apply(row); });
      }
      case Op::autocorr:
        return map_rows<T>(x, [&](std::span<const T> row) { return autocorrelate(row, options, backend); });
      case Op::deconv:
        return map_rows<T>(x, [&](std::span<const T> row) { return deconvolve(row, k.values<T>(), options, backend); });
    }
    return io::Array{};
  });
  write_output(args.output, result);
  return 0;
}

int run_dyadic(const DyadicArgs& args) {
  if (args.distributed.enabled && args.out_of_core.enabled)
    usage_error("--distributed and --out-of-core are alternatives: give one");
  const char* mode = args.distributed.enabled ? "--distributed" : args.out_of_core.enabled ? "--out-of-core" : nullptr;
  const DyadicOptions options{.accumulation = parse_accumulate(args.accumulate, mode)};
  if (args.distributed.enabled)
    return run_dyadic_distributed(args.distributed, args.first, args.op == Op::conv ? &args.second : nullptr,
                                  args.output, args.compute);
  if (args.out_of_core.enabled)
    return run_dyadic_out_of_core(args.first, args.op == Op::conv ? &args.second : nullptr, args.output, args.compute,
                                  args.out_of_core);
  if (args.op == Op::deconv) return run_dyadic_in_memory(args, options);
  return suggesting_out_of_core([&] { return run_dyadic_in_memory(args, options); });
}

void add_common(CLI::App* cmd, const std::shared_ptr<DyadicArgs>& args) {
  cmd->add_option("OUTPUT", args->output, "Output file, or - for standard output (text) [default: -]");
  args->compute.add_to(*cmd);
  add_accumulate_option(*cmd, args->accumulate);
}

}  // namespace

void add_dyadic_command(CLI::App& app, Action& action) {
  CLI::App* dyadic = app.add_subcommand("dyadic", "Dyadic (XOR) convolution, autocorrelation and deconvolution");
  dyadic->require_subcommand(1);
  dyadic->footer(
      "C(t) = sum_x f(x) g(x XOR t) (seed 001, eq. 1). Lengths are powers of two; the shorter operand is\n"
      "zero-padded. Dyadic correlation is the same sum as convolution. A 2-D first operand is a batch:\n"
      "each row is processed with the second operand. Integer inputs give exact integer results.\n"
      "--accumulate float64 computes float32 data in double: each result is rounded once.");

  auto conv = std::make_shared<DyadicArgs>();
  CLI::App* c = dyadic->add_subcommand("conv", "Dyadic convolution (= correlation) of F and G");
  c->add_option("F", conv->first, "First operand (file, or - for standard input)")->required();
  c->add_option("G", conv->second, "Second operand (file, or -)")->required();
  add_common(c, conv);
  add_distributed_options(*c, conv->distributed);
  add_out_of_core_options(*c, conv->out_of_core);
  c->footer("Example: fastconv dyadic conv f.txt g.txt   (f = 1 0 1 1, g = 0 1 0 1 -> 1 2 1 2)");
  c->callback([conv, &action] { action = [conv] { return run_dyadic(*conv); }; });

  auto auto_ = std::make_shared<DyadicArgs>();
  auto_->op = Op::autocorr;
  CLI::App* a = dyadic->add_subcommand("autocorr", "Dyadic autocorrelation R(t) = sum_x f(x) f(x XOR t)");
  a->add_option("F", auto_->first, "Operand (file, or - for standard input) [default: -]");
  auto_->first = "-";
  add_common(a, auto_);
  add_distributed_options(*a, auto_->distributed);
  add_out_of_core_options(*a, auto_->out_of_core);
  a->callback([auto_, &action] { action = [auto_] { return run_dyadic(*auto_); }; });

  auto de = std::make_shared<DyadicArgs>();
  de->op = Op::deconv;
  CLI::App* d = dyadic->add_subcommand("deconv", "Deconvolution (system identification): F with conv(F, H) = Y");
  d->add_option("Y", de->first, "System output (file, or -)")->required();
  d->add_option("H", de->second, "Impulse response (file, or -)")->required();
  add_common(d, de);
  d->footer(
      "Integer inputs are deconvolved in float64 unless --dtype int32/int64 asks for the exact integer\n"
      "result (an error if it is not an integer signal). A zero in H's Walsh spectrum is an error.");
  d->callback([de, &action] { action = [de] { return run_dyadic(*de); }; });
}

}  // namespace fastconv::cli
