// The cuda backend: every variant's WHT and dyadic convolution on an NVIDIA GPU.
//
// Each call copies its operands to device buffers the kernel object owns (kept between calls),
// runs the variant's kernels on the device's stream, and copies the result back; spectra stay
// on the device. Arrays already on the device (execute_device, run_device: CUDA tensors) are
// computed where they are, on the caller's stream. CUDA events around the copies and the
// kernels give Backend::timings().
#include "cuda/cuda_backend.hpp"

#include <atomic>
#include <bit>
#include <cmath>
#include <map>
#include <vector>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/memory.hpp"
#include "cpu/backends.hpp"
#include "cuda/conv2d.hpp"
#include "cuda/kernels.cuh"
#include "cuda/runtime.cuh"
#include "fastconv/error.hpp"
#include "gpu/pass_plan.hpp"

namespace fastconv::cuda {

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  throw Error(ErrorCode::device, std::string("CUDA: ") + call + " failed with " + cudaGetErrorName(status) + " (" +
                                     cudaGetErrorString(status) + ")");
}

namespace {

using detail::Word;
using detail::kMinDeviceSpectrumWords;

/// In the order of Backend::variants_of("cuda") (src/core/backend.cpp).
enum class Variant { gajic2011, bikov_a1, bikov_a2, bikov_a3, bikov_a4, bikov_a5, bikov_a6, nvidia_radix4, fast };

/// The variant names in the order of Variant (the core's list, which also serves builds
/// without CUDA).
const std::vector<std::string>& names() {
  static const std::vector<std::string> list = Backend::variants_of("cuda");
  return list;
}

Variant variant_of(std::string_view name) {
  for (std::size_t i = 0; i < names().size(); ++i)
    if (names()[i] == name) return static_cast<Variant>(i);
  return Variant::fast;
}

/// `fast`: the registers of vectors one thread holds per round: 32 vectors of 16 bytes, so that
/// a row of 2^15 floats (13 row bits after the 4-float vectors) takes three rounds: two
/// shared-memory exchanges; 16 vectors of 8 floats for 16-bit storage.
constexpr std::size_t kRoundBytes = 512;

/// `fast`: the smallest tile the planner is offered (plan_for).
constexpr std::size_t kMinTileBytes = std::size_t{16} << 10;

/// Whether `p` may be read and written in the kernels' 16-byte vectors.
bool is_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// The word a kernel computes in for words stored as S: S itself, or float for 16-bit floats.
template <class S>
struct ComputeWord {
  using type = S;
};
template <>
struct ComputeWord<__half> {
  using type = float;
};
template <>
struct ComputeWord<__nv_bfloat16> {
  using type = float;
};

/// The transforms of one size, word and variant on one device, on arrays of words stored as S
/// and computed as W. 16-bit floats (W = float) have the `fast` variant's passes only, from
/// one vector on (CudaBackend::make_wht16).
template <class S>
class Engine {
 public:
  using W = typename ComputeWord<S>::type;
  static constexpr bool kStoredAsComputed = std::is_same_v<S, W>;
  /// Words per 16-byte global access.
  static constexpr int V = 16 / sizeof(S);
  static constexpr int kLogV = std::countr_zero(static_cast<unsigned>(V));
  static constexpr int kRoundBits = std::countr_zero(kRoundBytes / sizeof(Vec<W, V>));

  Engine(const DeviceState& dev, Variant variant, int log2n)
      : dev_(dev), stream_(dev.stream), variant_(variant), log2n_(log2n) {
    const char* name = names()[static_cast<int>(variant)].c_str();
    if ((variant == Variant::bikov_a5 || variant == Variant::bikov_a6) && log2n > 20)
      throw Error(ErrorCode::invalid_argument, std::string(name) + " transforms at most 2^20 points (seed 004's limit: its "
                                                                   "second kernel has one thread per 1024-point block); got 2^" +
                                                   std::to_string(log2n) + ": use another variant");
    if (variant == Variant::fast) {
      max_pass_threads_ = fast_pass_threads();
      plan_ = plan_for(log2n);
    }
  }

