// fastconv conv2d — the forward 2-D convolution of neural networks (PyTorch's conv2d: a
// cross-correlation, stride 1) of NCHW .npy tensors, by any of the library's algorithms.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "core/memory.hpp"

namespace fastconv::cli {
namespace {

struct Conv2dArgs {
  std::string input, weights, output = "-", bias;
  std::string padding = "0";
  std::string algorithm = "auto";
  std::string backend = "auto";
  std::string device;
  std::string dtype;
  int threads = 0;
  bool show_algorithm = false;
};

/// "P" (every side) or "T,B,L,R".
Padding parse_padding(const std::string& text) {
  std::vector<std::size_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    // Digits only, blanks around them allowed: std::stoull would take " -1" as 2^64 − 1.
    const std::size_t first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    const bool digits = !item.empty() && std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    unsigned long long v = 0;
    try {
      if (digits) v = std::stoull(item);
    } catch (const std::out_of_range&) {
      usage_error("--padding: '" + item + "' is more than 64 bits hold");
    }
    if (!digits) usage_error("--padding: '" + text + "' is not P or T,B,L,R (whole numbers of rows and columns)");
    values.push_back(static_cast<std::size_t>(v));
  }
  if (values.size() == 1) return Padding::same_all(values[0]);
  if (values.size() == 4) return {values[0], values[1], values[2], values[3]};
  usage_error("--padding: '" + text + "' has " + std::to_string(values.size()) + " values: give P or T,B,L,R");
}

/// As Python writes the tuple: "(2, 3)", and "(3,)" for one dimension.
std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

/// `tensor` converted to `type` (float32 or float64; integers convert exactly or with rounding).
io::Tensor as_type(io::Tensor tensor, DType type, const std::string& source) {
  if (tensor.values.dtype() != type) tensor.values = io::convert(tensor.values, type, source);
  return tensor;
}

DType compute_type(const Conv2dArgs& args, const io::Tensor& x, const io::Tensor& w) {
  if (!args.dtype.empty()) {
    const auto d = parse_dtype(args.dtype);
    if (d != DType::float32 && d != DType::float64)
      usage_error("--dtype: conv2d computes in float32 or float64, not '" + args.dtype + "'");
    return *d;
  }
  // float32 only when both tensors are float32 (or float16); anything else in float64.
  const auto narrow = [](DType t) { return t == DType::float32 || t == DType::float16; };
  return narrow(x.values.dtype()) && narrow(w.values.dtype()) ? DType::float32 : DType::float64;
}

int run_conv2d(const Conv2dArgs& args) {
  const auto algorithm = parse_conv2d_algorithm(args.algorithm);
  if (!algorithm)
    usage_error("--algorithm: unknown algorithm '" + args.algorithm + "': use " + fastconv::conv2d_algorithm_names());
  check_conv2d_backend(args.backend, *algorithm);  // before the tensors are read
  // Made before the tensors are read too: a missing CUDA device is reported at once.
  const Backend backend = Backend::from_name(args.backend, args.threads, "", args.device);
  const Padding padding = parse_padding(args.padding);
  if (args.output != "-" && io::format_of(args.output) != io::Format::npy)
    usage_error(args.output + ": conv2d writes its (N, K, Oh, Ow) output as .npy, or as text to standard output (-)");

  io::Tensor x = io::read_npy_tensor(args.input), w = io::read_npy_tensor(args.weights);
  const bool batched = x.shape.size() == 4;
  if (x.shape.size() != 4 && x.shape.size() != 3)
    usage_error(display_name(args.input) + ": the input has shape " + shape_text(x.shape) +
                ": conv2d takes (N, C, H, W) or (C, H, W)");
  if (w.shape.size() != 4)
    usage_error(display_name(args.weights) + ": the weights have shape " + shape_text(w.shape) +
                ": conv2d takes (K, C, Kh, Kw)");
  Conv2dShape shape;
  shape.batch = batched ? x.shape[0] : 1;
  shape.channels = x.shape[batched ? 1 : 0];
  shape.height = x.shape[batched ? 2 : 1];
  shape.width = x.shape[batched ? 3 : 2];
  shape.filters = w.shape[0];
  shape.kernel_height = w.shape[2];
  shape.kernel_width = w.shape[3];
  shape.padding = padding;
  if (w.shape[1] != shape.channels)
    usage_error(display_name(args.weights) + ": the weights take " + std::to_string(w.shape[1]) +
                " input channels, but " + display_name(args.input) + " has " + std::to_string(shape.channels));
  shape.validate();

  const DType type = compute_type(args, x, w);
  x = as_type(std::move(x), type, args.input);
  w = as_type(std::move(w), type, args.weights);
  io::Tensor b;
  if (!args.bias.empty()) {
    b = as_type(io::read_npy_tensor(args.bias), type, args.bias);
    if (b.shape.size() != 1 || b.shape[0] != shape.filters)
      usage_error(display_name(args.bias) + ": the bias has shape " + shape_text(b.shape) + ", not (" +
                  std::to_string(shape.filters) + ",): one value per filter");
  }

  io::Tensor y;
  y.shape = batched ? std::vector<std::size_t>{shape.batch, shape.filters, shape.out_height(), shape.out_width()}
                    : std::vector<std::size_t>{shape.filters, shape.out_height(), shape.out_width()};
  // Refused before the plan, whose making (auto's race, polyhankel's choices) takes seconds on a
  // large shape and checks only its own work arrays.
  detail::require_elements(shape.output_size(), size_of(type),
                           "conv2d: the output of shape " + shape_text(y.shape) + " in " + std::string(to_string(type)));
  const auto compute = [&]<class T>() {
    const std::span<const T> bias = args.bias.empty() ? std::span<const T>{} : std::span<const T>(b.values.values<T>());
    const Conv2dPlan<T> plan(shape, w.values.values<T>(), bias, *algorithm, backend);
    if (args.show_algorithm) std::cerr << "fastconv: conv2d algorithm: " << to_string(plan.algorithm()) << '\n';
    std::vector<T> out(shape.output_size());
    plan.execute(x.values.values<T>(), out);
    y.values = io::make_array(std::move(out), 1, shape.output_size(), false);
  };
  if (type == DType::float32) compute.template operator()<float>();
  else compute.template operator()<double>();

  if (args.output == "-") {
    // Text: one output row (of Ow values) per line, planes one after another.
    io::Array& rows = y.values;
    rows.rows = shape.output_size() / shape.out_width();
    rows.cols = shape.out_width();
    rows.two_d = true;
    write_output("-", rows);
  } else {
    io::write_npy_tensor(args.output, y);
  }
  return 0;
}

}  // namespace

