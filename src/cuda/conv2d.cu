// The cuda backend's conv2d: seed 002's polyhankel (Xu et al., CGO 2025) with cuFFT.
//
// Per call, with L the cyclic length and B = L/2 + 1 bins (the layout of src/nn/polyhankel.cpp):
//   1. place:   the N·C image polynomials, written straight from the NCHW input into the real
//               FFT input, zeros included (one kernel; no padded copy of the image);
//   2. cuFFT:   N·C batched real-to-complex transforms;
//   3. sum:     Y[n,k,f] = Σ_c X[n,c,f]·U[k,c,f], each thread one bin for 2 images × 8 filters
//               (the channel sum fused into the frequency-domain product; U was scaled by 1/L);
//   4. cuFFT:   N·K batched complex-to-real transforms;
//   5. extract: each output read from its degree, plus the bias, into the NCHW output.
// The kernel spectra U are made once, on the device, at construction. The per-thread bodies
// are in conv2d_helpers.hpp, which the CPU tests run.
#include <cufft.h>

#include <algorithm>
#include <bit>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "cuda/conv2d.hpp"
#include "cuda/conv2d_helpers.hpp"
#include "cuda/runtime.cuh"
#include "nn/lengths.hpp"

namespace fastconv::cuda {

namespace {

const char* cufft_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unknown cufftResult";
  }
}

void check_cufft(cufftResult r, const char* call) {
  if (r == CUFFT_SUCCESS) return;
  throw Error(r == CUFFT_ALLOC_FAILED ? ErrorCode::out_of_memory : ErrorCode::device,
              std::string("cuFFT: ") + call + " failed with " + cufft_name(r));
}
#define FC_CUFFT(call) check_cufft((call), #call)

/// cuFFT's names for the real transforms of T (float or double).
template <class T>
struct FftTypes {
  static constexpr bool kSingle = std::is_same_v<T, float>;
  using Real = std::conditional_t<kSingle, cufftReal, cufftDoubleReal>;
  using Complex = std::conditional_t<kSingle, cufftComplex, cufftDoubleComplex>;
  static constexpr cufftType kForward = kSingle ? CUFFT_R2C : CUFFT_D2Z, kInverse = kSingle ? CUFFT_C2R : CUFFT_Z2D;
  static cufftResult forward(cufftHandle p, Real* in, Complex* out) {
    if constexpr (kSingle) return cufftExecR2C(p, in, out);
    else return cufftExecD2Z(p, in, out);
  }
  static cufftResult inverse(cufftHandle p, Complex* in, Real* out) {
    if constexpr (kSingle) return cufftExecC2R(p, in, out);
    else return cufftExecZ2D(p, in, out);
  }
};

/// A batch of `batch` real transforms of length L, forward (real → B complex) or inverse.
template <class T>
class FftBatch {
 public:
  FftBatch(std::uint64_t length, std::uint64_t batch, bool forward) {
    FC_CUFFT(cufftCreate(&plan_));
    long long n[1] = {static_cast<long long>(length)};
    const long long bins = static_cast<long long>(length / 2 + 1), real = static_cast<long long>(length);
    std::size_t work = 0;
    const cufftResult r =
        forward ? cufftMakePlanMany64(plan_, 1, n, nullptr, 1, real, nullptr, 1, bins, FftTypes<T>::kForward,
                                      static_cast<long long>(batch), &work)
                : cufftMakePlanMany64(plan_, 1, n, nullptr, 1, bins, nullptr, 1, real, FftTypes<T>::kInverse,
                                      static_cast<long long>(batch), &work);
    if (r != CUFFT_SUCCESS) {
      cufftDestroy(plan_);
      check_cufft(r, "cufftMakePlanMany64");
    }
  }
  ~FftBatch() { cufftDestroy(plan_); }
  FftBatch(const FftBatch&) = delete;
  FftBatch& operator=(const FftBatch&) = delete;

