// src/nn/conv2d.cpp — Conv2dShape, names, and Conv2dPlan: validation, dispatch and the
// measured choice of auto_.
#include "fastconv/conv2d.hpp"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/backend_impl.hpp"
#include "core/memory.hpp"
#include "nn/blas.hpp"
#include "nn/fft.hpp"
#include "nn/kernels.hpp"

namespace fastconv {

namespace {

/// H + top + bottom − (Kh − 1) without wrapping: 0 when the kernel does not fit.
std::size_t out_extent(std::size_t in, std::size_t pad_a, std::size_t pad_b, std::size_t kernel) noexcept {
  const std::size_t padded = in + pad_a + pad_b;
  return kernel == 0 || padded < kernel ? 0 : padded - kernel + 1;
}

/// Whether the product of `factors`, in bytes of a double, fits in a std::size_t.
bool bytes_fit(std::initializer_list<std::size_t> factors) noexcept {
  std::size_t bytes = sizeof(double);
  for (const std::size_t factor : factors)
    if (__builtin_mul_overflow(bytes, factor, &bytes)) return false;
  return true;
}

std::string shape_text(const Conv2dShape& s) {
  return "N=" + std::to_string(s.batch) + " C=" + std::to_string(s.channels) + " H=" + std::to_string(s.height) +
         " W=" + std::to_string(s.width) + " K=" + std::to_string(s.filters) + " kernel " +
         std::to_string(s.kernel_height) + "x" + std::to_string(s.kernel_width) + " padding (top " +
         std::to_string(s.padding.top) + ", bottom " + std::to_string(s.padding.bottom) + ", left " +
         std::to_string(s.padding.left) + ", right " + std::to_string(s.padding.right) + ")";
}

}  // namespace

std::size_t Conv2dShape::out_height() const noexcept {
  return out_extent(height, padding.top, padding.bottom, kernel_height);
}
std::size_t Conv2dShape::out_width() const noexcept {
  return out_extent(width, padding.left, padding.right, kernel_width);
}
std::size_t Conv2dShape::input_size() const noexcept { return batch * channels * height * width; }
std::size_t Conv2dShape::weight_size() const noexcept {
  return filters * channels * kernel_height * kernel_width;
}
std::size_t Conv2dShape::output_size() const noexcept { return batch * filters * out_height() * out_width(); }

void Conv2dShape::validate() const {
  if (batch == 0 || channels == 0 || height == 0 || width == 0 || filters == 0 || kernel_height == 0 ||
      kernel_width == 0)
    throw Error(ErrorCode::invalid_argument, "conv2d: shape " + shape_text(*this) + " has a zero dimension");
  // A size that wrapped around would make every buffer too small: such shapes are refused
  // before anything is allocated.
  const auto too_large = [&](const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "conv2d: shape " + shape_text(*this) + " is too large: " + what);
  };
  std::size_t padded_height = 0, padded_width = 0;
  if (__builtin_add_overflow(height, padding.top, &padded_height) ||
      __builtin_add_overflow(padded_height, padding.bottom, &padded_height) ||
      __builtin_add_overflow(width, padding.left, &padded_width) ||
      __builtin_add_overflow(padded_width, padding.right, &padded_width))
    too_large("the padded height or width overflows 64 bits");
  if (!bytes_fit({batch, channels, padded_height, padded_width}))
    too_large("the size in bytes of the padded input, N*C*(H+top+bottom)*(W+left+right) values, overflows 64 bits");
  if (!bytes_fit({filters, channels, kernel_height, kernel_width}))
    too_large("the size in bytes of the K*C*Kh*Kw weights overflows 64 bits");
  if (out_height() == 0 || out_width() == 0)
    throw Error(ErrorCode::invalid_argument,
                "conv2d: shape " + shape_text(*this) +
                    " has no output: the kernel is larger than the padded input (output " +
                    std::to_string(static_cast<long long>(height + padding.top + padding.bottom) -
                                   static_cast<long long>(kernel_height) + 1) +
                    "x" +
                    std::to_string(static_cast<long long>(width + padding.left + padding.right) -
                                   static_cast<long long>(kernel_width) + 1) +
                    ")");
  if (!bytes_fit({batch, filters, out_height(), out_width()}))
    too_large("the size in bytes of the output, N*K*Oh*Ow values, overflows 64 bits");
}

