// fastconv_conv2d_cudnn — fastconv's cuda polyhankel beside every cuDNN forward algorithm
// (issue 8), float32, stride 1, on one GPU.
//
// For each shape the polyhankel plan is made once (its time reported apart) and execute_device()
// is timed. Then cudnnFindConvolutionForwardAlgorithmEx runs every cuDNN forward algorithm, and
// each one that works is timed by itself: first with CUDNN_FMA_MATH, FP32 arithmetic only — the
// comparison that counts, since polyhankel computes in FP32 — and then with CUDNN_DEFAULT_MATH,
// which lets Ampere and later GPUs round the operands to TF32 on tensor cores (an extra, labelled
// column; NVIDIA_TF32_OVERRIDE=0 in the environment turns TF32 off there too). A time is the
// median of --reps calls, each between two cudaEvents on one stream, after one untimed call
// (execute_device returns when its work is done, so its stop event is queued after that wait: a few
// µs that cuDNN's asynchronous calls do not pay, and that a caller of execute_device does). The
// polyhankel output is checked against that of the faster of cuDNN's two IMPLICIT_GEMM algorithms
// (FMA math): max|diff| / max|ref| above 1e-3 fails the run.
//
// Only fastconv's public API is used: Conv2dPlan on Backend::cuda() and execute_device(). cuDNN's
// legacy convolution API (deprecated in cuDNN 9 but shipped; seed 002 used it, with cuDNN 8.9)
// takes one padding per dimension applied to both sides, so the shapes here pad all four sides
// alike; fastconv's asymmetric padding has no cuDNN counterpart to compare with.
//
//   fastconv_conv2d_cudnn [--shapes 'N,C,H,W,K,Kh,Kw,pad[;...]'] [--reps 20] [--device 0] [--json]
//
// Output: the GPU and the driver, runtime and cuDNN versions, then one Markdown table row per
// shape as it is measured (--json: one JSON object per line instead, the versions first). Exit
// status: 0; 1 without a CUDA device (one line on stderr), after a CUDA, cuDNN or fastconv error,
// or when a check fails; 2 for bad usage.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime.h>
#include <cudnn.h>
#include <nlohmann/json.hpp>

#include <fastconv/fastconv.hpp>

#include "cuda_common.hpp"

namespace {

using fastconv::Conv2dShape;
using nlohmann::json;

constexpr double kTolerance = 1e-3;  // max|diff| / max|ref| of polyhankel against cuDNN
constexpr std::uint64_t kSeed = 1;
// Left free beside cuDNN's workspace, for what cuDNN allocates itself.
constexpr std::size_t kWorkspaceReserve = std::size_t{256} << 20;

// --- command line ------------------------------------------------------------------------------

/// A shape to measure and where it comes from.
struct Case {
  std::string source;
  Conv2dShape shape;
};

Case make_case(std::string source, std::size_t n, std::size_t c, std::size_t hw, std::size_t k, std::size_t kernel,
               std::size_t pad) {
  return {std::move(source),
          {.batch = n, .channels = c, .height = hw, .width = hw, .filters = k, .kernel_height = kernel,
           .kernel_width = kernel, .padding = fastconv::Padding::same_all(pad)}};
}

/// Seed 002's sweeps (its Figs. 3–5: batch 128; the paper does not give Fig. 3's channel count,
/// nor Figs. 4–5's batch or Fig. 4's input size, so these follow bench/conv2d_bench.py: C = K =
/// 16, 112²), then ResNet and VGG layers at stride 1 and batch 32 (VGG: 16).
std::vector<Case> default_cases() {
  std::vector<Case> cases;
  for (std::size_t hw : {28, 56, 112, 224}) cases.push_back(make_case("seed 002 Fig. 3", 128, 16, hw, 16, 5, 0));
  for (std::size_t kernel : {3, 9, 15, 25}) cases.push_back(make_case("seed 002 Fig. 4", 128, 16, 112, 16, kernel, 0));
  for (std::size_t c : {1, 8, 32, 128}) cases.push_back(make_case("seed 002 Fig. 5", 128, c, 112, c, 3, 0));
  cases.push_back(make_case("ResNet conv1", 32, 3, 224, 64, 7, 3));
  cases.push_back(make_case("ResNet 3×3", 32, 64, 56, 64, 3, 1));
  cases.push_back(make_case("ResNet 3×3", 32, 128, 28, 128, 3, 1));
  cases.push_back(make_case("ResNet 3×3", 32, 256, 14, 256, 3, 1));
  cases.push_back(make_case("ResNet 1×1", 32, 256, 56, 64, 1, 0));
  cases.push_back(make_case("5×5", 32, 16, 112, 16, 5, 2));
  cases.push_back(make_case("VGG 3×3", 16, 64, 224, 64, 3, 1));
  return cases;
}

struct Args {
  std::vector<Case> cases = default_cases();
  int reps = 20;
  int device = 0;
  bool json = false;
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "fastconv_conv2d_cudnn: error: %s\n"
               "usage: fastconv_conv2d_cudnn [--shapes 'N,C,H,W,K,Kh,Kw,pad[;...]'] [--reps 20] [--device 0] "
               "[--json]\n",
               message.c_str());
  std::exit(2);
}