  void forward(T* in, T* out, cudaStream_t s) const {
    FC_CUFFT(cufftSetStream(plan_, s));
    FC_CUFFT(FftTypes<T>::forward(plan_, reinterpret_cast<typename FftTypes<T>::Real*>(in),
                                  reinterpret_cast<typename FftTypes<T>::Complex*>(out)));
  }
  void inverse(T* in, T* out, cudaStream_t s) const {
    FC_CUFFT(cufftSetStream(plan_, s));
    FC_CUFFT(FftTypes<T>::inverse(plan_, reinterpret_cast<typename FftTypes<T>::Complex*>(in),
                                  reinterpret_cast<typename FftTypes<T>::Real*>(out)));
  }

 private:
  cufftHandle plan_ = 0;
};

constexpr unsigned kThreads = 256;

/// Blocks for a grid-stride loop over `count` items.
unsigned blocks_for(std::uint64_t count, const DeviceState& dev) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  const std::uint64_t cap = static_cast<std::uint64_t>(dev.props.multiProcessorCount) * 32;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(wanted, 1, cap));
}

template <class T>
__global__ void place_inputs(PolyGeometry g, const T* input, T* real, std::uint64_t planes) {
  const std::uint64_t total = planes * g.length, plane_size = g.height * g.width;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t p = i / g.length, q = i - p * g.length;
    real[i] = poly_input_at(g, input + p * plane_size, q);
  }
}

/// Pairs `first` … of the K·C kernel planes into rows of `real`; rows past `pairs` are zero.
template <class T>
__global__ void place_kernels(PolyGeometry g, const T* weights, T scale, T* real, std::uint64_t first,
                              std::uint64_t rows, std::uint64_t pairs) {
  const std::uint64_t total = rows * g.length, taps = g.kernel_height * g.kernel_width;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t p = first + i / g.length, q = i % g.length;
    real[i] = p < pairs ? poly_kernel_at(g, weights + p * taps, scale, q) : T(0);
  }
}

template <class T>
__global__ void channel_sums(const T* x, const T* u, T* y, std::uint64_t images, std::uint64_t channels,
                             std::uint64_t filters, std::uint64_t bins) {
  const std::uint64_t f = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (f >= bins) return;
  channel_sum_bin<T>(x, u, y, f, std::uint64_t{blockIdx.y} * kSumImages, std::uint64_t{blockIdx.z} * kSumFilters,
                     images, channels, filters, bins);
}

template <class T>
__global__ void extract_outputs(PolyGeometry g, const T* real, const T* bias, std::uint64_t filters, T* output,
                                std::uint64_t planes) {
  const std::uint64_t plane_size = g.out_height * g.out_width, total = planes * plane_size;
  for (std::uint64_t o = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; o < total;
       o += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t p = o / plane_size, rest = o - p * plane_size;
    const std::uint64_t i = rest / g.out_width, j = rest - i * g.out_width;
    const T b = bias != nullptr ? bias[p % filters] : T(0);
    output[o] = real[p * g.length + poly_output_degree(g, i, j)] + b;
  }
}

PolyGeometry geometry_of(const Conv2dShape& s, std::uint64_t length) {
  PolyGeometry g;
  g.height = s.height;
  g.width = s.width;
  g.kernel_height = s.kernel_height;
  g.kernel_width = s.kernel_width;
  g.out_height = s.out_height();
  g.out_width = s.out_width();
  g.top = s.padding.top;
  g.left = s.padding.left;
  g.stride = nn::polyhankel_row_stride(s);
  g.length = length;
  return g;
}

/// Kernel planes transformed together when the spectra are made: ≤ 64 MiB of real rows.
std::uint64_t kernel_chunk(std::uint64_t pairs, std::uint64_t length, std::size_t word) {
  return std::clamp<std::uint64_t>((std::uint64_t{64} << 20) / (length * word), 1, pairs);
}

/// The device buffers of one length: real rows (inputs, then outputs), X and Y spectra.
template <class T>
struct Workspace {
  DeviceBuffer real, x, y;
  void reserve(const Conv2dShape& s, std::uint64_t length) {
    const std::uint64_t bins = length / 2 + 1, N = s.batch;
    real.at_least(std::max(N * s.channels, N * s.filters) * length * sizeof(T));
    x.at_least(N * s.channels * bins * 2 * sizeof(T));
    y.at_least(N * s.filters * bins * 2 * sizeof(T));
  }
  T* real_data() const { return static_cast<T*>(real.get()); }
  T* x_data() const { return static_cast<T*>(x.get()); }
  T* y_data() const { return static_cast<T*>(y.get()); }
};

