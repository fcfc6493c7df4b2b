// The opencl backend: WHT and dyadic kernels for the `gajic2011` and `fast` variants.
//
// Every call copies its operands to device buffers the kernel object owns, runs the kernels,
// and copies the result back; spectra stay on the device. Every command carries a profiling
// event, and the times are added to the backend handle's counters (Backend::timings()).
#include "opencl/opencl_backend.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include "opencl/kernel_sources.hpp"
#include "gpu/pass_plan.hpp"
#include "opencl/runtime.hpp"

namespace fastconv::opencl {
namespace {

using detail::Word;
using Counters = detail::DeviceCounters;
using detail::kMinDeviceSpectrumWords;
using gpu::DeviceShape;
using gpu::Pass;
using gpu::PassPlan;
using gpu::plan_passes;
using gpu::tiles_per_group;

enum class Variant { gajic2011, fast };

/// The -D options that select a word type in words.cl.
std::string word_options(Word word) {
  switch (word) {
    case Word::f32: return "-D FC_WORD=float -D FC_REAL=float -D FC_FLOAT";
    case Word::f64: return "-D FC_WORD=double -D FC_REAL=double -D FC_FLOAT -D FC_FP64";
    case Word::u32: return "-D FC_WORD=uint -D FC_REAL=float";
    case Word::u64: return "-D FC_WORD=ulong -D FC_REAL=float";
    case Word::u128: return "-D FC_U128 -D FC_REAL=float";
  }
  return {};
}

/// words.cl + indexing.cl + the kernel file: one program source (kept for the program cache,
/// which is keyed by the source's address).
std::string_view program_source(std::string_view kernels) {
  static std::mutex mutex;
  static std::map<const void*, std::string> sources;
  const std::lock_guard lock(mutex);
  auto& s = sources[kernels.data()];
  if (s.empty()) s = std::string(sources::words) + std::string(sources::indexing) + std::string(kernels);
  return s;
}

/// Enqueued commands and their events; account() waits for them and adds their times up.
class Recorder {
 public:
  explicit Recorder(Counters& counters) : counters_(counters) {}
  cl::Event* transfer() { return &transfers_.emplace_back(); }
  cl::Event* launch() { return &launches_.emplace_back(); }

  void account() {
    counters_.transfer_ns += total_ns(transfers_);
    counters_.compute_ns += total_ns(launches_);
    counters_.transfers += transfers_.size();
    counters_.launches += launches_.size();
    transfers_.clear();
    launches_.clear();
  }

 private:
  static std::uint64_t total_ns(std::deque<cl::Event>& events) {
    std::uint64_t sum = 0;
    for (cl::Event& e : events) {
      e.wait();
      sum += e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    }
    return sum;
  }

