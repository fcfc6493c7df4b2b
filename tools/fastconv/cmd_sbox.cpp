// fastconv sbox analyze|lat|ddt|bct|act — cryptographic tables and statistics of an S-box.
#include <nlohmann/json.hpp>

#include <iostream>

#include "analysis_output.hpp"

namespace fastconv::cli {
namespace {

enum class SboxOp { analyze, lat, ddt, bct, act };

struct SBoxArgs {
  SboxOp op = SboxOp::analyze;
  std::string lut;
  std::string output = "-";
  std::optional<int> m;
  std::string scale = "fourier_coefficient";
  bool json = false;
  ComputeOptions compute;
};

/// The analysis's JSON: every field the table prints, the spectra as [value, count] pairs, and
/// null for the boomerang statistics of a map that is not a permutation.
nlohmann::ordered_json summary_json(const SBoxSummary& s) {
  nlohmann::ordered_json boomerang = nullptr, boomerang_spectrum = nullptr;
  if (s.boomerang_uniformity) {
    boomerang = *s.boomerang_uniformity;
    boomerang_spectrum = histogram_json(s.boomerang_spectrum);
  }
  return {{"n", s.n},
          {"m", s.m},
          {"bijective", s.bijective},
          {"differential_uniformity", s.differential_uniformity},
          {"differential_spectrum", histogram_json(s.differential_spectrum)},
          {"linearity", s.linearity},
          {"nonlinearity", s.nonlinearity},
          {"absolute_walsh_spectrum", histogram_json(s.absolute_walsh_spectrum)},
          {"algebraic_degree", s.max_degree},
          {"min_algebraic_degree", s.min_degree},
          {"degree_spectrum", histogram_json(s.degree_spectrum)},
          {"boomerang_uniformity", boomerang},
          {"boomerang_spectrum", boomerang_spectrum},
          {"fixed_points", s.fixed_points},
          {"is_apn", s.is_apn},
          {"differential_branch_number", s.differential_branch_number},
          {"linear_branch_number", s.linear_branch_number}};
}

void print_summary(const SBoxSummary& s) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"input bits n", std::to_string(s.n)},
      {"output bits m", std::to_string(s.m)},
      {"bijective", yes_no(s.bijective)},
      {"differential uniformity", std::to_string(s.differential_uniformity) + (s.is_apn ? " (APN)" : "")},
      {"differential spectrum", histogram_text(s.differential_spectrum)},
      {"linearity", std::to_string(s.linearity)},
      {"nonlinearity", std::to_string(s.nonlinearity)},
      {"absolute Walsh spectrum", histogram_text(s.absolute_walsh_spectrum)},
      {"algebraic degree", std::to_string(s.max_degree) + " (coordinates), " + std::to_string(s.min_degree) +
                               " (smallest of the components)"},
      {"degree spectrum", histogram_text(s.degree_spectrum)}};
  if (s.boomerang_uniformity) {
    fields.emplace_back("boomerang uniformity", std::to_string(*s.boomerang_uniformity));
    fields.emplace_back("boomerang spectrum", histogram_text(s.boomerang_spectrum));
  }
  fields.insert(fields.end(), {{"fixed points", std::to_string(s.fixed_points)},
                               {"differential branch number", std::to_string(s.differential_branch_number)},
                               {"linear branch number", std::to_string(s.linear_branch_number)}});
  print_fields(fields);
}

template <class T>
io::Array table_array(Table<T> table) {
  return io::make_array(std::move(table.values), table.rows, table.cols, true);
}