/// The channel sum's grid has one block row per kSumImages images and one layer per
/// kSumFilters filters, each at most kMaxGridY: checked when the plan is made (make_polyhankel),
/// before anything launches it.
void check_sum_grid(const Conv2dShape& s) {
  if ((s.batch + kSumImages - 1) / kSumImages > kMaxGridY || (s.filters + kSumFilters - 1) / kSumFilters > kMaxGridY)
    throw Error(ErrorCode::unsupported, "conv2d on cuda: N = " + std::to_string(s.batch) + " images and K = " +
                                            std::to_string(s.filters) + " filters exceed the channel sum's grid (" +
                                            std::to_string(kMaxGridY * kSumImages) + " images, " +
                                            std::to_string(kMaxGridY * kSumFilters) + " filters)");
}

template <class T>
void launch_sums(const Conv2dShape& s, const T* x, const T* u, T* y, std::uint64_t bins, cudaStream_t stream,
                 LaunchCount& count) {
  const dim3 grid(static_cast<unsigned>((bins + 127) / 128),
                  static_cast<unsigned>((s.batch + kSumImages - 1) / kSumImages),
                  static_cast<unsigned>((s.filters + kSumFilters - 1) / kSumFilters));
  channel_sums<T><<<grid, 128, 0, stream>>>(x, u, y, s.batch, s.channels, s.filters, bins);
  count.after_launch();
}

/// The lengths the choice times: the first few even 7-smooth numbers from L_min up to 1.25·L_min,
/// and the next power of two when it is within 2·L_min.
std::vector<std::uint64_t> candidate_lengths(std::uint64_t min_length) {
  std::vector<std::uint64_t> lengths;
  for (std::uint64_t n = nn::next_smooth(min_length, true); lengths.size() < 5 && n <= min_length + min_length / 4;
       n = nn::next_smooth(n + 1, true))
    lengths.push_back(n);
  const std::uint64_t power = std::bit_ceil(min_length);
  if (power <= 2 * min_length && std::find(lengths.begin(), lengths.end(), power) == lengths.end())
    lengths.push_back(power);
  if (lengths.empty()) lengths.push_back(nn::next_smooth(min_length, true));
  return lengths;
}

using LengthKey = std::tuple<int, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>;
std::mutex length_mutex;
std::map<LengthKey, std::uint64_t> chosen_lengths;

/// The fastest of `lengths` for shape s on the device: forward FFTs, channel sum and inverse
/// FFTs, timed in scratch sized for the longest.
template <class T>
std::uint64_t time_lengths(const DeviceState& dev, const Conv2dShape& s, const std::vector<std::uint64_t>& lengths) {
  const std::uint64_t longest = *std::max_element(lengths.begin(), lengths.end());
  Workspace<T> work;
  work.reserve(s, longest);
  DeviceBuffer spectra;  // U's place: K·C rows of the longest length
  const std::size_t spectra_bytes = s.filters * s.channels * (longest / 2 + 1) * 2 * sizeof(T);
  spectra.at_least(spectra_bytes);
  FC_CUDA(cudaMemsetAsync(work.real.get(), 0, s.batch * std::max(s.channels, s.filters) * longest * sizeof(T),
                          dev.stream));
  FC_CUDA(cudaMemsetAsync(spectra.get(), 0, spectra_bytes, dev.stream));
  const Event start, stop;
  std::uint64_t best = lengths.front();
  float best_ms = 1e30f;
  LaunchCount ignored;
  for (const std::uint64_t L : lengths) {
    const FftBatch<T> forward(L, s.batch * s.channels, true), inverse(L, s.batch * s.filters, false);
    float ms = 1e30f;
    for (int round = 0; round < 3; ++round) {  // the first round warms up
      FC_CUDA(cudaEventRecord(start.get(), dev.stream));
      forward.forward(work.real_data(), work.x_data(), dev.stream);
      launch_sums<T>(s, work.x_data(), static_cast<const T*>(spectra.get()), work.y_data(), L / 2 + 1, dev.stream,
                     ignored);
      inverse.inverse(work.y_data(), work.real_data(), dev.stream);
      FC_CUDA(cudaEventRecord(stop.get(), dev.stream));
      FC_CUDA(cudaEventSynchronize(stop.get()));
      float t = 0;
      FC_CUDA(cudaEventElapsedTime(&t, start.get(), stop.get()));
      if (round > 0) ms = std::min(ms, t);
    }
    if (ms < best_ms) best_ms = ms, best = L;
  }
  return best;
}