long long parse_number(std::string_view text, const std::string& what, long long min, long long max) {
  const std::string s(text);
  char* end = nullptr;
  const long long value = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || value < min || value > max)
    usage(what + ": '" + s + "' is not a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

/// "N,C,H,W,K,Kh,Kw,pad" (cuDNN's dimensions are ints, hence the bound).
Case parse_case(std::string_view text) {
  std::array<std::size_t, 8> v{};
  std::size_t field = 0;
  for (std::size_t begin = 0; begin <= text.size(); ++field) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    if (field == v.size()) usage("--shapes: '" + std::string(text) + "' has more than 8 numbers (N,C,H,W,K,Kh,Kw,pad)");
    const long long min = field == 7 ? 0 : 1;
    v[field] = static_cast<std::size_t>(parse_number(text.substr(begin, end - begin), "--shapes", min, 1 << 20));
    begin = end + 1;
  }
  if (field != v.size()) usage("--shapes: '" + std::string(text) + "' is not 8 numbers N,C,H,W,K,Kh,Kw,pad");
  Case c{"--shapes",
         {.batch = v[0], .channels = v[1], .height = v[2], .width = v[3], .filters = v[4], .kernel_height = v[5],
          .kernel_width = v[6], .padding = fastconv::Padding::same_all(v[7])}};
  try {
    c.shape.validate();
  } catch (const fastconv::Error& e) {
    usage("--shapes: '" + std::string(text) + "': " + e.what());
  }
  return c;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--json") {
      args.json = true;
      continue;
    }
    if (i + 1 == argc) usage(option + " needs a value");
    const std::string_view value = argv[++i];
    if (option == "--shapes") {
      args.cases.clear();
      for (std::size_t begin = 0; begin <= value.size();) {
        const std::size_t end = std::min(value.find(';', begin), value.size());
        args.cases.push_back(parse_case(value.substr(begin, end - begin)));
        begin = end + 1;
      }
    } else if (option == "--reps") {
      args.reps = static_cast<int>(parse_number(value, option, 1, 100000));
    } else if (option == "--device") {
      args.device = static_cast<int>(parse_number(value, option, 0, 1023));
    } else {
      usage("unknown option '" + option + "'");
    }
  }
  return args;
}

// --- CUDA and cuDNN: errors and owned resources ------------------------------------------------

using bench::check;
using bench::DeviceArray;
using bench::median_ms;

/// A failed cuDNN call, with its status (reported per algorithm in the table).
struct CudnnError : std::runtime_error {
  CudnnError(cudnnStatus_t s, const char* what)
      : std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(s)), status(s) {}
  cudnnStatus_t status;
};