  std::size_t size() const { return std::size_t{1} << log2n_; }
  cudaStream_t stream() const { return stream_; }
  /// Queues the engine's work on `s` (a caller's stream, for device arrays) instead of the
  /// device's own until the returned guard ends; callers hold the kernel's mutex.
  auto use_stream(cudaStream_t s) {
    struct Guard {
      Engine& e;
      cudaStream_t saved;
      ~Guard() { e.stream_ = saved; }
    };
    const cudaStream_t saved = stream_;
    stream_ = s;
    return Guard{*this, saved};  // a prvalue: no copy whose end would restore the stream early
  }
  std::size_t max_pitch() const { return dev_.props.memPitch; }
  /// Seed 004's Algorithms 1-4 ping-pong through a second array of one row.
  bool needs_scratch() const { return variant_ >= Variant::bikov_a1 && variant_ <= Variant::bikov_a4; }
  /// 16-bit words in more than one pass go through a float copy of the rows (twice their size).
  bool widens() const { return !kStoredAsComputed && plan_.passes.size() > 1; }
  /// Makes this engine's device the calling thread's current one until the returned scope ends.
  [[nodiscard]] DeviceScope select() const { return DeviceScope(dev_.ordinal); }

  /// Forward natural-order transforms of `rows` rows back to back, times `scale` (floats).
  void transform(S* x, S* scratch, std::size_t rows, double scale, LaunchCount& count) {
    const bool scaled_out = std::is_floating_point_v<W> && scale != 1.0;
    if (variant_ == Variant::fast && log2n_ >= kLogV) {
      fast_passes(x, rows, scaled_out ? scale : 1.0, count);
      return;
    }
    if constexpr (kStoredAsComputed) {
      switch (variant_) {
        case Variant::gajic2011: gajic_wht(x, log2n_, rows, stream(), count); break;
        case Variant::nvidia_radix4:
        case Variant::fast:  // fewer words than one vector: the radix-4 kernel's shared-memory path
          radix4_wht(x, log2n_, rows, stream(), count);
          break;
        default:
          for (std::size_t r = 0; r < rows; ++r)
            bikov_wht(static_cast<int>(variant_), x + r * size(), scratch, log2n_, stream(), count);
      }
      if (scaled_out) {
        scale_words<W><<<blocks_for(rows * size(), 256), 256, 0, stream()>>>(x, rows * size(), scale);
        count.after_launch();
      }
    }
  }

  /// x ← scale · W(S ⊙ W·x) (mode 1), scale · W((W·x)²) (2) or scale · W((W·x) ⊘ S) (3). `s` is
  /// the spectrum of 2^s_log2n ≤ 2^n points, repeated in its buffer to at least 16 words.
  void dyadic(W* x, W* scratch, int mode, const W* s, int s_log2n, double scale, LaunchCount& count) {
    if (variant_ != Variant::fast || log2n_ < kLogV) {
      transform(x, scratch, 1, 1.0, count);
      const bool seed = variant_ == Variant::gajic2011;  // Algorithm 1: multiply, then a scale kernel
      elementwise_combine<W><<<blocks_for(size(), 256), 256, 0, stream()>>>(
          x, s ? s : x, size(), (std::uint64_t{1} << s_log2n) - 1, mode, seed ? 1.0 : scale, 1);
      count.after_launch();
      transform(x, scratch, 1, seed ? scale : 1.0, count);
      return;
    }
    // A spectrum of 2^m < 2^n points (a short kernel against a long signal) acts on each block
    // of 2^m points alone: transforms of 2^m instead of 2^n, scale · 2^(n−m) (rings: × 2^(n−m),
    // exactly what the full-size result owes).
    const bool local = s != nullptr && s_log2n < log2n_ && s_log2n >= kLogV;
    const gpu::PassPlan plan = local ? plan_for(s_log2n) : plan_;
    const std::size_t rows = local ? std::size_t{1} << (log2n_ - s_log2n) : 1;
    Combine<W, V> combine;
    combine.mode = mode;
    combine.spectrum = reinterpret_cast<const Vec<W, V>*>(s);
    combine.mask = (std::max<std::size_t>(std::size_t{1} << s_log2n, V) / V) - 1;
    combine.scale = local ? std::ldexp(scale, log2n_ - s_log2n) : scale;
    combine.factor = local && !std::is_floating_point_v<W> ? std::uint64_t{1} << (log2n_ - s_log2n) : 1;
    const std::size_t last = plan.passes.size() - 1;
    for (std::size_t i = 0; i < last; ++i) pass(x, x, plan, i, rows, {1, false}, 1.0, {}, count);
    pass(x, x, plan, last, rows, {1, true}, 1.0, combine, count);
    for (std::size_t i = last; i-- > 0;) pass(x, x, plan, i, rows, {1, false}, 1.0, {}, count);
  }