std::string conv2d_fft_library() { return nn::fft_library(); }

std::string_view to_string(Conv2dAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case Conv2dAlgorithm::auto_: return "auto";
    case Conv2dAlgorithm::direct: return "direct";
    case Conv2dAlgorithm::im2col_gemm: return "im2col_gemm";
    case Conv2dAlgorithm::fft2d: return "fft2d";
    case Conv2dAlgorithm::winograd: return "winograd";
    case Conv2dAlgorithm::polyhankel: return "polyhankel";
    case Conv2dAlgorithm::polyhankel_merged: return "polyhankel_merged";
  }
  return "?";
}

std::optional<Conv2dAlgorithm> parse_conv2d_algorithm(std::string_view name) noexcept {
  if (name == "auto") return Conv2dAlgorithm::auto_;
  if (name == "direct") return Conv2dAlgorithm::direct;
  if (name == "im2col_gemm" || name == "im2col-gemm") return Conv2dAlgorithm::im2col_gemm;
  if (name == "fft2d") return Conv2dAlgorithm::fft2d;
  if (name == "winograd") return Conv2dAlgorithm::winograd;
  if (name == "polyhankel") return Conv2dAlgorithm::polyhankel;
  if (name == "polyhankel_merged" || name == "polyhankel-merged") return Conv2dAlgorithm::polyhankel_merged;
  return std::nullopt;
}

std::string conv2d_algorithm_names() {
  const auto all = conv2d_algorithms("cpu");
  std::string names;
  for (std::size_t i = 0; i < all.size(); ++i)
    names += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(to_string(all[i]));
  return names;
}

bool conv2d_supports(Conv2dAlgorithm algorithm, const Conv2dShape& shape) noexcept {
  if (algorithm == Conv2dAlgorithm::winograd) return shape.kernel_height == 3 && shape.kernel_width == 3;
  return true;
}

