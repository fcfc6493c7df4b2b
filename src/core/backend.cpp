#include "fastconv/backend.hpp"

#include <string>

#include "core/backend_impl.hpp"
#include "cpu/backends.hpp"
#include "cpu/isa.hpp"
#include "fastconv/error.hpp"
#ifdef FASTCONV_HAVE_OPENCL
#include "opencl/opencl_backend.hpp"
#endif
#ifdef FASTCONV_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace fastconv {

Backend Backend::reference() {
  static const auto impl = cpu::make_reference_backend();
  return Backend(impl);
}

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

Backend Backend::cpu(int threads, std::string_view variant) {
  if (threads < 0)
    throw Error(ErrorCode::invalid_argument,
                "cpu backend: thread count " + std::to_string(threads) + " is negative (0 means all cores)");
  if (threads > kMaxCpuThreads)
    throw Error(ErrorCode::invalid_argument, "cpu backend: thread count " + std::to_string(threads) +
                                                 " is more than " + std::to_string(kMaxCpuThreads) +
                                                 ", the most it starts (0 means all cores)");
  if (variant.empty()) return Backend(cpu::make_cpu_backend(threads));
  for (const cpu::IsaKernels* isa : cpu::supported_isas())
    if (isa->name == variant) return Backend(cpu::make_cpu_backend(threads, *isa));
  throw Error(ErrorCode::invalid_argument, "unknown variant '" + std::string(variant) +
                                               "' of backend cpu: valid variants on this CPU are " +
                                               join(cpu::supported_isa_names()));
}

namespace {
const std::vector<std::string> kCudaVariants = {"gajic2011", "bikov-a1", "bikov-a2", "bikov-a3", "bikov-a4",
                                                 "bikov-a5",  "bikov-a6", "nvidia-radix4", "fast"};

const std::vector<std::string> kOpenClVariants = {"gajic2011", "fast"};

void check_variant(std::string_view backend, std::string_view variant, const std::vector<std::string>& valid) {
  if (variant.empty()) return;
  for (const std::string& v : valid)
    if (v == variant) return;
  throw Error(ErrorCode::invalid_argument, "unknown variant '" + std::string(variant) + "' of backend " +
                                               std::string(backend) + ": valid variants are " + join(valid));
}
}  // namespace

Backend Backend::opencl(std::string_view variant, std::string_view device) {
  check_variant("opencl", variant, kOpenClVariants);
#ifdef FASTCONV_HAVE_OPENCL
  return Backend(opencl::make_opencl_backend(variant.empty() ? kOpenClVariants.back() : variant, device));
#else
  (void)device;
  throw Error(ErrorCode::device,
              "this build of fastconv has no OpenCL backend: install the OpenCL headers and loader "
              "('apt-get install ocl-icd-opencl-dev opencl-clhpp-headers', as scripts/setup.sh does) and rebuild");
#endif
}

Backend Backend::cuda(std::string_view variant, std::string_view device) {
  check_variant("cuda", variant, kCudaVariants);
#ifdef FASTCONV_HAVE_CUDA
  return Backend(cuda::make_cuda_backend(variant.empty() ? kCudaVariants.back() : variant, device));
#else
  (void)device;
  throw Error(ErrorCode::device,
              "this build of fastconv has no CUDA backend: install the CUDA toolkit (nvcc on PATH) and rebuild");
#endif
}

Backend Backend::best() { return cpu(); }

std::vector<std::string> Backend::names() {
  std::vector<std::string> out = {"auto", "reference", "cpu"};
#ifdef FASTCONV_HAVE_OPENCL
  out.emplace_back("opencl");
#endif
#ifdef FASTCONV_HAVE_CUDA
  out.emplace_back("cuda");
#endif
  return out;
}

std::vector<std::string> Backend::variants_of(std::string_view name) {
  if (name == "reference") return {"textbook"};
  if (name == "cpu" || name == "auto") return cpu::supported_isa_names();
  if (name == "opencl") return kOpenClVariants;
  if (name == "cuda") return kCudaVariants;
  throw Error(ErrorCode::invalid_argument,
              "unknown backend '" + std::string(name) + "': valid backends are " + join(names()));
}

Backend Backend::from_name(std::string_view name, int threads, std::string_view variant, std::string_view device) {
  if (!device.empty() && name != "opencl" && name != "cuda")
    throw Error(ErrorCode::invalid_argument, "--device (" + std::string(device) +
                                                 ") applies to the opencl and cuda backends only, not to " + std::string(name));
  if (name == "auto" || name == "cpu") return cpu(threads, variant);
  if (name == "opencl") return opencl(variant, device);
  if (name == "cuda") return cuda(variant, device);
  if (name == "reference") {
    check_variant(name, variant, variants_of(name));
    return reference();
  }
  throw Error(ErrorCode::invalid_argument,
              "unknown backend '" + std::string(name) + "': valid backends are " + join(names()));
}

std::vector<Device> devices() {
  std::vector<Device> out;
#ifdef FASTCONV_HAVE_OPENCL
  out = opencl::list_devices();
#endif
#ifdef FASTCONV_HAVE_CUDA
  for (Device& d : cuda::list_devices()) out.push_back(std::move(d));
#endif
  return out;
}

std::string_view Backend::name() const noexcept { return impl_->name(); }
std::string Backend::description() const { return impl_->description(); }
std::string Backend::device() const { return impl_->device(); }
int Backend::threads() const noexcept { return impl_->threads(); }
std::string_view Backend::variant() const noexcept { return impl_->variant(); }
std::vector<std::string> Backend::variants() const { return impl_->variants(); }
DeviceTimings Backend::timings() const { return impl_->timings(); }
void Backend::reset_timings() const { impl_->reset_timings(); }

std::string_view version() noexcept { return FASTCONV_VERSION; }

}  // namespace fastconv