  /// out ← rows of `in` in sequency (1) or Paley (2) order.
  void reorder(const S* in, S* out, std::size_t rows, int order, LaunchCount& count);

 private:
  /// The device as the planner sees it: a tile may fill the opt-in shared memory (2^15 floats
  /// in one pass), of vectors of V words W (32 bytes of float for 16-bit storage, whose global
  /// vectors are 16 bytes).
  gpu::DeviceShape device_shape() const {
    gpu::DeviceShape shape;
    shape.local_memory_bytes = dev_.props.sharedMemPerBlockOptin;
    shape.max_work_group_size = max_pass_threads_;
    shape.vector_bytes = sizeof(Vec<W, V>);
    shape.cpu = false;
    shape.max_round_bits = kRoundBits;
    shape.tile_budget_bytes = dev_.props.sharedMemPerBlockOptin;
    return shape;
  }

  /// The fewest passes, in the smallest tiles from 16 KiB up that need no more. Measured on an
  /// H100 (docs/benchmarks.md): 2^16 floats took 0.032 ms in 16 KiB tiles against 0.050 ms in
  /// 128 KiB ones, 2^28 4.06 ms in 32 KiB tiles against 4.41 ms; tiles small enough to add a
  /// pass were slower wherever they did (2^24: 0.25–0.31 ms in three or four passes, 0.21 ms in two).
  gpu::PassPlan plan_for(int log2n) const {
    return gpu::plan_passes_in_small_tiles(log2n, sizeof(W), device_shape(), kMinTileBytes);
  }