  Counters& counters_;
  std::deque<cl::Event> transfers_, launches_;
};

/// Runs `body` (which enqueues work on ctx's queue), turning a cl::Error into a device Error
/// that says it happened while `doing`. If it throws, it first waits for what it enqueued:
/// copies may still read the caller's memory.
template <class Body>
decltype(auto) on_queue(const DeviceContext& ctx, std::string_view doing, Body&& body) {
  try {
    return guarded(doing, std::forward<Body>(body));
  } catch (...) {
    try {
      ctx.queue().finish();
    } catch (const cl::Error&) {  // the original error is the one to report
    }
    throw;
  }
}

/// The most work-items a group of `kernel` may have on ctx's device.
std::size_t group_limit(const DeviceContext& ctx, const cl::Kernel& kernel) {
  return std::min(ctx.info().max_work_group_size, kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(ctx.device()));
}

/// Launches `kernel` over `global` work-items in dimension 0, in groups of `local`, and `rows`
/// in dimension 1. Without `local`, the groups are the largest power of two that divides
/// `global` and that the device and the kernel allow: left to the implementation, PoCL fails
/// an assertion when its work-groups are limited to 1–4 items (POCL_MAX_WORK_GROUP_SIZE).
void launch(const DeviceContext& ctx, Recorder& rec, const cl::Kernel& kernel, std::size_t global, std::size_t rows = 1,
            std::size_t local = 0) {
  if (global == 0 || rows == 0) return;
  if (local == 0) local = std::bit_floor(std::min(global & (~global + 1), group_limit(ctx, kernel)));
  const cl::NDRange range = rows > 1 ? cl::NDRange(global, rows) : cl::NDRange(global);
  const cl::NDRange group = rows > 1 ? cl::NDRange(local, 1) : cl::NDRange(local);
  ctx.queue().enqueueNDRangeKernel(kernel, cl::NullRange, range, group, nullptr, rec.launch());
}

/// Makes the results in a CL_MEM_USE_HOST_PTR buffer visible in its host memory: a map and an
/// unmap, which on a CPU device copy nothing (Recorder::account() waits for them).
void synchronise(Recorder& rec, const DeviceContext& ctx, const cl::Buffer& wrapped, std::size_t bytes) {
  const cl::CommandQueue& q = ctx.queue();
  void* mapped = q.enqueueMapBuffer(wrapped, CL_TRUE, CL_MAP_READ, 0, bytes, nullptr, rec.transfer());
  q.enqueueUnmapMemObject(wrapped, mapped, nullptr, rec.transfer());
}

/// A buffer that reads `bytes` of host memory in place (a CPU device, can_wrap()); the kernels
/// only read it.
cl::Buffer read_only(const DeviceContext& ctx, const void* host, std::size_t bytes) {
  return cl::Buffer(ctx.context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, const_cast<void*>(host));
}

/// The transforms of one size and word type on one device: the variant's kernels and the
/// launches of a natural-order transform (forward, or the dyadic middle) on a device buffer.
class Engine {
 public:
  Engine(std::shared_ptr<const DeviceContext> ctx, Variant variant, int log2n, Word word)
      : ctx_(std::move(ctx)), variant_(variant), log2n_(log2n), word_(word) {
    if (word == Word::f64 && !ctx_->info().fp64)
      throw Error(ErrorCode::unsupported, "OpenCL device " + ctx_->info().name +
                                              " has no double precision (cl_khr_fp64): use float32, or another device");
    if (variant_ == Variant::fast) {
      shape_.local_memory_bytes = ctx_->info().local_memory_bytes;
      shape_.max_work_group_size = ctx_->info().max_work_group_size;
      shape_.vector_bytes = ctx_->preferred_vector_bytes();
      shape_.cpu = ctx_->is_cpu();
      plan_ = plan_passes(log2n, word_bytes(), shape_);
    }
  }

  const DeviceContext& ctx() const { return *ctx_; }
  const std::shared_ptr<const DeviceContext>& context() const { return ctx_; }
  std::size_t size() const { return std::size_t{1} << log2n_; }
  std::size_t word_bytes() const { return detail::size_of(word_); }
  bool is_float() const { return detail::is_float(word_); }
  const PassPlan& plan() const { return plan_; }

  /// Whether transform() and dyadic() can take their input from another buffer (`in`),
  /// folding the copy into their first pass. gajic2011 works in place, as Algorithm 1 does.
  bool reads_out_of_place() const { return variant_ == Variant::fast; }

  /// Forward natural-order transforms of `rows` rows (back to back in `x`), times `scale`;
  /// read from `in` (same layout) instead of `x` if given (reads_out_of_place() only).
  void transform(Recorder& rec, const cl::Buffer& x, std::size_t rows, double scale, const cl::Buffer* in = nullptr) {
    const bool scaled = is_float() && scale != 1.0;
    if (variant_ == Variant::gajic2011) {
      gajic_steps(rec, x, rows);
      if (scaled) gajic_scale(rec, x, rows * size(), scale);
      return;
    }
    for (std::size_t i = 0; i < plan_.passes.size(); ++i)
      fast_pass(rec, i, 0, scaled && i + 1 == plan_.passes.size(), x, i == 0 && in ? *in : x, x, 0, rows, scale);
  }

  /// x ← scale · W(S ⊙ W·x) (op 1), scale · W((W·x)²) (op 2) or scale · W((W·x) ⊘ S) (op 3);
  /// the spectrum buffer holds `s_words` words (a power of two ≥ 16, periodic). With `in`
  /// (reads_out_of_place() only), x ← the same of `in`.
  void dyadic(Recorder& rec, const cl::Buffer& x, int op, const cl::Buffer& s, std::size_t s_words, double scale,
              const cl::Buffer* in = nullptr) {
    if (variant_ == Variant::gajic2011) {  // Algorithm 1, steps 3-6
      gajic_steps(rec, x, 1);
      gajic_multiply(rec, x, op, s, s_words);
      gajic_steps(rec, x, 1);
      if (is_float()) gajic_scale(rec, x, size(), scale);
      return;
    }
    // The passes commute: the strided ones first, then the contiguous one with the multiply
    // folded into its stores, so that the spectrum is read in contiguous tiles; then the
    // inverse transform. The first of them reads `in`.
    const std::size_t count = plan_.passes.size();
    const cl::Buffer* source = in ? in : &x;
    for (std::size_t i = count; i-- > 1; source = &x) fast_pass(rec, i, 0, false, x, *source, x, 0, 1, 1.0);
    fast_pass(rec, 0, op, false, x, *source, s, (s_words >> plan_.logv) - 1, 1, scale);
    for (std::size_t i = 0; i < count; ++i) fast_pass(rec, i, 0, false, x, x, x, 0, 1, 1.0);
  }