/// The candidate length whose forward FFTs, channel sum and inverse FFTs take the least time
/// on the device, measured once per (device, L_min, N, C, K, type) in the process. Small
/// problems (under 2^20 real values) take the first smooth length: timing them costs more
/// than it could save.
template <class T>
std::uint64_t choose_length(const DeviceState& dev, const Conv2dShape& s) {
  const std::uint64_t min_length = nn::polyhankel_min_length(s);
  const std::vector<std::uint64_t> lengths = candidate_lengths(min_length);
  if (lengths.size() == 1 || s.batch * std::max(s.channels, s.filters) * min_length < (std::uint64_t{1} << 20))
    return lengths.front();
  const LengthKey key{dev.ordinal, min_length, s.batch, s.channels, s.filters, sizeof(T)};
  std::lock_guard lock(length_mutex);
  if (auto it = chosen_lengths.find(key); it != chosen_lengths.end()) return it->second;
  std::uint64_t best = lengths.front();
  try {
    best = time_lengths<T>(dev, s, lengths);
  } catch (const Error& e) {
    // The scratch for the longest candidate (up to 2·L_min) did not fit: take the shortest,
    // which the plan may still fit, and choose again next time.
    if (e.code() != ErrorCode::out_of_memory) throw;
    return best;
  }
  chosen_lengths.emplace(key, best);
  return best;
}

template <class T>
class CudaPolyHankel final : public nn::Conv2dKernel<T> {
 public:
  CudaPolyHankel(std::shared_ptr<const DeviceState> dev, Counters& counters, const nn::KernelArgs<T>& a,
                 std::uint64_t length)
      : dev_(std::move(dev)), counters_(counters), shape_(a.shape), g_(geometry_of(a.shape, length)),
        forward_(length, a.shape.batch * a.shape.channels, true), inverse_(length, a.shape.batch * a.shape.filters,
                                                                             false) {
    work_.reserve(shape_, length);
    if (!a.bias.empty()) {
      T* bias = static_cast<T*>(bias_.at_least(a.bias.size() * sizeof(T)));
      FC_CUDA(cudaMemcpyAsync(bias, a.bias.data(), a.bias.size() * sizeof(T), cudaMemcpyHostToDevice, dev_->stream));
    }
    kernel_spectra(a.weights);
  }

  void run(const T* input, T* output) const override {
    const DeviceScope device = select();
    const cudaStream_t s = dev_->stream;
    const std::size_t in_bytes = shape_.input_size() * sizeof(T), out_bytes = shape_.output_size() * sizeof(T);
    T* in = static_cast<T*>(input_.at_least(in_bytes));
    T* out = static_cast<T*>(output_.at_least(out_bytes));
    Timeline timeline(s, events_);
    FC_CUDA(cudaMemcpyAsync(in, input, in_bytes, cudaMemcpyHostToDevice, s));
    timeline.copies_in_done();
    LaunchCount count;
    compute(in, out, s, count);
    timeline.kernels_done();
    FC_CUDA(cudaMemcpyAsync(output, out, out_bytes, cudaMemcpyDeviceToHost, s));
    timeline.finish(counters_, count.n, 2);
  }

  void run_device(const T* input, T* output, void* stream) const override {
    const DeviceScope device = select();
    const auto s = static_cast<cudaStream_t>(stream);
    LaunchCount count;
    {
      const FinishOnThrow finish(s);  // what was queued uses work_: it ends before anything reuses it
      compute(input, output, s, count);
    }
    FC_CUDA(cudaStreamSynchronize(s));
    counters_.launches += count.n;
  }

 private:
  [[nodiscard]] DeviceScope select() const { return DeviceScope(dev_->ordinal); }