void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) throw CudnnError(s, what);
}

}  // namespace

template <>
struct bench::StatusCheck<cudnnStatus_t> {
  static void check(cudnnStatus_t s, const char* what) { ::check(s, what); }
};

namespace {

using bench::Owned;
using CudnnHandle = Owned<cudnnHandle_t, cudnnCreate, cudnnDestroy>;
using TensorDescriptor = Owned<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = Owned<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    Owned<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;

/// The descriptors of one float32 NCHW forward convolution (cross-correlation, stride 1,
/// dilation 1, the same padding on both sides of each dimension).
class CudnnProblem {
 public:
  explicit CudnnProblem(const Conv2dShape& s) {
    check(cudnnSetTensor4dDescriptor(x_.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(s.batch),
                                     to_int(s.channels), to_int(s.height), to_int(s.width)),
          "cudnnSetTensor4dDescriptor");
    check(cudnnSetFilter4dDescriptor(w_.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, to_int(s.filters),
                                     to_int(s.channels), to_int(s.kernel_height), to_int(s.kernel_width)),
          "cudnnSetFilter4dDescriptor");
    check(cudnnSetConvolution2dDescriptor(conv_.get(), to_int(s.padding.top), to_int(s.padding.left), 1, 1, 1, 1,
                                          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    int n = 0, k = 0, h = 0, w = 0;
    check(cudnnGetConvolution2dForwardOutputDim(conv_.get(), x_.get(), w_.get(), &n, &k, &h, &w),
          "cudnnGetConvolution2dForwardOutputDim");
    if (std::array{n, k, h, w} !=
        std::array{to_int(s.batch), to_int(s.filters), to_int(s.out_height()), to_int(s.out_width())})
      throw std::logic_error("cuDNN's output shape differs from fastconv's");
    check(cudnnSetTensor4dDescriptor(y_.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, h, w),
          "cudnnSetTensor4dDescriptor");
  }

  /// The largest workspace any algorithm asks for, in either math type.
  [[nodiscard]] std::size_t largest_workspace(cudnnHandle_t handle) const {
    std::size_t largest = 0;
    for (const cudnnMathType_t math : {CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH}) {
      set_math(math);
      for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
        std::size_t bytes = 0;
        const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(a);
        if (cudnnGetConvolutionForwardWorkspaceSize(handle, x_.get(), w_.get(), conv_.get(), y_.get(), algo,
                                                    &bytes) == CUDNN_STATUS_SUCCESS)
          largest = std::max(largest, bytes);
      }
    }
    return largest;
  }

  void set_math(cudnnMathType_t math) const {
    check(cudnnSetConvolutionMathType(conv_.get(), math), "cudnnSetConvolutionMathType");
  }

  /// cudnnFindConvolutionForwardAlgorithmEx over every algorithm, fastest first.
  [[nodiscard]] std::vector<cudnnConvolutionFwdAlgoPerf_t> find(cudnnHandle_t handle, const float* x, const float* w,
                                                                float* y, DeviceArray<std::byte>& workspace) const {
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    int returned = 0;
    check(cudnnFindConvolutionForwardAlgorithmEx(handle, x_.get(), x, w_.get(), w, conv_.get(), y_.get(), y,
                                                 static_cast<int>(perf.size()), &returned, perf.data(),
                                                 workspace.data(), workspace.bytes()),
          "cudnnFindConvolutionForwardAlgorithmEx");
    perf.resize(static_cast<std::size_t>(returned));
    return perf;
  }

  void forward(cudnnHandle_t handle, cudnnConvolutionFwdAlgo_t algo, const float* x, const float* w, float* y,
               DeviceArray<std::byte>& workspace) const {
    const float one = 1, zero = 0;
    check(cudnnConvolutionForward(handle, &one, x_.get(), x, w_.get(), w, conv_.get(), algo, workspace.data(),
                                  workspace.bytes(), &zero, y_.get(), y),
          "cudnnConvolutionForward");
  }

 private:
  static int to_int(std::size_t v) {
    if (v > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::invalid_argument("a dimension is too large for cuDNN's int");
    return static_cast<int>(v);
  }

  TensorDescriptor x_{"cudnnCreateTensorDescriptor"}, y_{"cudnnCreateTensorDescriptor"};
  FilterDescriptor w_{"cudnnCreateFilterDescriptor"};
  ConvolutionDescriptor conv_{"cudnnCreateConvolutionDescriptor"};
};

// --- the measurements ---------------------------------------------------------------------------

/// cuDNN's forward algorithms in the table's column order.
constexpr std::array<cudnnConvolutionFwdAlgo_t, 8> kAlgorithms = {
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
    CUDNN_CONVOLUTION_FWD_ALGO_GEMM,          CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
    CUDNN_CONVOLUTION_FWD_ALGO_FFT,           CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,      CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};
static_assert(kAlgorithms.size() == CUDNN_CONVOLUTION_FWD_ALGO_COUNT, "a cuDNN algorithm is missing from the table");

const char* algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "?";
  }
}

const char* math_name(cudnnMathType_t math) {
  switch (math) {
    case CUDNN_DEFAULT_MATH: return "DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "FMA_MATH";
    default: return "?";
  }
}

/// One cuDNN algorithm in one math type: its median time, or why it has none.
struct AlgorithmResult {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  double ms = NAN;
  float find_ms = NAN;  ///< cudnnFind's own time of the algorithm
  std::size_t workspace_bytes = 0;