  /// out ← the rows of `in` in sequency or Paley order: one work-group per tile of 2^q × 2^q
  /// words (reorder.cl), q ≤ 5 with the padded tile in at most half the local memory. A GPU
  /// group has up to 256 work-items; a CPU device's, 2^(q+1), each doing 2^(q−1) words of the
  /// tile (under PoCL, whole calls at 2^22 floats: 13.3–22.4 ms, against 16.2–21.2 ms with
  /// 256 work-items and 31.5–33.8 ms with 1024: docs/benchmarks.md). Each work-item keeps one of
  /// the tile's columns.
  void reorder(Recorder& rec, const cl::Buffer& in, const cl::Buffer& out, std::size_t rows, Order order) {
    cl::Kernel& k = kernel(sources::reorder, "tile_order", "-D FC_V=1");
    const std::size_t most = std::bit_floor(std::min(std::size_t{256}, group_limit(*ctx_, k)));
    int q = std::min({log2n_ / 2, 5, std::countr_zero(most)});
    const auto tile_bytes = [&] { return ((std::size_t{1} << q) + 1) * (std::size_t{1} << q) * word_bytes(); };
    while (q > 0 && tile_bytes() > ctx_->info().local_memory_bytes / 2) --q;
    const std::size_t group = std::min(std::size_t{1} << (ctx_->is_cpu() ? q + 1 : 2 * q), most);
    k.setArg(0, out);
    k.setArg(1, in);
    k.setArg(2, static_cast<cl_uint>(log2n_));
    k.setArg(3, static_cast<cl_uint>(q));
    k.setArg(4, static_cast<cl_uint>(order == Order::sequency ? 1 : 0));
    k.setArg(5, cl::Local(tile_bytes()));
    launch(*ctx_, rec, k, (std::size_t{1} << (log2n_ - 2 * q)) * group, rows, group);
  }

 private:
  /// Kernel `name` of program `file` built with `options` (a kernel name and its options
  /// identify it: the names differ between files).
  cl::Kernel& kernel(std::string_view file, const char* name, const std::string& options) {
    const auto key = std::make_pair(std::string(name), options);
    auto it = kernels_.find(key);
    if (it == kernels_.end()) {
      const cl::Program program = ctx_->program(program_source(file), word_options(word_) + " " + options);
      it = kernels_.emplace(key, guarded("creating kernel " + std::string(name), [&] { return cl::Kernel(program, name); })).first;
    }
    return it->second;
  }

  cl::Kernel& gajic_kernel(const char* name, int op) {
    return kernel(sources::gajic2011, name, "-D FC_V=1 -D FC_OP=" + std::to_string(op));
  }

  void gajic_steps(Recorder& rec, const cl::Buffer& x, std::size_t rows) {
    cl::Kernel& k = gajic_kernel("fwt_step", 1);
    k.setArg(0, x);
    k.setArg(1, static_cast<cl_ulong>(size()));
    for (int step = 0; step < log2n_; ++step) {
      k.setArg(2, static_cast<cl_ulong>(1) << step);
      launch(*ctx_, rec, k, size() / 2, rows);
    }
  }

  void gajic_multiply(Recorder& rec, const cl::Buffer& x, int op, const cl::Buffer& s, std::size_t s_words) {
    cl::Kernel& k = gajic_kernel("multiply", op);
    k.setArg(0, x);
    k.setArg(1, s);
    k.setArg(2, static_cast<cl_ulong>(s_words - 1));
    launch(*ctx_, rec, k, size());
  }

  void gajic_scale(Recorder& rec, const cl::Buffer& x, std::size_t words, double scale) {
    cl::Kernel& k = gajic_kernel("scale", 1);
    k.setArg(0, x);
    set_real(k, 1, scale);
    launch(*ctx_, rec, k, words);
  }

  void set_real(cl::Kernel& k, int index, double value) {
    if (word_ == Word::f64) k.setArg(index, value);
    else k.setArg(index, static_cast<float>(value));
  }