  /// The most threads a block of the pass kernels this engine launches may have: the device's
  /// limit, or fewer where a kernel's registers per thread do not fit that many in a block
  /// (rounds of 2^kRoundBits vectors per thread use many). A power of two, as plans are.
  std::size_t fast_pass_threads() const {
    std::size_t limit = static_cast<std::size_t>(dev_.props.maxThreadsPerBlock);
    const auto fit = [&limit](auto* kernel) {
      cudaFuncAttributes a{};
      FC_CUDA(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernel)));
      limit = std::min(limit, static_cast<std::size_t>(a.maxThreadsPerBlock));
    };
    fit(&fast_pass<W, V, kRoundBits, W, W>);
    if constexpr (!kStoredAsComputed) {
      fit(&fast_pass<W, V, kRoundBits, S, W>);
      fit(&fast_pass<W, V, kRoundBits, W, S>);
      fit(&fast_pass<W, V, kRoundBits, S, S>);
    }
    return std::bit_floor(limit);
  }

  /// The plan's passes over `rows` rows in place, the last one scaling by `scale`. 16-bit words
  /// go through a float array from the first pass to the last, so that they are rounded once.
  void fast_passes(S* x, std::size_t rows, double scale, LaunchCount& count) {
    const std::size_t last = plan_.passes.size() - 1;
    if constexpr (kStoredAsComputed) {
      for (std::size_t i = 0; i <= last; ++i) pass(x, x, plan_, i, rows, {1, false}, i == last ? scale : 1.0, {}, count);
    } else if (last == 0) {
      pass(x, x, plan_, 0, rows, {1, false}, scale, {}, count);
    } else {
      W* wide = static_cast<W*>(wide_.at_least((rows << log2n_) * sizeof(W)));
      pass(x, wide, plan_, 0, rows, {1, false}, 1.0, {}, count);
      for (std::size_t i = 1; i < last; ++i) pass(wide, wide, plan_, i, rows, {1, false}, 1.0, {}, count);
      pass(wide, x, plan_, last, rows, {1, false}, scale, {}, count);
    }
  }

  /// Pass i of `plan` from `source` to `target` (the same array, or float ↔ 16-bit words).
  template <class In, class Out>
  void pass(const In* source, Out* target, const gpu::PassPlan& plan, std::size_t i, std::size_t rows,
            RoundPlan rounds, double store_scale, const Combine<W, V>& combine, LaunchCount& count) {
    const gpu::Pass& p = plan.passes[i];
    const PassShape shape = PassShape::of(plan, i);
    rounds.rounds = shape.rounds();
    const std::size_t words = rows << plan.log2n;
    const std::uint64_t tiles = words >> (p.t + p.gc + plan.logv);
    const int tpg = gpu::tiles_per_group(p, sizeof(Vec<W, V>), device_shape(), tiles);
    const unsigned threads = shape.threads_per_tile() << tpg;
    const std::size_t shared = (std::size_t{sizeof(Vec<W, V>)} << (p.t + p.gc)) << tpg;
    auto* kernel = &fast_pass<W, V, kRoundBits, In, Out>;
    // Always the device's whole opt-in amount, never the launch's own: plans of other sizes
    // may launch the same kernel from other threads at the same time.
    if (shared > 48 * 1024)
      FC_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(dev_.props.sharedMemPerBlockOptin)));
    const std::uint64_t blocks = (tiles + (std::uint64_t{1} << tpg) - 1) >> tpg;
    kernel<<<static_cast<unsigned>(blocks), threads, shared, stream()>>>(
        reinterpret_cast<const Vec<In, V>*>(source), reinterpret_cast<Vec<Out, V>*>(target), shape, tpg, tiles, rounds,
        store_scale, combine);
    count.after_launch();
  }

  const DeviceState& dev_;
  cudaStream_t stream_;
  Variant variant_;
  int log2n_;
  std::size_t max_pass_threads_ = 0;
  gpu::PassPlan plan_;
  DeviceBuffer wide_;  ///< 16-bit words: the rows in float between the first and the last pass
};

template <class W>
__global__ void gather_order(W* out, const W* in, unsigned bits, int order, std::uint64_t total) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= total) return;
  const std::uint64_t base = (i >> bits) << bits, k = i - base;
  out[i] = in[base + natural_index(k, bits, order)];
}

template <class S>
void Engine<S>::reorder(const S* in, S* out, std::size_t rows, int order, LaunchCount& count) {
  gather_order<S><<<blocks_for(rows * size(), 256), 256, 0, stream()>>>(out, in, static_cast<unsigned>(log2n_), order,
                                                                        rows * size());
  count.after_launch();
}