namespace {

/// auto's candidates, in the order they are planned: those planned in milliseconds first, whose
/// runs set the FFT algorithms' deadline (measure_fastest).
constexpr Conv2dAlgorithm kMeasured[] = {Conv2dAlgorithm::direct, Conv2dAlgorithm::im2col_gemm,
                                         Conv2dAlgorithm::winograd, Conv2dAlgorithm::polyhankel,
                                         Conv2dAlgorithm::fft2d};

/// The FFT algorithms, whose planning makes FFT plans and transforms the weights (and
/// polyhankel's times candidate lengths and bands): seconds on a large shape.
constexpr bool plans_ffts(Conv2dAlgorithm algorithm) noexcept {
  return algorithm == Conv2dAlgorithm::fft2d || algorithm == Conv2dAlgorithm::polyhankel;
}

/// The time auto gives the FFT algorithms' planning, all together: kPlanRuns runs of the fastest
/// algorithm planned before them, and at least kPlanFloor seconds (a fresh process planned
/// polyhankel in 0.3–3.2 s on five of the benchmark's shapes; at 224², C = K = 1, most of it
/// in FFTW's measured plan).
constexpr double kPlanRuns = 10;
constexpr double kPlanFloor = 4;

template <class T>
nn::KernelPtr<T> make_kernel(Conv2dAlgorithm algorithm, const nn::KernelArgs<T>& args) {
  switch (algorithm) {
    case Conv2dAlgorithm::direct: return nn::make_direct(args);
    case Conv2dAlgorithm::im2col_gemm: return nn::make_im2col_gemm(args);
    case Conv2dAlgorithm::fft2d: return nn::make_fft2d(args);
    case Conv2dAlgorithm::winograd: return nn::make_winograd(args);
    case Conv2dAlgorithm::polyhankel: return nn::make_polyhankel(args);
    case Conv2dAlgorithm::polyhankel_merged: return nn::make_polyhankel_merged(args);
    case Conv2dAlgorithm::auto_: break;
  }
  throw Error(ErrorCode::invalid_argument, "conv2d: no kernel for algorithm auto");
}

/// Seconds of one run.
template <class T>
double time_run(const nn::Conv2dKernel<T>& kernel, const T* input, T* output) {
  const auto start = std::chrono::steady_clock::now();
  kernel.run(input, output);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// auto_'s choices, like cuDNN's find: measured once per (shape, type, threads) in the process.
using ChoiceKey = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,
                             std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, int>;
std::mutex choice_mutex;
std::map<ChoiceKey, Conv2dAlgorithm> choices;

template <class T>
ChoiceKey choice_key(const Conv2dShape& s, int threads) {
  return {s.batch, s.channels, s.height, s.width, s.filters, s.kernel_height, s.kernel_width, s.padding.top,
          s.padding.bottom, s.padding.left, s.padding.right, sizeof(T), threads};
}

/// Builds every applicable kernel (but those refused: nn::Refusals, and those cut short by the
/// deadline) and races them on a deterministic sample input. The algorithms planned in
/// milliseconds come first, each run once as it is built (a warm-up, which also touches its
/// arrays first); their fastest warm-up sets the deadline of the FFT algorithms' planning,
/// kPlanRuns runs and at least kPlanFloor seconds. They stop at their first check past it
/// (between weight transforms, and polyhankel's between timed FFT lengths and band heights and
/// before its FFT plan; a transform or a timing under way finishes) and leave the race, and
/// fft2d is not started once it has passed. Naming either plans it in full. Without the deadline
/// an 8002x8002 output (one channel, two 3x3 filters) spent 29–34 s choosing, 19 s of them in
/// polyhankel's timings of FFT lengths of 64 million points, for an algorithm whose run
/// (0.31 s) was 10x direct's (0.03 s).
/// The race runs in rounds that run every candidate still in it once, so that a burst of noise
/// (other processes, a busy neighbour on a VM) falls on all of them alike; the fastest by
/// median wins, and its plan work is not repeated. Candidates whose median is over 1.5× the
/// best's leave the race after 3 rounds, or after the first if their runs take over 0.2 s (noise
/// does not make a run that long 1.5× slower, and each sample costs). The rounds go on until they
/// hold about 0.2 s of the best candidate's runs (3 to 64 rounds); when the best run takes over
/// 0.2 s, one round decides.
/// (The race replaced timing each candidate on its own, ~10 ms each, then the two fastest in
/// turns: one benchmark run then kept fft2d where polyhankel was 1.67× faster, the noise
/// having hit polyhankel's own samples so that it was not among the two.)
template <class T>
std::pair<Conv2dAlgorithm, nn::KernelPtr<T>> measure_fastest(const nn::KernelArgs<T>& args) {
  const Conv2dShape& s = args.shape;
  try {
    detail::require_elements(s.input_size() + s.output_size(), sizeof(T),
                             "conv2d auto: the sample data it races the algorithms on (an input and an output)");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::out_of_memory) throw;
    // No room for a race: direct, whose work space is a few rows per thread, unmeasured (and
    // kept for the shape like a measured choice).
    return {Conv2dAlgorithm::direct, make_kernel(Conv2dAlgorithm::direct, args)};
  }
  std::vector<T> input(s.input_size()), output(s.output_size());
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = T(static_cast<int>(i % 17) - 8) / T(8);
  struct Candidate {
    Conv2dAlgorithm algorithm;
    nn::KernelPtr<T> kernel;
    std::vector<double> seconds;
    double median = 0;  ///< of `seconds`, as of the last round

    void sample(const T* in, T* out) {
      seconds.push_back(time_run(*kernel, in, out));
      const auto middle = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
      std::nth_element(seconds.begin(), middle, seconds.end());  // the samples' order is not used
      median = *middle;
    }
  };
  std::vector<Candidate> race;
  nn::Refusals refusals;  // an algorithm whose work arrays do not fit leaves the others to race
  double fastest_warm_up = 1e300;
  std::optional<nn::PlanDeadline> deadline;
  for (Conv2dAlgorithm candidate : kMeasured) {
    if (!conv2d_supports(candidate, s)) continue;
    nn::KernelArgs<T> a = args;
    if (plans_ffts(candidate) && fastest_warm_up < 1e300) {  // (none without a warm-up: all refused)
      if (!deadline)
        deadline.emplace(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(std::max(kPlanFloor, kPlanRuns * fastest_warm_up))));
      if (deadline->passed()) continue;
      a.deadline = &*deadline;
    }
    try {
      if (!refusals.made([&] { race.push_back({candidate, make_kernel(candidate, a), {}}); })) continue;
    } catch (const nn::PlanDeadline::Passed&) {
      continue;
    }
    fastest_warm_up = std::min(fastest_warm_up, time_run(*race.back().kernel, input.data(), output.data()));
  }
  if (race.empty()) refusals.rethrow_first();
  for (int round = 1;; ++round) {
    double best = 1e300;
    for (Candidate& c : race) {
      c.sample(input.data(), output.data());
      best = std::min(best, c.median);
    }
    if (best > 0.2 || round >= std::clamp(static_cast<int>(0.2 / best), 3, 64)) break;
    std::erase_if(race, [best, round](const Candidate& c) {
      return c.median > 1.5 * best && (round >= 3 || c.median > 0.2);
    });
  }
  const auto winner = std::min_element(race.begin(), race.end(),
                                       [](const Candidate& a, const Candidate& b) { return a.median < b.median; });
  return {winner->algorithm, std::move(winner->kernel)};
}

}  // namespace

