// fastconv boolean analyze|walsh|autocorr|anf — Walsh-spectral analysis of a Boolean function.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

#include "analysis_output.hpp"
#include "core/files.hpp"

namespace fastconv::cli {
namespace {

enum class BooleanOp { analyze, walsh, autocorr, anf };

struct BooleanArgs {
  BooleanOp op = BooleanOp::analyze;
  std::string truth_table;
  std::string output = "-";
  std::string format = "polynomial";
  bool json = false;
  ComputeOptions compute;
};

/// The analysis's JSON: every field the table prints, the spectra as [value, count] pairs, and
/// null for what is not computed (algebraic immunity beyond its size limit), not defined (the
/// amplitude of a function that is not plateaued) or beyond 64 bits (the sum-of-squares indicator).
nlohmann::ordered_json summary_json(const BooleanFunction& f, const BooleanSummary& s) {
  nlohmann::ordered_json immunity = nullptr, amplitude = nullptr, squares = nullptr;
  if (s.sum_of_squares_indicator) squares = *s.sum_of_squares_indicator;
  if (s.n <= BooleanFunction::max_algebraic_immunity_variables) immunity = f.algebraic_immunity();
  if (s.plateau_amplitude) amplitude = *s.plateau_amplitude;
  return {{"n", s.n},
          {"weight", s.weight},
          {"balanced", s.balanced},
          {"nonlinearity", s.nonlinearity},
          {"linearity", s.linearity},
          {"absolute_indicator", s.absolute_indicator},
          {"sum_of_squares_indicator", squares},
          {"algebraic_degree", s.algebraic_degree},
          {"algebraic_immunity", immunity},
          {"correlation_immunity", s.correlation_immunity},
          {"resiliency", s.resiliency},
          {"is_bent", s.is_bent},
          {"is_plateaued", s.plateau_amplitude.has_value()},
          {"plateau_amplitude", amplitude},
          {"walsh_spectrum", histogram_json(s.walsh_histogram)},
          {"autocorrelation_spectrum", histogram_json(s.autocorrelation_histogram)}};
}

void print_summary(const BooleanFunction& f, const BooleanSummary& s) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"variables", std::to_string(s.n)},
      {"weight", std::to_string(s.weight)},
      {"balanced", yes_no(s.balanced)},
      {"nonlinearity", std::to_string(s.nonlinearity)},
      {"linearity", std::to_string(s.linearity)},
      {"absolute indicator", std::to_string(s.absolute_indicator)},
      {"sum-of-squares indicator",
       s.sum_of_squares_indicator ? std::to_string(*s.sum_of_squares_indicator) : "more than 2^64 - 1"},
      {"algebraic degree", std::to_string(s.algebraic_degree)}};
  if (s.n <= BooleanFunction::max_algebraic_immunity_variables)
    fields.emplace_back("algebraic immunity", std::to_string(f.algebraic_immunity()));
  fields.insert(fields.end(), {{"correlation immunity", std::to_string(s.correlation_immunity)},
                               {"resiliency", std::to_string(s.resiliency)},
                               {"bent", yes_no(s.is_bent)},
                               {"plateaued", s.plateau_amplitude ? "yes, amplitude " + std::to_string(*s.plateau_amplitude)
                                                                 : std::string("no")},
                               {"Walsh spectrum", histogram_text(s.walsh_histogram)},
                               {"autocorrelation spectrum", histogram_text(s.autocorrelation_histogram)}});
  print_fields(fields);
}

/// The ANF as SageMath prints it: monomials in lexicographic order (x0 > x1 > …), "0" if none.
std::string anf_polynomial(const BooleanFunction& anf) {
  const int n = anf.num_variables();
  std::vector<std::uint64_t> monomials;
  for (std::uint64_t u = 0; u < anf.size(); ++u)
    if (anf(u)) monomials.push_back(u);
  // Lexicographic with x0 first: compare the exponent vectors from x0 on, i.e. the bit-reversed masks.
  const auto key = [n](std::uint64_t u) {
    std::uint64_t reversed = 0;
    for (int i = 0; i < n; ++i) reversed |= ((u >> i) & 1) << (n - 1 - i);
    return reversed;
  };
  std::sort(monomials.begin(), monomials.end(), [&](auto a, auto b) { return key(a) > key(b); });
  std::string out;
  for (const std::uint64_t u : monomials) {
    std::string term;
    for (int i = 0; i < n; ++i)
      if ((u >> i) & 1) term += (term.empty() ? "x" : "*x") + std::to_string(i);
    out += (out.empty() ? "" : " + ") + (term.empty() ? "1" : term);
  }
  return out.empty() ? "0" : out;
}