/// The WHT of words stored as S (computed as Engine<S>::S).
template <class S>
class CudaWht final : public detail::WhtKernel {
 public:
  CudaWht(const DeviceState& dev, Counters& counters, Variant variant, int log2n, Order order)
      : engine_(dev, variant, log2n), counters_(counters), order_(order) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    run(static_cast<S*>(data), rows, stride, scale, false);
  }

  void execute_device(void* data, std::size_t rows, std::size_t stride, double scale, void* stream) const override {
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    const auto guard = engine_.use_stream(static_cast<cudaStream_t>(stream));
    run(static_cast<S*>(data), rows, stride, scale, true);
  }

 private:
  /// Host arrays go through the kernel's device buffer in chunks of rows; device arrays are
  /// transformed where they are when their rows are back to back (else through the buffer).
  void run(S* data, std::size_t rows, std::size_t stride, double scale, bool on_device) const {
    const std::size_t n = engine_.size(), row_bytes = n * sizeof(S);
    // The kernels load 16-byte vectors: misaligned device rows go through the buffer too.
    const bool in_place = on_device && stride == n && is_aligned(data);
    const std::size_t chunk =
        in_place && order_ == Order::hadamard && !engine_.needs_scratch() && !engine_.widens()
            ? rows
            : std::max<std::size_t>(1, std::min(rows, (std::size_t{512} << 20) / row_bytes));
    S* buffer = in_place ? nullptr : static_cast<S*>(data_.at_least(chunk * row_bytes));
    S* y = order_ != Order::hadamard || engine_.needs_scratch()  // reordering, or the seed's ping-pong
               ? static_cast<S*>(scratch_.at_least(chunk * row_bytes))
               : nullptr;
    const cudaMemcpyKind in = on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    const cudaMemcpyKind out = on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    for (std::size_t first = 0; first < rows; first += chunk) {
      const std::size_t count_rows = std::min(chunk, rows - first);
      S* rows_at = data + first * stride;
      S* x = in_place ? rows_at : buffer;
      Timeline timeline(engine_.stream(), events_);
      LaunchCount launches;
      std::uint64_t copies = 0;
      if (x != rows_at) {
        copy_rows(x, row_bytes, rows_at, stride * sizeof(S), count_rows, in);
        ++copies;
      }
      timeline.copies_in_done();
      engine_.transform(x, y, count_rows, scale, launches);
      const S* result = x;
      if (order_ != Order::hadamard) {
        engine_.reorder(x, y, count_rows, order_ == Order::sequency ? 1 : 2, launches);
        result = y;
      }
      timeline.kernels_done();
      if (result != rows_at) {
        copy_rows(rows_at, stride * sizeof(S), result, row_bytes, count_rows, out);
        ++copies;
      }
      timeline.finish(counters_, launches.n, copies);
    }
  }

  /// `rows` rows of the transform's size between pitched arrays: one copy when the rows are
  /// back to back, one 2-D copy when the pitches are within the device's limit (2^31 − 1 bytes
  /// on current GPUs), else row by row.
  void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t rows,
                 cudaMemcpyKind kind) const {
    const std::size_t row_bytes = engine_.size() * sizeof(S);
    if (rows == 1 || (dst_pitch == row_bytes && src_pitch == row_bytes)) {
      FC_CUDA(cudaMemcpyAsync(dst, src, rows * row_bytes, kind, engine_.stream()));
    } else if (std::max(dst_pitch, src_pitch) <= engine_.max_pitch()) {
      FC_CUDA(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind, engine_.stream()));
    } else {
      for (std::size_t r = 0; r < rows; ++r)
        FC_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + r * dst_pitch, static_cast<const char*>(src) + r * src_pitch,
                                row_bytes, kind, engine_.stream()));
    }
  }

  mutable Engine<S> engine_;
  Counters& counters_;
  Order order_;
  mutable std::mutex mutex_;
  mutable DeviceBuffer data_, scratch_;
  mutable TimelineEvents events_;
};

class CudaSpectrum final : public detail::Spectrum {
 public:
  DeviceBuffer buffer;
  std::size_t words = 0;
};

template <class W>
class CudaDyadic final : public detail::DyadicKernel {
 public:
  CudaDyadic(const DeviceState& dev, Counters& counters, Variant variant, int log2n)
      : engine_(dev, variant, log2n), counters_(counters) {}

  std::unique_ptr<detail::Spectrum> spectrum(const void* h) const override {
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    return make_spectrum(h, cudaMemcpyHostToDevice);
  }

