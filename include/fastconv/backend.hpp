// fastconv/backend.hpp — where a computation runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fastconv {

namespace detail {
class BackendImpl;
}

/// A device a GPU-style backend can run on (see devices()).
struct Device {
  std::string backend;   ///< "opencl" or "cuda"
  std::string id;        ///< what --device takes: "P:D" (OpenCL platform P, device D) or "N" (CUDA)
  std::string name;      ///< e.g. "pthread-haswell-AMD EPYC"
  std::string platform;  ///< e.g. "Portable Computing Language"
  std::string type;      ///< "gpu", "cpu" or "accelerator"
  std::string version;   ///< e.g. "OpenCL 3.0 PoCL ..."
  int compute_units = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t local_memory_bytes = 0;
  std::size_t max_work_group_size = 0;
  bool fp64 = false;  ///< double precision available
};

/// Every device of every device backend in this build (empty when there is none, or no
/// driver is installed; never throws for a missing driver).
std::vector<Device> devices();

/// Time a device backend spent since its handle was made (or reset_timings()), from the
/// device's own profiling events: the split of seed 001's Table 2.
struct DeviceTimings {
  double transfer_ms = 0;    ///< host→device and device→host copies
  double compute_ms = 0;     ///< kernels
  std::uint64_t transfers = 0;
  std::uint64_t launches = 0;  ///< kernel launches
};

/// A handle to a compute backend. Cheap to copy; plans keep the backend they were made on.
///
/// - `reference`: seed 004's Algorithm 0, the textbook loop on one thread. Slow and simple
///   on purpose: it is the oracle every other path is tested against.
/// - `cpu`: vectorised, cache-blocked and multithreaded (OpenMP) kernels. Its variants are
///   the instruction sets this CPU runs ("avx512", "avx2", "sse4", ...); the default is the
///   fastest one.
/// - `cuda` (when built with nvcc): NVIDIA GPUs; the seeds' CUDA algorithms as variants and a
///   tiled few-pass default ("fast").
/// - `opencl` (when built with OpenCL): any OpenCL device — GPUs, or the CPU through PoCL.
///   Variants: "gajic2011" (seed 001's Algorithm 1: one launch per FWT step) and "fast"
///   (the default: a few launches of tiled radix-2^k passes). Data are copied to the device
///   and back on every call; spectra (DyadicSystem) stay on the device.
///
/// A variant is one implementation of a backend's algorithms (variants() lists them); every
/// variant computes the same results.
///
/// A Backend is a shared handle: any number of plans, on any number of threads, may use one at
/// once (its buffer pool and device queues are locked). docs/user-guide.md §8 lists the
/// guarantee of every object; tests/concurrency_test.cpp checks them.
class Backend {
 public:
  /// The textbook loop (seed 004's Algorithm 0).
  static Backend reference();
  /// The most threads a cpu backend starts: more is an invalid_argument Error. A bound on
  /// absurd counts (100000 started thousands of threads for a batch), not a guarantee: libgomp
  /// still ends the process when the system cannot create the threads asked for (200 under a
  /// 2 GB address-space limit), and OMP_NUM_THREADS, which threads = 0 follows, is not checked.
  static constexpr int kMaxCpuThreads = 1024;
  /// The fast CPU backend. `threads` = 0 uses OpenMP's default (all cores, or OMP_NUM_THREADS);
  /// at most kMaxCpuThreads.
  /// `variant` names an instruction set from variants() ("" = the fastest this CPU has, or the
  /// one the environment variable FASTCONV_CPU_ISA names).
  static Backend cpu(int threads = 0, std::string_view variant = {});
  /// The OpenCL backend on device `device` ("P:D"; "" = the FASTCONV_OPENCL_DEVICE environment
  /// variable, else the first GPU, else the first device). An unknown variant or device is an
  /// invalid_argument Error listing the valid ones; no OpenCL platform or device, or a build
  /// without OpenCL, is a device Error saying how to get one.
  static Backend opencl(std::string_view variant = {}, std::string_view device = {});
  /// The CUDA backend on device `device` ("N"; "" = FASTCONV_CUDA_DEVICE, else 0). Variants
  /// (slowest first): "gajic2011" (seed 001), "bikov-a1" … "bikov-a6" (seed 004's Algorithms 1–6;
  /// a5 and a6 up to 2^20 points), "nvidia-radix4" (seed 003) and "fast" (the default). No
  /// CUDA device or driver, or a build without CUDA, is a device Error saying so.
  static Backend cuda(std::string_view variant = {}, std::string_view device = {});
  /// The fastest backend this build offers (today: cpu).
  static Backend best();
  /// A backend by name: "reference", "cpu", "opencl" or "auto" (= best()), and optionally one
  /// of its variants ("" = its default) and, for device backends, a device id. An unknown
  /// name or variant is an invalid_argument Error that lists the valid ones.
  static Backend from_name(std::string_view name, int threads = 0, std::string_view variant = {},
                           std::string_view device = {});
  /// Names accepted by from_name(), "auto" first (device backends only when built in).
  static std::vector<std::string> names();
  /// The variants backend `name` offers on this machine, slowest first, without opening a
  /// device (an unknown name is an invalid_argument Error).
  static std::vector<std::string> variants_of(std::string_view name);

  /// "reference", "cpu", "opencl" or "cuda".
  [[nodiscard]] std::string_view name() const noexcept;
  /// The variant in use, e.g. "avx2" (the reference backend's only one is "textbook").
  [[nodiscard]] std::string_view variant() const noexcept;
  /// Every variant this backend offers on this machine, slowest first.
  [[nodiscard]] std::vector<std::string> variants() const;
  /// One line about what the backend runs on, e.g. "cpu: AVX2+FMA kernels, 2 threads".
  [[nodiscard]] std::string description() const;
  /// The device it runs on, as from_name() takes it ("P:D" for opencl, "N" for cuda); "" for
  /// the host backends.
  [[nodiscard]] std::string device() const;
  /// The cpu backend's thread count as given (0: OpenMP's default, all cores); 1 for the others.
  [[nodiscard]] int threads() const noexcept;
  /// Device time spent through this handle and its copies (zero for host backends). Safe to
  /// call while other threads compute.
  [[nodiscard]] DeviceTimings timings() const;
  void reset_timings() const;

  /// The implementation (internal; used by plans).
  [[nodiscard]] const detail::BackendImpl& impl() const noexcept { return *impl_; }

 private:
  explicit Backend(std::shared_ptr<const detail::BackendImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const detail::BackendImpl> impl_;
};

/// The library's version, e.g. "0.1.0".
std::string_view version() noexcept;

}  // namespace fastconv