void add_conv2d_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<Conv2dArgs>();
  CLI::App* c = app.add_subcommand("conv2d", "2-D convolution of neural networks (PyTorch's conv2d, stride 1)");
  c->add_option("INPUT", args->input, "Input tensor, .npy of shape (N, C, H, W) or (C, H, W)")->required();
  c->add_option("WEIGHTS", args->weights, "Filters, .npy of shape (K, C, Kh, Kw)")->required();
  c->add_option("OUTPUT", args->output,
                "Output .npy of shape (N, K, Oh, Ow), or - for standard output as text (one output row per line) "
                "[default: -]");
  c->add_option("--bias", args->bias, "Bias, .npy of shape (K,)")->check([](const std::string& path) {
    return path.empty() ? std::string("an empty file name") : std::string();
  });
  c->add_option("--padding", args->padding,
                "Zero padding: P on every side, or T,B,L,R (top, bottom, left, right) [default: 0]");
  c->add_option("--algorithm", args->algorithm,
                "auto (the fastest for the shape, measured once), direct, im2col_gemm, fft2d, winograd (3x3 only), "
                "polyhankel (seed 002) or polyhankel_merged (seed 002's merged channels) [default: auto]");
  c->add_option("--backend", args->backend,
                "auto (= cpu), cpu, reference (direct on one thread) or cuda (polyhankel with cuFFT) [default: auto]");
  c->add_option("--device", args->device, "CUDA device N for --backend cuda (default: FASTCONV_CUDA_DEVICE, else 0)");
  c->add_option("--threads", args->threads, "Threads (default: all cores)")->check(whole_number_at_least(0));
  c->add_option("--dtype", args->dtype,
                "float32 or float64 (default: float32 if both tensors are float32, else float64)");
  c->add_flag("--show-algorithm", args->show_algorithm, "Print the algorithm that ran to standard error");
  c->footer(
      "out[n,k,i,j] = bias[k] + sum_c,u,v in[n,c,i+u-top,j+v-left] * w[k,c,u,v], zero outside the image;\n"
      "Oh = H + top + bottom - Kh + 1, Ow = W + left + right - Kw + 1. Stride and dilation are 1.\n"
      "Example: fastconv conv2d x.npy w.npy y.npy --padding 1 --bias b.npy");
  c->callback([args, &action] { action = [args] { return run_conv2d(*args); }; });
}

}  // namespace fastconv::cli