template <Conv2dElement T>
struct Conv2dPlan<T>::Impl {
  explicit Impl(Backend b) : backend(std::move(b)) {}
  Backend backend;
  Conv2dShape shape;
  Conv2dAlgorithm algorithm = Conv2dAlgorithm::direct;
  nn::KernelPtr<T> kernel;
  mutable std::mutex run_mutex;  // kernels keep scratch: one run at a time
};

namespace {

Backend cpu_backend_with(int threads) {
  if (threads < 0)
    throw Error(ErrorCode::invalid_argument, "conv2d: thread count " + std::to_string(threads) + " is negative");
  return Backend::cpu(threads);
}

/// An unsupported Error unless `backend` computes `algorithm` on `shape`.
void check_supported(const Backend& backend, Conv2dAlgorithm algorithm, const Conv2dShape& shape) {
  check_conv2d_backend(backend.name(), algorithm);
  if (!conv2d_supports(algorithm, shape))
    throw Error(ErrorCode::unsupported, "conv2d: the " + std::string(to_string(algorithm)) +
                                            " algorithm computes 3x3 kernels only, not " +
                                            std::to_string(shape.kernel_height) + "x" +
                                            std::to_string(shape.kernel_width));
}

}  // namespace

std::vector<Conv2dAlgorithm> conv2d_algorithms(std::string_view backend_name) {
  using A = Conv2dAlgorithm;
  if (backend_name == "cpu")
    return {A::auto_, A::direct, A::im2col_gemm, A::fft2d, A::winograd, A::polyhankel, A::polyhankel_merged};
  if (backend_name == "reference") return {A::auto_, A::direct};
  if (backend_name == "cuda") return {A::auto_, A::polyhankel};
  return {};
}