  [[nodiscard]] bool ok() const { return status == CUDNN_STATUS_SUCCESS && std::isfinite(ms); }
};

/// Every algorithm cudnnFind reports for `math`, the working ones timed. CUDNN_FMA_MATH times
/// each with FMA math whatever cudnnFind reports, so that no TF32 enters the FP32 columns; under
/// CUDNN_DEFAULT_MATH each runs in the math type cudnnFind chose for it.
std::vector<AlgorithmResult> time_cudnn(cudnnHandle_t handle, const CudnnProblem& problem, cudnnMathType_t math,
                                        const float* x, const float* w, float* y, DeviceArray<std::byte>& workspace,
                                        cudaStream_t stream, int reps) {
  problem.set_math(math);
  std::vector<AlgorithmResult> results;
  for (const cudnnConvolutionFwdAlgoPerf_t& perf : problem.find(handle, x, w, y, workspace)) {
    // An algorithm may come more than once (in several math types), fastest first: keep the first that works.
    auto it = std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.algo == perf.algo; });
    if (it != results.end() && it->status == CUDNN_STATUS_SUCCESS) continue;
    const AlgorithmResult found{.algo = perf.algo, .status = perf.status};
    AlgorithmResult& r = it != results.end() ? (*it = found) : results.emplace_back(found);
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    r.math = math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : perf.mathType;
    r.find_ms = perf.time;
    r.workspace_bytes = perf.memory;
    try {
      problem.set_math(r.math);
      r.ms = median_ms(stream, reps, [&](int) { problem.forward(handle, perf.algo, x, w, y, workspace); });
    } catch (const CudnnError& e) {
      r.status = e.status;
    }
  }
  return results;
}

const AlgorithmResult* fastest(const std::vector<AlgorithmResult>& results, auto&& accept) {
  const AlgorithmResult* best = nullptr;
  for (const AlgorithmResult& r : results)
    if (r.ok() && accept(r.algo) && (!best || r.ms < best->ms)) best = &r;
  return best;
}

const AlgorithmResult* fastest(const std::vector<AlgorithmResult>& results) {
  return fastest(results, [](cudnnConvolutionFwdAlgo_t) { return true; });
}

struct PolyhankelResult {
  std::optional<std::string> error;  ///< why there are no times
  double plan_ms = NAN;
  double ms = NAN;
  std::vector<float> output;
};