  void fast_pass(Recorder& rec, std::size_t i, int mode, bool store_scale, const cl::Buffer& x, const cl::Buffer& in,
                 const cl::Buffer& s, std::size_t s_mask, std::size_t rows, double scale) {
    Pass pass = plan_.passes[i];
    const std::size_t tiles = pass.tiles(rows * size(), plan_.logv);
    pass.tpg = tiles_per_group(pass, word_bytes() << plan_.logv, shape_, tiles);
    PassPlan one = plan_;
    one.passes[i] = pass;
    cl::Kernel& k = kernel(sources::fast, "wht_pass", one.options(i, mode, store_scale));
    k.setArg(0, x);
    k.setArg(1, in);
    k.setArg(2, s);
    k.setArg(3, static_cast<cl_ulong>(s_mask));
    set_real(k, 4, scale);
    k.setArg(5, static_cast<cl_ulong>(tiles));
    const std::size_t groups = (tiles + (std::size_t{1} << pass.tpg) - 1) >> pass.tpg;
    launch(*ctx_, rec, k, groups * pass.work_group_size(), 1, pass.work_group_size());
  }

  std::shared_ptr<const DeviceContext> ctx_;
  Variant variant_;
  int log2n_;
  Word word_;
  DeviceShape shape_;
  PassPlan plan_;
  std::map<std::pair<std::string, std::string>, cl::Kernel> kernels_;
};

/// A device buffer that grows on demand, from the context's pool.
class DeviceArray {
 public:
  const cl::Buffer& at_least(const std::shared_ptr<const DeviceContext>& ctx, std::size_t bytes) {
    if (bytes > buffer_.bytes()) {
      buffer_ = PooledBuffer();  // back to the pool first: it may be the one handed out
      buffer_ = PooledBuffer(ctx, bytes);
    }
    return buffer_.get();
  }

 private:
  PooledBuffer buffer_;
};

class ClWht final : public detail::WhtKernel {
 public:
  ClWht(std::shared_ptr<const DeviceContext> ctx, Counters& counters, Variant variant, int log2n, Word word, Order order)
      : engine_(std::move(ctx), variant, log2n, word), counters_(counters), order_(order) {}

  void execute(void* data, std::size_t rows, std::size_t stride, double scale) const override {
    const std::lock_guard lock(mutex_);
    const DeviceContext& ctx = engine_.ctx();
    on_queue(ctx, "computing a WHT", [&] {
      const std::size_t row_bytes = engine_.size() * engine_.word_bytes();
      // As many rows per round trip as one buffer holds (at most 256 MiB of them).
      const std::size_t budget = std::min<std::size_t>(ctx.max_allocation(), std::size_t{256} << 20);
      // (and at most 65535: the gajic2011 and reorder kernels put the rows in dimension 1)
      const std::size_t chunk = std::max<std::size_t>(1, std::min({rows, budget / row_bytes, std::size_t{65535}}));
      const auto x = [&]() -> const cl::Buffer& { return data_.at_least(engine_.context(), chunk * row_bytes); };
      const auto y = [&]() -> const cl::Buffer& {
        return order_ == Order::hadamard ? x() : scratch_.at_least(engine_.context(), chunk * row_bytes);
      };
      auto* bytes = static_cast<unsigned char*>(data);
      Recorder rec(counters_);
      for (std::size_t first = 0; first < rows; first += chunk) {
        const std::size_t n = std::min(chunk, rows - first);
        unsigned char* host = bytes + first * stride * engine_.word_bytes();
        const bool packed = n == 1 || stride == engine_.size();
        if (packed && ctx.can_wrap(host, n * row_bytes)) {  // CPU device: in place, no copies
          const cl::Buffer wrapped(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * row_bytes, host);
          engine_.transform(rec, wrapped, n, scale);
          if (order_ != Order::hadamard) {
            engine_.reorder(rec, wrapped, y(), n, order_);
            ctx.queue().enqueueCopyBuffer(y(), wrapped, 0, 0, n * row_bytes, nullptr, rec.transfer());
          }
          synchronise(rec, ctx, wrapped, n * row_bytes);
        } else {
          copy(rec, x(), host, n, stride, true);
          engine_.transform(rec, x(), n, scale);
          if (order_ != Order::hadamard) engine_.reorder(rec, x(), y(), n, order_);
          copy(rec, y(), host, n, stride, false);
        }
        rec.account();
      }
    });
  }