  std::unique_ptr<detail::Spectrum> spectrum_device(const void* h, void* stream, bool for_deconvolution) const override {
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    const auto guard = engine_.use_stream(static_cast<cudaStream_t>(stream));
    auto s = make_spectrum(h, cudaMemcpyDeviceToDevice);
    if (for_deconvolution) {  // the tolerance needs ‖h‖₁: h (the system, not the data) is read once
      std::vector<W> host(engine_.size());
      FC_CUDA(cudaMemcpyAsync(host.data(), h, host.size() * sizeof(W), cudaMemcpyDeviceToHost, engine_.stream()));
      FC_CUDA(cudaStreamSynchronize(engine_.stream()));
      s->zero_threshold = detail::zero_threshold(host.data(), s->log2n);
    }
    return s;
  }

  void apply(const detail::Spectrum& s, const void* x, void* out, double scale) const override {
    run_host(detail::DyadicOp::convolve, &s, x, out, scale);
  }
  void autocorrelate(const void* x, void* out, double scale) const override {
    run_host(detail::DyadicOp::autocorrelate, nullptr, x, out, scale);
  }
  void deconvolve(const detail::Spectrum& s, const void* y, void* out, double scale) const override {
    run_host(detail::DyadicOp::deconvolve, &s, y, out, scale);
  }

  void run_device(detail::DyadicOp op, const detail::Spectrum* s, const void* x, std::size_t x_words, void* out,
                  double scale, void* stream) const override {
    if (op == detail::DyadicOp::deconvolve) check_invertible(*s);
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    const auto guard = engine_.use_stream(static_cast<cudaStream_t>(stream));
    const std::size_t n = engine_.size();
    // The kernels load 16-byte vectors: a misaligned output is computed in the kernel's buffer.
    W* d = is_aligned(out) ? static_cast<W*>(out) : static_cast<W*>(data_.at_least(n * sizeof(W)));
    Timeline timeline(engine_.stream(), events_);
    std::uint64_t copies = 0;
    if (x != d) {
      FC_CUDA(cudaMemcpyAsync(d, x, x_words * sizeof(W), cudaMemcpyDeviceToDevice, engine_.stream()));
      ++copies;
    }
    if (x_words < n) FC_CUDA(cudaMemsetAsync(d + x_words, 0, (n - x_words) * sizeof(W), engine_.stream()));
    timeline.copies_in_done();
    LaunchCount launches;
    compute(op, s, d, scale, launches);
    timeline.kernels_done();
    if (d != out) {
      FC_CUDA(cudaMemcpyAsync(out, d, n * sizeof(W), cudaMemcpyDeviceToDevice, engine_.stream()));
      ++copies;
    }
    timeline.finish(counters_, launches.n, copies);
  }

 private:
  /// W·h (natural order) in a new spectrum buffer, h copied in by `kind`.
  std::unique_ptr<CudaSpectrum> make_spectrum(const void* h, cudaMemcpyKind kind) const {
    const std::size_t n = engine_.size();
    auto s = std::make_unique<CudaSpectrum>();
    s->log2n = std::countr_zero(n);
    s->words = std::max(n, kMinDeviceSpectrumWords);
    W* d = static_cast<W*>(s->buffer.at_least(s->words * sizeof(W)));
    Timeline timeline(engine_.stream(), events_);
    LaunchCount launches;
    FC_CUDA(cudaMemcpyAsync(d, h, n * sizeof(W), kind, engine_.stream()));
    timeline.copies_in_done();
    engine_.transform(d, scratch(n * sizeof(W)), 1, 1.0, launches);
    for (std::size_t k = n; k < s->words; k += n)  // repeat: S of h padded is S[k mod n]
      FC_CUDA(cudaMemcpyAsync(d + k, d, n * sizeof(W), cudaMemcpyDeviceToDevice, engine_.stream()));
    timeline.kernels_done();
    timeline.finish(counters_, launches.n, 1);
    return s;
  }