/// Plans polyhankel on the device (the plan is gone, and its memory free for cuDNN, on return),
/// times execute_device and returns the output.
PolyhankelResult run_polyhankel(const fastconv::Backend& backend, const Conv2dShape& shape,
                                std::span<const float> weights, const DeviceArray<float>& input, cudaStream_t stream,
                                int reps) {
  PolyhankelResult result;
  try {
    DeviceArray<float> output(shape.output_size());
    const auto start = std::chrono::steady_clock::now();
    const fastconv::Conv2dPlan<float> plan(shape, weights, {}, fastconv::Conv2dAlgorithm::polyhankel, backend);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    result.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.ms = median_ms(stream, reps, [&](int) { plan.execute_device(input.data(), output.data(), stream); });
    result.output = output.download();
  } catch (const fastconv::Error& e) {
    result.error = e.what();
  }
  return result;
}

/// The first plan in a process also initialises cuFFT: one on a tiny shape first, so that the
/// plan times reported are the shapes' own.
void warm_up_polyhankel(const fastconv::Backend& backend) {
  const Conv2dShape tiny{.height = 8, .width = 8, .kernel_height = 3, .kernel_width = 3};
  const std::vector<float> weights(tiny.weight_size(), 1.0f);
  try {
    const fastconv::Conv2dPlan<float> plan(tiny, weights, {}, fastconv::Conv2dAlgorithm::polyhankel, backend);
  } catch (const fastconv::Error&) {
    // Each shape reports the error itself.
  }
}

/// max|got − want| and max|want|.
struct Deviation {
  std::string reference;  ///< the cuDNN algorithm that computed `want`
  double max_diff = 0, max_ref = 0;
  [[nodiscard]] double relative() const { return max_diff / max_ref; }
  [[nodiscard]] bool ok() const { return relative() <= kTolerance; }  // false for NaN
};

Deviation deviation(std::string reference, std::span<const float> got, std::span<const float> want) {
  Deviation d{std::move(reference)};
  for (std::size_t i = 0; i < got.size(); ++i) {
    d.max_diff = std::max(d.max_diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    if (!std::isfinite(got[i]) || !std::isfinite(want[i])) d.max_diff = INFINITY;
    d.max_ref = std::max(d.max_ref, std::fabs(static_cast<double>(want[i])));
  }
  return d;
}

/// SplitMix64 uniform in [−1, 1): fast, and good enough for test data.
std::vector<float> random_values(std::size_t count, std::uint64_t& state) {
  std::vector<float> values(count);
  for (float& v : values) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    v = static_cast<float>(static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1);
  }
  return values;
}

struct CaseResult {
  std::size_t workspace_bytes = 0;
  PolyhankelResult polyhankel;
  std::vector<AlgorithmResult> fp32, tf32_allowed;
  std::optional<Deviation> check;
};

CaseResult measure(const Case& c, const fastconv::Backend& backend, cudnnHandle_t handle, cudaStream_t stream,
                   int reps) {
  const Conv2dShape& s = c.shape;
  std::uint64_t state = kSeed;
  const std::vector<float> input = random_values(s.input_size(), state);
  const std::vector<float> weights = random_values(s.weight_size(), state);
  DeviceArray<float> x(input.size()), w(weights.size()), y(s.output_size());
  x.upload(input);
  w.upload(weights);

  CaseResult result;
  result.polyhankel = run_polyhankel(backend, s, weights, x, stream, reps);

  const CudnnProblem problem(s);
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  result.workspace_bytes =
      std::min(problem.largest_workspace(handle), free_bytes > kWorkspaceReserve ? free_bytes - kWorkspaceReserve : 0);
  DeviceArray<std::byte> workspace(result.workspace_bytes);
  result.fp32 = time_cudnn(handle, problem, CUDNN_FMA_MATH, x.data(), w.data(), y.data(), workspace, stream, reps);
  result.tf32_allowed =
      time_cudnn(handle, problem, CUDNN_DEFAULT_MATH, x.data(), w.data(), y.data(), workspace, stream, reps);

  const AlgorithmResult* reference = fastest(result.fp32, [](cudnnConvolutionFwdAlgo_t a) {
    return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  });
  if (reference && !result.polyhankel.error) {
    problem.set_math(CUDNN_FMA_MATH);
    problem.forward(handle, reference->algo, x.data(), w.data(), y.data(), workspace);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    result.check = deviation(algorithm_name(reference->algo), result.polyhankel.output, y.download());
  }
  return result;
}