 private:
  /// Rows of the host array (stride in words) to or from the packed device buffer; blocking
  /// on the way back.
  void copy(Recorder& rec, const cl::Buffer& buffer, unsigned char* host, std::size_t rows, std::size_t stride,
            bool to_device) const {
    const cl::CommandQueue& q = engine_.ctx().queue();
    const std::size_t row_bytes = engine_.size() * engine_.word_bytes();
    if (rows == 1 || stride == engine_.size()) {
      if (to_device) q.enqueueWriteBuffer(buffer, CL_FALSE, 0, rows * row_bytes, host, nullptr, rec.transfer());
      else q.enqueueReadBuffer(buffer, CL_TRUE, 0, rows * row_bytes, host, nullptr, rec.transfer());
      return;
    }
    const cl::array<cl::size_type, 3> origin = {0, 0, 0}, region = {row_bytes, rows, 1};
    const std::size_t host_pitch = stride * engine_.word_bytes();
    if (to_device)
      q.enqueueWriteBufferRect(buffer, CL_FALSE, origin, origin, region, row_bytes, 0, host_pitch, 0, host, nullptr,
                               rec.transfer());
    else
      q.enqueueReadBufferRect(buffer, CL_TRUE, origin, origin, region, row_bytes, 0, host_pitch, 0, host, nullptr,
                              rec.transfer());
  }

  mutable Engine engine_;
  Counters& counters_;
  Order order_;
  mutable std::mutex mutex_;
  mutable DeviceArray data_, scratch_;
};

class ClSpectrum final : public detail::Spectrum {
 public:
  PooledBuffer storage;
  std::size_t words = 0;
  const cl::Buffer& buffer() const { return storage.get(); }
};

class ClDyadic final : public detail::DyadicKernel {
 public:
  ClDyadic(std::shared_ptr<const DeviceContext> ctx, Counters& counters, Variant variant, int log2n, Word word)
      : engine_(std::move(ctx), variant, log2n, word), counters_(counters) {}

  std::unique_ptr<detail::Spectrum> spectrum(const void* h) const override {
    const std::lock_guard lock(mutex_);
    return on_queue(engine_.ctx(), "computing a Walsh spectrum", [&] {
      const DeviceContext& ctx = engine_.ctx();
      const std::size_t n = engine_.size(), wb = engine_.word_bytes();
      auto s = std::make_unique<ClSpectrum>();
      s->log2n = static_cast<int>(std::countr_zero(n));
      s->words = std::max(n, kMinDeviceSpectrumWords);
      s->storage = PooledBuffer(engine_.context(), s->words * wb);
      Recorder rec(counters_);
      if (engine_.reads_out_of_place() && ctx.can_wrap(h, n * wb)) {  // CPU device: read h where it is
        const cl::Buffer wrapped = read_only(ctx, h, n * wb);
        engine_.transform(rec, s->buffer(), 1, 1.0, &wrapped);
      } else {
        ctx.queue().enqueueWriteBuffer(s->buffer(), CL_FALSE, 0, n * wb, h, nullptr, rec.transfer());
        engine_.transform(rec, s->buffer(), 1, 1.0);
      }
      if (n < kMinDeviceSpectrumWords) {  // repeat it: S of h padded to 2^m points is S[k mod n]
        std::vector<unsigned char> host(s->words * wb);
        ctx.queue().enqueueReadBuffer(s->buffer(), CL_TRUE, 0, n * wb, host.data(), nullptr, rec.transfer());
        for (std::size_t k = n; k < s->words; ++k) std::memcpy(&host[k * wb], &host[(k % n) * wb], wb);
        ctx.queue().enqueueWriteBuffer(s->buffer(), CL_TRUE, 0, host.size(), host.data(), nullptr, rec.transfer());
      }
      rec.account();
      return std::unique_ptr<detail::Spectrum>(std::move(s));
    });
  }

  void apply(const detail::Spectrum& s, const void* x, void* out, double scale) const override {
    run(1, &s, x, out, scale);
  }

  void autocorrelate(const void* x, void* out, double scale) const override { run(2, nullptr, x, out, scale); }

  void deconvolve(const detail::Spectrum& s, const void* y, void* out, double scale) const override {
    if (!engine_.is_float())
      throw Error(ErrorCode::unsupported, "deconvolution in integer rings is done exactly by the caller");
    check_nonzero(s);
    run(3, &s, y, out, scale);
  }