  /// U[k,c] = FFT of kernel plane (k, c) scaled by 1/L, in chunks of planes that share one
  /// batched FFT; U has room for the last chunk's rows past K·C.
  void kernel_spectra(std::span<const T> weights) {
    const DeviceScope device = select();
    const cudaStream_t s = dev_->stream;
    const std::uint64_t pairs = shape_.filters * shape_.channels, L = g_.length, bins = g_.bins();
    const std::uint64_t chunk = kernel_chunk(pairs, L, sizeof(T)), chunks = (pairs + chunk - 1) / chunk;
    T* u = static_cast<T*>(spectra_.at_least(chunks * chunk * bins * 2 * sizeof(T)));
    DeviceBuffer w, real;
    T* w_dev = static_cast<T*>(w.at_least(weights.size() * sizeof(T)));
    T* real_dev = static_cast<T*>(real.at_least(chunk * L * sizeof(T)));
    FC_CUDA(cudaMemcpyAsync(w_dev, weights.data(), weights.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    const FftBatch<T> fft(L, chunk, true);
    LaunchCount count;
    for (std::uint64_t first = 0; first < pairs; first += chunk) {
      place_kernels<T><<<blocks_for(chunk * L, *dev_), kThreads, 0, s>>>(g_, w_dev, T(1) / static_cast<T>(L), real_dev,
                                                                        first, chunk, pairs);
      count.after_launch();
      fft.forward(real_dev, u + first * bins * 2, s);
    }
    FC_CUDA(cudaStreamSynchronize(s));  // before w and real are freed
  }

  void compute(const T* input, T* output, cudaStream_t s, LaunchCount& count) const {
    const std::uint64_t N = shape_.batch, bins = g_.bins();
    T* real = work_.real_data();
    place_inputs<T><<<blocks_for(N * shape_.channels * g_.length, *dev_), kThreads, 0, s>>>(g_, input, real,
                                                                                          N * shape_.channels);
    count.after_launch();
    forward_.forward(real, work_.x_data(), s);
    launch_sums<T>(shape_, work_.x_data(), static_cast<const T*>(spectra_.get()), work_.y_data(), bins, s, count);
    inverse_.inverse(work_.y_data(), real, s);
    const std::uint64_t planes = N * shape_.filters;
    extract_outputs<T><<<blocks_for(planes * g_.out_height * g_.out_width, *dev_), kThreads, 0, s>>>(
        g_, real, static_cast<const T*>(bias_.get()), shape_.filters, output, planes);
    count.after_launch();
    count.n += 2;  // the two cuFFT executions
  }

  std::shared_ptr<const DeviceState> dev_;
  Counters& counters_;
  Conv2dShape shape_;
  PolyGeometry g_;
  FftBatch<T> forward_, inverse_;
  DeviceBuffer spectra_, bias_;
  mutable Workspace<T> work_;
  mutable DeviceBuffer input_, output_;
  mutable TimelineEvents events_;  ///< runs are one at a time (the plan's lock)
};

}  // namespace

template <class T>
nn::KernelPtr<T> make_polyhankel(std::shared_ptr<const DeviceState> dev, Counters& counters,
                                 const nn::KernelArgs<T>& args, std::size_t fft_length) {
  const Conv2dShape& s = args.shape;
  check_sum_grid(s);
  const DeviceScope device(dev->ordinal);
  const std::uint64_t min_length = nn::polyhankel_min_length(s);
  if (fft_length != 0 && fft_length < min_length)
    throw Error(ErrorCode::invalid_argument, "conv2d polyhankel: FFT length " + std::to_string(fft_length) +
                                                 " is below the exact minimum " + std::to_string(min_length));
  // cuFFT's plans start at length 2; any length from L_min on is exact (a 1×1 image and kernel
  // without padding has L_min = 1).
  const std::uint64_t length = std::max<std::uint64_t>(fft_length != 0 ? fft_length : choose_length<T>(*dev, s), 2);
  return std::make_unique<CudaPolyHankel<T>>(std::move(dev), counters, args, length);
}

template nn::KernelPtr<float> make_polyhankel(std::shared_ptr<const DeviceState>, Counters&,
                                              const nn::KernelArgs<float>&, std::size_t);
template nn::KernelPtr<double> make_polyhankel(std::shared_ptr<const DeviceState>, Counters&,
                                               const nn::KernelArgs<double>&, std::size_t);

}  // namespace fastconv::cuda