void check_conv2d_backend(std::string_view backend_name, Conv2dAlgorithm algorithm) {
  const std::string name(backend_name == "auto" ? "cpu" : backend_name);
  (void)Backend::variants_of(name);  // an unknown name: invalid_argument, listing the valid ones
  const std::vector<Conv2dAlgorithm> offered = conv2d_algorithms(name);
  if (offered.empty())
    throw Error(ErrorCode::unsupported,
                "conv2d: the " + name + " backend does not compute conv2d; the cpu, reference and cuda backends do");
  if (std::find(offered.begin(), offered.end(), algorithm) != offered.end()) return;
  std::string list;
  for (const Conv2dAlgorithm a : offered) list += (list.empty() ? "" : ", ") + std::string(to_string(a));
  throw Error(ErrorCode::unsupported,
              "conv2d: the " + name + " backend computes " + list + ", not " + std::string(to_string(algorithm)));
}

template <Conv2dElement T>
Conv2dPlan<T>::Conv2dPlan(const Conv2dShape& shape, std::span<const T> weights, std::span<const T> bias,
                          Conv2dAlgorithm algorithm, int threads)
    : Conv2dPlan(shape, weights, bias, algorithm, cpu_backend_with(threads)) {}

template <Conv2dElement T>
Conv2dPlan<T>::Conv2dPlan(const Conv2dShape& shape, std::span<const T> weights, std::span<const T> bias,
                          Conv2dAlgorithm algorithm, const Backend& backend)
    : impl_(std::make_unique<Impl>(backend)) {
  shape.validate();
  if (weights.size() != shape.weight_size())
    throw Error(ErrorCode::invalid_argument, "conv2d: " + std::to_string(weights.size()) + " weights given, the shape " +
                                                 shape_text(shape) + " needs K*C*Kh*Kw = " +
                                                 std::to_string(shape.weight_size()));
  if (!bias.empty() && bias.size() != shape.filters)
    throw Error(ErrorCode::invalid_argument, "conv2d: " + std::to_string(bias.size()) +
                                                 " bias values given, expected none or K = " +
                                                 std::to_string(shape.filters));
  check_supported(backend, algorithm, shape);
  impl_->shape = shape;
  const std::string_view name = backend.name();
  if (name != "cpu" && name != "reference") {  // a device backend: its own kernels
    impl_->kernel = backend.impl().make_conv2d(algorithm, nn::KernelArgs<T>{shape, weights, bias, 1});
    if (!impl_->kernel)
      throw Error(ErrorCode::unsupported, "conv2d: the " + std::string(name) + " backend has no conv2d kernel");
    impl_->algorithm = algorithm == Conv2dAlgorithm::auto_ ? conv2d_algorithms(name).at(1) : algorithm;
    return;
  }
  nn::keep_blas_single_threaded();
  const nn::KernelArgs<T> args{shape, weights, bias, nn::resolve_threads(backend.impl().threads())};
  if (name == "reference" && algorithm == Conv2dAlgorithm::auto_) algorithm = Conv2dAlgorithm::direct;
  if (algorithm != Conv2dAlgorithm::auto_) {
    impl_->algorithm = algorithm;
    impl_->kernel = name == "reference" ? nn::make_direct_reference(args) : make_kernel(algorithm, args);
    return;
  }
  const ChoiceKey key = choice_key<T>(shape, args.threads);
  {
    std::lock_guard lock(choice_mutex);
    if (auto it = choices.find(key); it != choices.end()) {
      impl_->algorithm = it->second;
      impl_->kernel = make_kernel(it->second, args);
      return;
    }
  }
  auto [chosen, kernel] = measure_fastest(args);
  std::lock_guard lock(choice_mutex);
  choices.emplace(key, chosen);
  impl_->algorithm = chosen;
  impl_->kernel = std::move(kernel);
}

template <Conv2dElement T>
Conv2dPlan<T>::~Conv2dPlan() = default;
template <Conv2dElement T>
Conv2dPlan<T>::Conv2dPlan(Conv2dPlan&&) noexcept = default;
template <Conv2dElement T>
Conv2dPlan<T>& Conv2dPlan<T>::operator=(Conv2dPlan&&) noexcept = default;