// --- output -------------------------------------------------------------------------------------

std::string shape_text(const Conv2dShape& s) {
  return std::to_string(s.batch) + "," + std::to_string(s.channels) + "," + std::to_string(s.height) + "," +
         std::to_string(s.width) + "," + std::to_string(s.filters) + "," + std::to_string(s.kernel_height) + "," +
         std::to_string(s.kernel_width) + "," + std::to_string(s.padding.top);
}

std::string number(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

/// "CUDNN_STATUS_NOT_SUPPORTED" → "NOT_SUPPORTED".
std::string status_name(cudnnStatus_t status) {
  std::string name = cudnnGetErrorString(status);
  constexpr std::string_view prefix = "CUDNN_STATUS_";
  if (name.starts_with(prefix)) name.erase(0, prefix.size());
  return name;
}

std::string version_text(int v, int major_unit, int minor_unit) {
  return std::to_string(v / major_unit) + "." + std::to_string(v % major_unit / minor_unit);
}

struct Versions {
  cudaDeviceProp props{};
  int driver = 0, runtime = 0;
  std::size_t cudnn = 0, cudnn_cudart = 0;
};

Versions query_versions(int device) {
  Versions v;
  check(cudaGetDeviceProperties(&v.props, device), "cudaGetDeviceProperties");
  check(cudaDriverGetVersion(&v.driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&v.runtime), "cudaRuntimeGetVersion");
  v.cudnn = cudnnGetVersion();
  v.cudnn_cudart = cudnnGetCudartVersion();
  return v;
}

std::string cudnn_version_text(std::size_t v) {  // cuDNN 9: major·10000 + minor·100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

void print_header_markdown(const Versions& v, int device, int reps) {
  const char* tf32_override = std::getenv("NVIDIA_TF32_OVERRIDE");
  std::printf("GPU %d: %s (sm_%d%d, %d SMs, %.1f GiB); driver %s, runtime %s, cuDNN %s (built with %d.%d.%d); "
              "fastconv %s\n",
              device, v.props.name, v.props.major, v.props.minor, v.props.multiProcessorCount,
              static_cast<double>(v.props.totalGlobalMem) / (1 << 30), version_text(v.driver, 1000, 10).c_str(),
              version_text(v.runtime, 1000, 10).c_str(), cudnn_version_text(v.cudnn).c_str(), CUDNN_MAJOR,
              CUDNN_MINOR, CUDNN_PATCHLEVEL, std::string(fastconv::version()).c_str());
  std::printf("\nfloat32, stride 1, NCHW; ms per call, medians of %d calls (polyhankel plan: the Conv2dPlan "
              "constructor, once). cuDNN columns: CUDNN_FMA_MATH (FP32 only); \"TF32 allowed\": the fastest "
              "algorithm with CUDNN_DEFAULT_MATH%s. \"÷ polyhankel\" > 1: polyhankel is faster. Error: max|diff| / "
              "max|ref| of polyhankel against cuDNN's faster IMPLICIT_GEMM (FP32).\n\n",
              reps, tf32_override ? (std::string(" (NVIDIA_TF32_OVERRIDE=") + tf32_override + ")").c_str() : "");
  std::string head = "| case | N,C,H,W,K,Kh,Kw,pad | polyhankel | polyhankel plan |";
  std::string rule = "|---|---|---|---|";
  for (const cudnnConvolutionFwdAlgo_t a : kAlgorithms) {
    head += std::string(" ") + algorithm_name(a) + " |";
    rule += "---|";
  }
  head += " best cuDNN | best cuDNN ÷ polyhankel | TF32 allowed: best cuDNN | TF32 ÷ polyhankel | error |";
  rule += "---|---|---|---|---|";
  std::printf("%s\n%s\n", head.c_str(), rule.c_str());
}

json header_json(const Versions& v, int device, int reps) {
  const char* tf32_override = std::getenv("NVIDIA_TF32_OVERRIDE");
  return {{"gpu", v.props.name},
          {"device", device},
          {"compute_capability", std::to_string(v.props.major) + "." + std::to_string(v.props.minor)},
          {"multiprocessors", v.props.multiProcessorCount},
          {"memory_bytes", v.props.totalGlobalMem},
          {"driver", version_text(v.driver, 1000, 10)},
          {"runtime", version_text(v.runtime, 1000, 10)},
          {"cudnn", cudnn_version_text(v.cudnn)},
          {"cudnn_built_with", cudnn_version_text(CUDNN_VERSION)},
          {"cudnn_cudart", version_text(static_cast<int>(v.cudnn_cudart), 1000, 10)},
          {"fastconv", std::string(fastconv::version())},
          {"reps", reps},
          {"nvidia_tf32_override", tf32_override ? json(tf32_override) : json(nullptr)}};
}

const AlgorithmResult* find_result(const std::vector<AlgorithmResult>& results, cudnnConvolutionFwdAlgo_t algo) {
  const auto it = std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.algo == algo; });
  return it == results.end() ? nullptr : &*it;
}