  /// Deconvolution: the singular-spectrum check, on a host copy of the spectrum.
  void check_invertible(const detail::Spectrum& s) const {
    if constexpr (!std::is_floating_point_v<W>) {
      throw Error(ErrorCode::unsupported, "deconvolution in integer rings is done exactly by the caller");
    } else {
      const auto& spectrum = static_cast<const CudaSpectrum&>(s);
      std::vector<W> host(std::size_t{1} << s.log2n);
      const DeviceScope device = engine_.select();
      FC_CUDA(cudaMemcpy(host.data(), spectrum.buffer.get(), host.size() * sizeof(W), cudaMemcpyDeviceToHost));
      if (const std::ptrdiff_t k = detail::first_zero(host.data(), s.log2n, s.zero_threshold); k >= 0)
        detail::throw_singular(static_cast<std::size_t>(k), std::abs(static_cast<double>(host[k])), s.zero_threshold);
    }
  }

  void run_host(detail::DyadicOp op, const detail::Spectrum* s, const void* x, void* out, double scale) const {
    if (op == detail::DyadicOp::deconvolve) check_invertible(*s);
    const std::lock_guard lock(mutex_);
    const DeviceScope device = engine_.select();
    const std::size_t bytes = engine_.size() * sizeof(W);
    W* d = static_cast<W*>(data_.at_least(bytes));
    Timeline timeline(engine_.stream(), events_);
    FC_CUDA(cudaMemcpyAsync(d, x, bytes, cudaMemcpyHostToDevice, engine_.stream()));
    timeline.copies_in_done();
    LaunchCount launches;
    compute(op, s, d, scale, launches);
    timeline.kernels_done();
    FC_CUDA(cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, engine_.stream()));
    timeline.finish(counters_, launches.n, 2);
  }

  /// The operation on the device words d, in place.
  void compute(detail::DyadicOp op, const detail::Spectrum* s, W* d, double scale, LaunchCount& launches) const {
    const auto* spectrum = static_cast<const CudaSpectrum*>(s);
    engine_.dyadic(d, scratch(engine_.size() * sizeof(W)), static_cast<int>(op),
                   spectrum ? static_cast<const W*>(spectrum->buffer.get()) : nullptr,
                   spectrum ? spectrum->log2n : std::countr_zero(engine_.size()), scale, launches);
  }

  /// The seed variants' ping-pong array, if this variant has one.
  W* scratch(std::size_t bytes) const {
    return engine_.needs_scratch() ? static_cast<W*>(scratch_.at_least(bytes)) : nullptr;
  }

  mutable Engine<W> engine_;
  Counters& counters_;
  mutable std::mutex mutex_;
  mutable DeviceBuffer data_, scratch_;
  mutable TimelineEvents events_;
};

class CudaBackend final : public detail::BackendImpl {
 public:
  CudaBackend(std::shared_ptr<const DeviceState> dev, Variant variant) : dev_(std::move(dev)), variant_(variant) {}

  std::string_view name() const noexcept override { return "cuda"; }
  std::string_view variant() const noexcept override { return names()[static_cast<int>(variant_)]; }
  std::vector<std::string> variants() const override { return names(); }
  std::string description() const override {
    const Device& d = dev_->info;
    return "cuda: " + d.name + " (device " + d.id + ", " + std::to_string(d.compute_units) + " SMs, " +
           std::to_string(d.global_memory_bytes >> 20) + " MiB)";
  }
  std::string device() const override { return dev_->info.id; }
  std::unique_ptr<detail::WhtKernel> make_wht(int log2n, Word word, Order order) const override {
    const DeviceScope device = select();
    return detail::make_for_word<CudaWht, detail::WhtKernel, U128>(word, *dev_, counters_, variant_, log2n, order);
  }
  /// The `fast` passes load and store 16-bit words natively from one vector (8 words) on; the
  /// other variants, and shorter rows, leave them to the front end's conversion to float.
  std::unique_ptr<detail::WhtKernel> make_wht16(int log2n, detail::Word16 word, Order order) const override {
    if (variant_ != Variant::fast || log2n < Engine<__half>::kLogV) return nullptr;
    const DeviceScope device = select();
    if (word == detail::Word16::f16) return std::make_unique<CudaWht<__half>>(*dev_, counters_, variant_, log2n, order);
    return std::make_unique<CudaWht<__nv_bfloat16>>(*dev_, counters_, variant_, log2n, order);
  }
  std::unique_ptr<detail::DyadicKernel> make_dyadic(int log2n, Word word) const override {
    const DeviceScope device = select();
    return detail::make_for_word<CudaDyadic, detail::DyadicKernel, U128>(word, *dev_, counters_, variant_, log2n);
  }
  nn::KernelPtr<float> make_conv2d(Conv2dAlgorithm algorithm, const nn::KernelArgs<float>& args) const override {
    return conv2d<float>(algorithm, args);
  }
  nn::KernelPtr<double> make_conv2d(Conv2dAlgorithm algorithm, const nn::KernelArgs<double>& args) const override {
    return conv2d<double>(algorithm, args);
  }
  DeviceTimings timings() const override { return counters_.snapshot(); }
  void reset_timings() const override { counters_.reset(); }