/// The ANF's polynomial or hex form (`form`), a line of text, to standard output or a text file.
void write_text_output(const std::string& path, const std::string& text, const std::string& form) {
  if (path == "-") {
    std::cout << text << '\n' << std::flush;
    if (!std::cout) throw Error(ErrorCode::io, "<stdout>: write failed");
    return;
  }
  bool text_file = false;
  try {
    text_file = io::format_of(path) == io::Format::text;
  } catch (const Error&) {  // an unknown extension, or none: not a text file's either
  }
  if (!text_file)
    usage_error(path + ": the ANF's " + form + " form is a line of text: give a .txt, .csv, .tsv or .dat file, or " +
                "--format values for an array");
  fastconv::detail::AtomicFile file(path);
  file.write(text + "\n");
  file.commit();
}

io::Array spectrum_array(std::vector<std::int64_t> values) {
  const std::size_t size = values.size();
  return io::make_array(std::move(values), 1, size, false);
}

int run_boolean(const BooleanArgs& args) {
  const Backend backend = args.compute.make_backend();
  const BooleanFunction f = read_truth_table(args.truth_table);
  switch (args.op) {
    case BooleanOp::analyze: {
      const BooleanSummary summary = summarize(f, backend);
      if (args.json) std::cout << summary_json(f, summary).dump() << '\n';
      else print_summary(f, summary);
      break;
    }
    case BooleanOp::walsh: write_output(args.output, spectrum_array(f.walsh_spectrum(backend))); break;
    case BooleanOp::autocorr: write_output(args.output, spectrum_array(f.autocorrelation(backend))); break;
    case BooleanOp::anf: {
      const BooleanFunction anf = f.algebraic_normal_form();
      if (args.format == "polynomial") {
        write_text_output(args.output, anf_polynomial(anf), args.format);
      } else if (args.format == "hex") {
        write_text_output(args.output, anf.to_hex(), args.format);
      } else {
        std::vector<std::int32_t> bits(anf.size());
        for (std::uint64_t u = 0; u < anf.size(); ++u) bits[u] = anf(u);
        write_output(args.output, io::make_array(std::move(bits), 1, anf.size(), false));
      }
      break;
    }
  }
  return 0;
}

CLI::App* add_boolean_op(CLI::App* parent, const char* name, const char* help, BooleanOp op, Action& action) {
  auto args = std::make_shared<BooleanArgs>();
  args->op = op;
  CLI::App* cmd = parent->add_subcommand(name, help);
  cmd->add_option("TT", args->truth_table,
                  "Truth table: hex (SageMath's convention, f(0) the lowest bit: 0113077C165E76A8), or a file of 0/1 "
                  "values (or hex starting 0x), or - for standard input")
      ->required();
  if (op == BooleanOp::analyze) {
    cmd->add_flag("--json", args->json, "One JSON object instead of the table");
  } else {
    cmd->add_option("OUTPUT", args->output, "Output file (.txt, .npy, …), or - for standard output [default: -]");
  }
  if (op == BooleanOp::anf)
    cmd->add_option("--format", args->format,
                    "polynomial (default, SageMath's form: x0*x1 + x2 + 1), hex (the ANF's coefficients as a hex truth "
                    "table), or values (2^n coefficients 0/1 as an array)")
        ->check(CLI::IsMember({"polynomial", "hex", "values"}));
  args->compute.add_backend_options(*cmd);
  cmd->callback([args, &action] { action = [args] { return run_boolean(*args); }; });
  return cmd;
}

}  // namespace

void add_boolean_command(CLI::App& app, Action& action) {
  CLI::App* boolean = app.add_subcommand("boolean", "Boolean functions: Walsh spectrum, nonlinearity, autocorrelation, ANF");
  boolean->require_subcommand(1);
  boolean->footer(
      "f(0 … 2^n-1), bit i of x is x_i; W(a) = sum_x (-1)^(f(x) xor a.x); autocorrelation D(a) = sum_x\n"
      "(-1)^(f(x) xor f(x xor a)). n <= 32. Conventions and names follow SageMath's BooleanFunction.");
  add_boolean_op(boolean, "analyze", "Weight, nonlinearity, indicators, degree, immunities, bent/plateaued, spectra",
                 BooleanOp::analyze, action)
      ->footer("Example: fastconv boolean analyze 0113077C165E76A8 --json   (a bent function of 6 variables)");
  add_boolean_op(boolean, "walsh", "The Walsh spectrum W(0 … 2^n-1)", BooleanOp::walsh, action);
  add_boolean_op(boolean, "autocorr", "The autocorrelation spectrum D(0 … 2^n-1)", BooleanOp::autocorr, action);
  add_boolean_op(boolean, "anf", "The algebraic normal form", BooleanOp::anf, action)
      ->footer("Example: fastconv boolean anf e8   ->  x0*x1 + x0*x2 + x1*x2   (majority of 3)");
}

}  // namespace fastconv::cli