std::string ms_cell(const AlgorithmResult* r) {
  if (!r) return "— (not reported)";
  if (!r->ok()) return "— (" + status_name(r->status) + ")";
  return number("%.4g", r->ms);
}

std::string best_cell(const AlgorithmResult* best) {
  return best ? number("%.4g", best->ms) + " (" + algorithm_name(best->algo) + ")" : "—";
}

std::string ratio_cell(const AlgorithmResult* best, const PolyhankelResult& p) {
  return best && !p.error ? number("%.2f×", best->ms / p.ms) : "—";
}

void print_row_markdown(const Case& c, const CaseResult& r) {
  const PolyhankelResult& p = r.polyhankel;
  std::string row = "| " + c.source + " | " + shape_text(c.shape) + " | ";
  row += p.error ? "— (error)" : number("%.4g", p.ms);
  row += " | " + (p.error ? std::string("—") : number("%.4g", p.plan_ms)) + " |";
  for (const cudnnConvolutionFwdAlgo_t a : kAlgorithms) row += " " + ms_cell(find_result(r.fp32, a)) + " |";
  const AlgorithmResult* best = fastest(r.fp32);
  const AlgorithmResult* best_tf32 = fastest(r.tf32_allowed);
  row += " " + best_cell(best) + " | " + ratio_cell(best, p) + " | " + best_cell(best_tf32) + " | " +
         ratio_cell(best_tf32, p) + " | ";
  row += r.check ? number("%.2e", r.check->relative()) + (r.check->ok() ? "" : " (FAILED)") : "—";
  row += " |";
  std::printf("%s\n", row.c_str());
}

json algorithms_json(const std::vector<AlgorithmResult>& results) {
  json out = json::array();
  for (const AlgorithmResult& r : results) {
    json a = {{"algo", algorithm_name(r.algo)}, {"status", cudnnGetErrorString(r.status)}};
    if (r.ok()) {
      a["ms"] = r.ms;
      a["math"] = math_name(r.math);
      a["find_ms"] = r.find_ms;
      a["workspace_bytes"] = r.workspace_bytes;
    }
    out.push_back(std::move(a));
  }
  return out;
}