 private:
  void run(int op, const detail::Spectrum* s, const void* x, void* out, double scale) const {
    const std::lock_guard lock(mutex_);
    on_queue(engine_.ctx(), "computing a dyadic convolution", [&] {
      const DeviceContext& ctx = engine_.ctx();
      const std::size_t bytes = engine_.size() * engine_.word_bytes();
      const auto* spectrum = static_cast<const ClSpectrum*>(s);
      Recorder rec(counters_);
      const auto middle = [&](const cl::Buffer& buffer, const cl::Buffer* in = nullptr) {
        engine_.dyadic(rec, buffer, op, spectrum ? spectrum->buffer() : buffer,
                       spectrum ? spectrum->words : kMinDeviceSpectrumWords, scale, in);
      };
      if (ctx.can_wrap(out, bytes)) {  // CPU device: in place in `out`, no copies
        const bool reads_x = x != out && engine_.reads_out_of_place() && ctx.can_wrap(x, bytes);  // the first pass
        // x is copied into `out` before a buffer wraps it: an implementation may take the host
        // memory's contents when a CL_MEM_USE_HOST_PTR buffer is made.
        if (x != out && !reads_x) std::memcpy(out, x, bytes);
        const cl::Buffer wrapped(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, out);
        if (reads_x) {
          const cl::Buffer input = read_only(ctx, x, bytes);
          middle(wrapped, &input);
        } else {
          middle(wrapped);
        }
        synchronise(rec, engine_.ctx(), wrapped, bytes);
      } else {
        const cl::Buffer& buffer = data_.at_least(engine_.context(), bytes);
        ctx.queue().enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, x, nullptr, rec.transfer());
        middle(buffer);
        ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, out, nullptr, rec.transfer());
      }
      rec.account();
    });
  }

  /// Floats: the deconvolution's singularity check, on the spectrum read back once.
  void check_nonzero(const detail::Spectrum& s) const {
    const auto& spectrum = static_cast<const ClSpectrum&>(s);
    const std::size_t n = std::size_t{1} << s.log2n;
    const auto find = [&]<class W>() {
      std::vector<W> host(n);
      guarded("reading a spectrum back", [&] {
        engine_.ctx().queue().enqueueReadBuffer(spectrum.buffer(), CL_TRUE, 0, n * sizeof(W), host.data());
      });
      if (const std::ptrdiff_t k = detail::first_zero(host.data(), s.log2n, s.zero_threshold); k >= 0)
        detail::throw_singular(static_cast<std::size_t>(k), std::abs(static_cast<double>(host[k])), s.zero_threshold);
    };
    if (engine_.word_bytes() == 8) find.template operator()<double>();
    else find.template operator()<float>();
  }

  mutable Engine engine_;
  Counters& counters_;
  mutable std::mutex mutex_;
  mutable DeviceArray data_;
};

class OpenClBackend final : public detail::BackendImpl {
 public:
  OpenClBackend(std::shared_ptr<const DeviceContext> ctx, Variant variant) : ctx_(std::move(ctx)), variant_(variant) {}

  std::string_view name() const noexcept override { return "opencl"; }
  std::string_view variant() const noexcept override { return variant_ == Variant::fast ? "fast" : "gajic2011"; }
  std::vector<std::string> variants() const override { return Backend::variants_of("opencl"); }
  std::string description() const override {
    const Device& d = ctx_->info();
    return "opencl: " + d.name + " (" + d.type + ", device " + d.id + " of " + d.platform + ")";
  }
  std::string device() const override { return ctx_->info().id; }

  std::unique_ptr<detail::WhtKernel> make_wht(int log2n, Word word, Order order) const override {
    return std::make_unique<ClWht>(ctx_, counters_, variant_, log2n, word, order);
  }
  std::unique_ptr<detail::DyadicKernel> make_dyadic(int log2n, Word word) const override {
    return std::make_unique<ClDyadic>(ctx_, counters_, variant_, log2n, word);
  }

  DeviceTimings timings() const override { return counters_.snapshot(); }
  void reset_timings() const override { counters_.reset(); }

 private:
  std::shared_ptr<const DeviceContext> ctx_;
  Variant variant_;
  mutable Counters counters_;
};

}  // namespace

std::shared_ptr<const detail::BackendImpl> make_opencl_backend(std::string_view variant, std::string_view device) {
  return std::make_shared<const OpenClBackend>(device_context(device),
                                               variant == "gajic2011" ? Variant::gajic2011 : Variant::fast);
}

}  // namespace fastconv::opencl