namespace {

void check_input_size(const Conv2dShape& s, std::size_t values) {
  if (values != s.input_size())
    throw Error(ErrorCode::invalid_argument, "conv2d: input has " + std::to_string(values) +
                                                 " values, the shape needs N*C*H*W = " +
                                                 std::to_string(s.input_size()));
}

}  // namespace

template <Conv2dElement T>
void Conv2dPlan<T>::execute(std::span<const T> input, std::span<T> output) const {
  const Conv2dShape& s = impl_->shape;
  check_input_size(s, input.size());
  if (output.size() != s.output_size())
    throw Error(ErrorCode::invalid_argument, "conv2d: output has room for " + std::to_string(output.size()) +
                                                 " values, the shape needs N*K*Oh*Ow = " +
                                                 std::to_string(s.output_size()));
  std::lock_guard lock(impl_->run_mutex);
  impl_->kernel->run(input.data(), output.data());
}

template <Conv2dElement T>
void Conv2dPlan<T>::execute_device(const T* device_input, T* device_output, void* stream) const {
  if (impl_->backend.name() != "cuda")
    throw Error(ErrorCode::unsupported, "conv2d: execute_device needs a plan on the cuda backend, not on " +
                                            std::string(impl_->backend.name()));
  if (device_input == nullptr || device_output == nullptr)
    throw Error(ErrorCode::invalid_argument, "conv2d: execute_device was given a null device pointer");
  std::lock_guard lock(impl_->run_mutex);
  impl_->kernel->run_device(device_input, device_output, stream);
}

template <Conv2dElement T>
Conv2dAlgorithm Conv2dPlan<T>::algorithm() const noexcept {
  return impl_->algorithm;
}

template <Conv2dElement T>
const Conv2dShape& Conv2dPlan<T>::shape() const noexcept {
  return impl_->shape;
}

template <Conv2dElement T>
const Backend& Conv2dPlan<T>::backend() const noexcept {
  return impl_->backend;
}

template class Conv2dPlan<float>;
template class Conv2dPlan<double>;

namespace {

/// The one-off convolution's output: allocated only once the plan has checked the shape and
/// the weights, and the input its size, and once the output is known to fit in memory.
template <Conv2dElement T>
std::vector<T> run_once(const Conv2dPlan<T>& plan, std::span<const T> input) {
  const Conv2dShape& s = plan.shape();
  check_input_size(s, input.size());
  detail::require_elements(s.output_size(), sizeof(T), "conv2d: the output");
  std::vector<T> output(s.output_size());
  plan.execute(input, output);
  return output;
}

}  // namespace

template <Conv2dElement T>
std::vector<T> conv2d(std::span<const T> input, std::span<const T> weights, std::span<const T> bias,
                      const Conv2dShape& shape, Conv2dAlgorithm algorithm, int threads) {
  return run_once(Conv2dPlan<T>(shape, weights, bias, algorithm, threads), input);
}

template <Conv2dElement T>
std::vector<T> conv2d(std::span<const T> input, std::span<const T> weights, std::span<const T> bias,
                      const Conv2dShape& shape, Conv2dAlgorithm algorithm, const Backend& backend) {
  return run_once(Conv2dPlan<T>(shape, weights, bias, algorithm, backend), input);
}

template std::vector<float> conv2d(std::span<const float>, std::span<const float>, std::span<const float>,
                                   const Conv2dShape&, Conv2dAlgorithm, int);
template std::vector<double> conv2d(std::span<const double>, std::span<const double>, std::span<const double>,
                                    const Conv2dShape&, Conv2dAlgorithm, int);
template std::vector<float> conv2d(std::span<const float>, std::span<const float>, std::span<const float>,
                                   const Conv2dShape&, Conv2dAlgorithm, const Backend&);
template std::vector<double> conv2d(std::span<const double>, std::span<const double>, std::span<const double>,
                                    const Conv2dShape&, Conv2dAlgorithm, const Backend&);

}  // namespace fastconv