json best_json(const AlgorithmResult* best, const PolyhankelResult& p) {
  if (!best) return nullptr;
  json b = {{"algo", algorithm_name(best->algo)}, {"ms", best->ms}, {"math", math_name(best->math)}};
  if (!p.error) b["ratio_to_polyhankel"] = best->ms / p.ms;
  return b;
}

json row_json(const Case& c, const CaseResult& r, int reps) {
  const Conv2dShape& s = c.shape;
  const PolyhankelResult& p = r.polyhankel;
  json row = {{"source", c.source},
              {"shape", {{"N", s.batch}, {"C", s.channels}, {"H", s.height}, {"W", s.width}, {"K", s.filters},
                         {"Kh", s.kernel_height}, {"Kw", s.kernel_width}, {"pad", s.padding.top}}},
              {"reps", reps},
              {"polyhankel", p.error ? json{{"error", *p.error}} : json{{"ms", p.ms}, {"plan_ms", p.plan_ms}}},
              {"workspace_limit_bytes", r.workspace_bytes},
              {"cudnn_fp32", algorithms_json(r.fp32)},
              {"cudnn_tf32_allowed", algorithms_json(r.tf32_allowed)},
              {"best_fp32", best_json(fastest(r.fp32), p)},
              {"best_tf32_allowed", best_json(fastest(r.tf32_allowed), p)}};
  if (r.check)
    row["check"] = {{"reference", r.check->reference}, {"max_abs_diff", r.check->max_diff},
                    {"max_abs_ref", r.check->max_ref}, {"relative", r.check->relative()},
                    {"tolerance", kTolerance}, {"ok", r.check->ok()}};
  return row;
}

/// Runs every case; false if one failed (an error, or a check above the tolerance).
bool run(const Args& args) {
  check(cudaSetDevice(args.device), "cudaSetDevice");
  const Versions versions = query_versions(args.device);
  if (args.json) std::printf("%s\n", header_json(versions, args.device, args.reps).dump().c_str());
  else print_header_markdown(versions, args.device, args.reps);
  std::fflush(stdout);

  const fastconv::Backend backend = fastconv::Backend::cuda({}, std::to_string(args.device));
  const bench::Stream stream("cudaStreamCreateWithFlags");
  const CudnnHandle handle("cudnnCreate");  // destroyed before the stream it runs on
  check(cudnnSetStream(handle.get(), stream.get()), "cudnnSetStream");
  warm_up_polyhankel(backend);
  bool ok = true;
  for (const Case& c : args.cases) {
    try {
      const CaseResult r = measure(c, backend, handle.get(), stream.get(), args.reps);
      if (args.json) std::printf("%s\n", row_json(c, r, args.reps).dump().c_str());
      else print_row_markdown(c, r);
      std::fflush(stdout);
      const std::string shape = shape_text(c.shape);
      if (r.polyhankel.error)
        std::fprintf(stderr, "fastconv_conv2d_cudnn: %s: polyhankel: %s\n", shape.c_str(), r.polyhankel.error->c_str());
      else if (!r.check)
        std::fprintf(stderr, "fastconv_conv2d_cudnn: %s: polyhankel not checked: no IMPLICIT_GEMM algorithm ran\n",
                     shape.c_str());
      else if (!r.check->ok())
        std::fprintf(stderr, "fastconv_conv2d_cudnn: %s: polyhankel differs from cuDNN %s by %.3g of max|ref| "
                     "(tolerance %g)\n", shape.c_str(), r.check->reference.c_str(), r.check->relative(), kTolerance);
      ok = ok && !r.polyhankel.error && r.check && r.check->ok();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fastconv_conv2d_cudnn: %s: error: %s\n", shape_text(c.shape).c_str(), e.what());
      ok = false;
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "fastconv_conv2d_cudnn: no CUDA device: %s\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
    return 1;
  }
  if (args.device >= count) usage("--device " + std::to_string(args.device) + ": the devices are 0 … " +
                                  std::to_string(count - 1));
  try {
    return run(args) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastconv_conv2d_cudnn: error: %s\n", e.what());
    return 1;
  }
}