int run_sbox(const SBoxArgs& args) {
  const Backend backend = args.compute.make_backend();
  const SBox s(read_lookup_table(args.lut), args.m);
  switch (args.op) {
    case SboxOp::analyze: {
      const SBoxSummary summary = [&] {
        ProgressBar bar;  // erased before the results are printed
        return s.summary({backend, [&bar](std::string_view stage, double done) { bar.update(stage, done); }});
      }();
      if (args.json) std::cout << summary_json(summary).dump() << '\n';
      else print_summary(summary);
      break;
    }
    case SboxOp::lat: {
      const auto scale = parse_lat_scale(args.scale);
      if (!scale)
        usage_error("--scale: unknown scale '" + args.scale + "': use fourier_coefficient, absolute_bias, bias or correlation");
      if (*scale == LatScale::fourier_coefficient) write_output(args.output, table_array(s.lat(backend)));
      else write_output(args.output, table_array(s.lat(*scale, backend)));
      break;
    }
    case SboxOp::ddt: write_output(args.output, table_array(s.ddt())); break;
    case SboxOp::bct: write_output(args.output, table_array(s.bct())); break;
    case SboxOp::act: write_output(args.output, table_array(s.act(backend))); break;
  }
  return 0;
}

CLI::App* add_sbox_op(CLI::App* parent, const char* name, const char* help, SboxOp op, Action& action) {
  auto args = std::make_shared<SBoxArgs>();
  args->op = op;
  CLI::App* cmd = parent->add_subcommand(name, help);
  cmd->add_option("LUT", args->lut,
                  "Look-up table S(0 … 2^n-1): values separated by commas or spaces, decimal or 0x-hex, inline "
                  "(\"12,5,6,11,…\") or in a file (text or .npy), - for standard input, or a name: aes, present")
      ->required();
  if (op == SboxOp::analyze) cmd->add_flag("--json", args->json, "One JSON object instead of the table");
  else cmd->add_option("OUTPUT", args->output, "Output file (.txt, .npy, …), or - for standard output [default: -]");
  cmd->add_option("--m", args->m, "Output bits m (default: the bit length of the largest value)")
      ->check(CLI::Range(1, SBox::max_output_bits));
  if (op == SboxOp::lat)
    cmd->add_option("--scale", args->scale,
                    "fourier_coefficient (default: the Walsh coefficients, sboxU's lat), absolute_bias (LAT/2, SageMath's "
                    "default), bias (LAT/2^(n+1)) or correlation (LAT/2^n)");
  args->compute.add_backend_options(*cmd);
  cmd->callback([args, &action] { action = [args] { return run_sbox(*args); }; });
  return cmd;
}

}  // namespace

void add_sbox_command(CLI::App& app, Action& action) {
  CLI::App* sbox = app.add_subcommand("sbox", "S-boxes: LAT, DDT, BCT, ACT, uniformities, linearity, degrees");
  sbox->require_subcommand(1);
  sbox->footer(
      "LAT[a][b] = sum_x (-1)^(a.x xor b.S(x)); DDT[a][b] = #{x : S(x xor a) xor S(x) = b}; BCT (permutations);\n"
      "ACT[a][b] = sum_x (-1)^(b.(S(x) xor S(x xor a))). Tables for n, m <= 16; statistics are streamed.\n"
      "Conventions and names follow SageMath's SBox and sboxU.");
  add_sbox_op(sbox, "analyze", "Uniformities, linearity, degrees, spectra, branch numbers", SboxOp::analyze, action)
      ->footer("Example: fastconv sbox analyze 0xC,5,6,0xB,9,0,0xA,0xD,3,0xE,0xF,8,4,7,1,2 --json   (PRESENT)");
  add_sbox_op(sbox, "lat", "Linear approximation table (2^n x 2^m)", SboxOp::lat, action);
  add_sbox_op(sbox, "ddt", "Difference distribution table (2^n x 2^m)", SboxOp::ddt, action);
  add_sbox_op(sbox, "bct", "Boomerang connectivity table of a permutation (2^n x 2^n)", SboxOp::bct, action);
  add_sbox_op(sbox, "act", "Autocorrelation table (2^n x 2^m)", SboxOp::act, action);
}

}  // namespace fastconv::cli
