// Fuzz target: conv2d's .npy tensors — input (N, C, H, W) or (C, H, W), weights (K, C, Kh, Kw)
// and bias (K,) — read by io::read_npy_tensor and checked against each other by
// `fastconv conv2d`, run in-process with each algorithm, padding and type.
//
// Input: byte 0 picks the algorithm and --dtype, byte 1 the padding, whether there is a bias and
// whether the output goes to a .npy file or standard output; then the input tensor's file and
// the weights' file, each preceded by its length (2 bytes, little-endian); the rest is the bias.
#include <algorithm>
#include <array>

#include "cli_runner.hpp"
#include "io/detail.hpp"

using namespace fastconv;

namespace {

constexpr std::array<const char*, 7> kAlgorithms = {"auto",     "direct",     "im2col_gemm",      "fft2d",
                                                    "winograd", "polyhankel", "polyhankel_merged"};
constexpr std::array<const char*, 3> kTypes = {"", "float32", "float64"};
constexpr DType kOutputTypes[] = {DType::float32, DType::float64};
// Small paddings (top, bottom, left, right), and some whose padded sizes overflow 64 bits.
struct PaddingChoice {
  const char* text;
  std::array<std::size_t, 4> sides;
};
constexpr std::array<PaddingChoice, 8> kPaddings = {{{"0", {0, 0, 0, 0}},
                                                     {"1", {1, 1, 1, 1}},
                                                     {"2", {2, 2, 2, 2}},
                                                     {"0,1,2,0", {0, 1, 2, 0}},
                                                     {"3,0,0,1", {3, 0, 0, 1}},
                                                     {"4294967296", {}},
                                                     {"9223372036854775807", {}},
                                                     {"18446744073709551615", {}}}};

/// The output's shape for the tensors that conv2d took.
std::vector<std::size_t> expected_shape(const PaddingChoice& padding) {
  const io::Tensor x = io::read_npy_tensor("x.npy"), w = io::read_npy_tensor("w.npy");
  const bool batched = x.shape.size() == 4;
  const std::size_t h = x.shape[batched ? 2 : 1], width = x.shape[batched ? 3 : 2];
  const auto [top, bottom, left, right] = padding.sides;
  std::vector<std::size_t> shape = {w.shape[0], h + top + bottom - w.shape[2] + 1,
                                    width + left + right - w.shape[3] + 1};
  if (batched) shape.insert(shape.begin(), x.shape[0]);
  return shape;
}

/// The next `length`-prefixed piece of `rest`, or all of it if too short.
std::string_view take_piece(std::string_view& rest) {
  if (rest.size() < 2) {
    rest = {};
    return {};
  }
  const std::size_t claimed = static_cast<unsigned char>(rest[0]) | static_cast<unsigned char>(rest[1]) << 8;
  const std::size_t length = std::min(claimed, rest.size() - 2);
  const std::string_view piece = rest.substr(2, length);
  rest.remove_prefix(2 + length);
  return piece;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::CliRunner runner({});
  if (size < 2) return 0;
  const std::uint8_t choice = data[0], options = data[1];
  std::string_view rest = fuzz::as_text(data + 2, size - 2);
  fuzz::write_scratch("x.npy", take_piece(rest));
  fuzz::write_scratch("w.npy", take_piece(rest));
  const bool bias = options & 0x80, to_stdout = options & 0x40;
  if (bias) fuzz::write_scratch("b.npy", rest);

  std::vector<std::string> args = {"conv2d", "x.npy", "w.npy", to_stdout ? "-" : "y.npy", "--threads", "1",
                                   "--algorithm", kAlgorithms[choice % kAlgorithms.size()],
                                   "--padding", kPaddings[options % kPaddings.size()].text};
  if (const char* type = kTypes[choice / kAlgorithms.size() % kTypes.size()]; *type != '\0')
    args.insert(args.end(), {"--dtype", type});
  if (bias) args.insert(args.end(), {"--bias", "b.npy"});

  const PaddingChoice& padding = kPaddings[options % kPaddings.size()];
  const fuzz::CliResult result = runner.run(args, "", [&](const fuzz::CliResult& r) {
    if (r.code != 0) return;
    fuzz::check(padding.sides != std::array<std::size_t, 4>{} || padding.text == std::string_view("0"),
                std::string("conv2d accepted the padding ") + padding.text);
    const std::vector<std::size_t> shape = expected_shape(padding);
    std::size_t count = 1;
    for (const std::size_t d : shape) count *= d;
    if (to_stdout) {  // one output row of Ow values per line
      fuzz::check(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '\n')) == count / shape.back(),
                  "conv2d printed the wrong number of rows");
    } else {
      // Not read back: the output may hold infinities (float overflow), which the reader refuses.
      const std::string file = io::detail::InputFile("y.npy").read_rest();
      const std::vector<std::uint64_t> dims(shape.begin(), shape.end());
      fuzz::check(std::any_of(std::begin(kOutputTypes), std::end(kOutputTypes), [&](DType type) {
                    const std::string header = io::detail::npy_header(type, dims);
                    return file.starts_with(header) && file.size() == header.size() + count * size_of(type);
                  }),
                  "conv2d's output file is not a .npy of the expected shape");
    }
  });
  fuzz::check_cli_result(result);
  fuzz::check(result.code != 1, "conv2d failed as if the environment had: " + result.err);
  return 0;
}