 private:
  [[nodiscard]] DeviceScope select() const { return DeviceScope(dev_->ordinal); }
  /// conv2d computes polyhankel only (auto_ = polyhankel); the variant does not matter.
  template <class T>
  nn::KernelPtr<T> conv2d(Conv2dAlgorithm algorithm, const nn::KernelArgs<T>& args) const {
    if (algorithm != Conv2dAlgorithm::auto_ && algorithm != Conv2dAlgorithm::polyhankel) return nullptr;
    return make_polyhankel<T>(dev_, counters_, args);
  }
  std::shared_ptr<const DeviceState> dev_;
  Variant variant_;
  mutable Counters counters_;
};

Device describe(int ordinal, const cudaDeviceProp& p) {
  Device d;
  d.backend = "cuda";
  d.id = std::to_string(ordinal);
  d.name = p.name;
  d.platform = "CUDA";
  d.type = "gpu";
  d.version = "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor);
  d.compute_units = p.multiProcessorCount;
  d.global_memory_bytes = p.totalGlobalMem;
  d.local_memory_bytes = p.sharedMemPerBlockOptin;
  d.max_work_group_size = static_cast<std::size_t>(p.maxThreadsPerBlock);
  d.fp64 = true;
  return d;
}

}  // namespace

std::vector<Device> list_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  std::vector<Device> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess) out.push_back(describe(i, p));
  }
  return out;
}

std::shared_ptr<const detail::BackendImpl> make_cuda_backend(std::string_view variant, std::string_view device) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const DeviceState>> opened;
  const std::lock_guard lock(mutex);
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw Error(ErrorCode::device,
                std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none") +
                    "; the cuda backend needs an NVIDIA GPU with its driver: use --backend cpu here, which "
                    "computes every operation");
  }
  std::string wanted(device);
  if (wanted.empty())
    if (const char* env = std::getenv("FASTCONV_CUDA_DEVICE")) wanted = env;
  int ordinal = 0;
  if (!wanted.empty()) {
    char* end = nullptr;
    const long v = std::strtol(wanted.c_str(), &end, 10);
    if (end == wanted.c_str() || *end != '\0' || v < 0 || v >= count)
      throw Error(ErrorCode::invalid_argument, "CUDA device '" + wanted + "' does not exist: the devices are 0 … " +
                                                   std::to_string(count - 1) + " (see 'fastconv info')");
    ordinal = static_cast<int>(v);
  }
  auto& slot = opened[ordinal];
  if (!slot) {
    auto state = std::make_shared<DeviceState>();
    state->ordinal = ordinal;
    FC_CUDA(cudaGetDeviceProperties(&state->props, ordinal));
    const DeviceScope device(ordinal);
    FC_CUDA(cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking));
    state->info = describe(ordinal, state->props);
    slot = std::move(state);
  }
  return std::make_shared<const CudaBackend>(slot, variant_of(variant));
}

}  // namespace fastconv::cuda
