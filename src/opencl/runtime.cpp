#include "opencl/runtime.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>

#include "core/memory.hpp"

namespace fastconv::opencl {

std::string_view error_name(cl_int code) noexcept {
  switch (code) {
#define FC_NAME(c) \
  case c: return #c;
    FC_NAME(CL_DEVICE_NOT_FOUND)
    FC_NAME(CL_DEVICE_NOT_AVAILABLE)
    FC_NAME(CL_COMPILER_NOT_AVAILABLE)
    FC_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    FC_NAME(CL_OUT_OF_RESOURCES)
    FC_NAME(CL_OUT_OF_HOST_MEMORY)
    FC_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    FC_NAME(CL_MEM_COPY_OVERLAP)
    FC_NAME(CL_IMAGE_FORMAT_MISMATCH)
    FC_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    FC_NAME(CL_BUILD_PROGRAM_FAILURE)
    FC_NAME(CL_MAP_FAILURE)
    FC_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    FC_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    FC_NAME(CL_COMPILE_PROGRAM_FAILURE)
    FC_NAME(CL_LINKER_NOT_AVAILABLE)
    FC_NAME(CL_LINK_PROGRAM_FAILURE)
    FC_NAME(CL_DEVICE_PARTITION_FAILED)
    FC_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    FC_NAME(CL_INVALID_VALUE)
    FC_NAME(CL_INVALID_DEVICE_TYPE)
    FC_NAME(CL_INVALID_PLATFORM)
    FC_NAME(CL_INVALID_DEVICE)
    FC_NAME(CL_INVALID_CONTEXT)
    FC_NAME(CL_INVALID_QUEUE_PROPERTIES)
    FC_NAME(CL_INVALID_COMMAND_QUEUE)
    FC_NAME(CL_INVALID_HOST_PTR)
    FC_NAME(CL_INVALID_MEM_OBJECT)
    FC_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    FC_NAME(CL_INVALID_IMAGE_SIZE)
    FC_NAME(CL_INVALID_SAMPLER)
    FC_NAME(CL_INVALID_BINARY)
    FC_NAME(CL_INVALID_BUILD_OPTIONS)
    FC_NAME(CL_INVALID_PROGRAM)
    FC_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    FC_NAME(CL_INVALID_KERNEL_NAME)
    FC_NAME(CL_INVALID_KERNEL_DEFINITION)
    FC_NAME(CL_INVALID_KERNEL)
    FC_NAME(CL_INVALID_ARG_INDEX)
    FC_NAME(CL_INVALID_ARG_VALUE)
    FC_NAME(CL_INVALID_ARG_SIZE)
    FC_NAME(CL_INVALID_KERNEL_ARGS)
    FC_NAME(CL_INVALID_WORK_DIMENSION)
    FC_NAME(CL_INVALID_WORK_GROUP_SIZE)
    FC_NAME(CL_INVALID_WORK_ITEM_SIZE)
    FC_NAME(CL_INVALID_GLOBAL_OFFSET)
    FC_NAME(CL_INVALID_EVENT_WAIT_LIST)
    FC_NAME(CL_INVALID_EVENT)
    FC_NAME(CL_INVALID_OPERATION)
    FC_NAME(CL_INVALID_GL_OBJECT)
    FC_NAME(CL_INVALID_BUFFER_SIZE)
    FC_NAME(CL_INVALID_MIP_LEVEL)
    FC_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    FC_NAME(CL_INVALID_PROPERTY)
    FC_NAME(CL_INVALID_IMAGE_DESCRIPTOR)
    FC_NAME(CL_INVALID_COMPILER_OPTIONS)
    FC_NAME(CL_INVALID_LINKER_OPTIONS)
    FC_NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef FC_NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

void throw_device_error(const cl::Error& e, std::string_view doing) {
  throw Error(ErrorCode::device, "OpenCL: " + std::string(e.what()) + " failed with " +
                                     std::string(error_name(e.err())) + " (" + std::to_string(e.err()) +
                                     ") while " + std::string(doing));
}

namespace {

constexpr std::string_view kHowToGetOne =
    "install an OpenCL driver: for the CPU, 'apt-get install pocl-opencl-icd'; for a GPU, its vendor's "
    "OpenCL ICD";

std::vector<cl::Platform> platforms() {
  std::vector<cl::Platform> found;
  try {
    cl::Platform::get(&found);
  } catch (const cl::Error&) {
    found.clear();  // CL_PLATFORM_NOT_FOUND_KHR: no ICD installed
  }
  return found;
}

std::vector<cl::Device> devices_of(const cl::Platform& platform) {
  std::vector<cl::Device> found;
  try {
    platform.getDevices(CL_DEVICE_TYPE_ALL, &found);
  } catch (const cl::Error&) {
    found.clear();  // CL_DEVICE_NOT_FOUND
  }
  return found;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

Device describe(const cl::Device& d, const std::string& id) {
  Device info;
  info.backend = "opencl";
  info.id = id;
  info.name = trimmed(d.getInfo<CL_DEVICE_NAME>());
  info.platform = trimmed(cl::Platform(d.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>());
  info.version = trimmed(d.getInfo<CL_DEVICE_VERSION>());
  const cl_device_type type = d.getInfo<CL_DEVICE_TYPE>();
  info.type = (type & CL_DEVICE_TYPE_GPU) ? "gpu" : (type & CL_DEVICE_TYPE_CPU) ? "cpu" : "accelerator";
  info.compute_units = static_cast<int>(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  info.global_memory_bytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  info.local_memory_bytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  info.max_work_group_size = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  if (const auto items = d.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>(); !items.empty())
    info.max_work_group_size = std::min<std::size_t>(info.max_work_group_size, items[0]);
  info.fp64 = d.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") != std::string::npos;
  return info;
}

}  // namespace

std::vector<Device> list_devices() {
  std::vector<Device> out;
  const auto ps = platforms();
  for (std::size_t p = 0; p < ps.size(); ++p) {
    const auto ds = devices_of(ps[p]);
    for (std::size_t d = 0; d < ds.size(); ++d) {
      try {
        out.push_back(describe(ds[d], std::to_string(p) + ":" + std::to_string(d)));
      } catch (const cl::Error&) {  // a device that cannot describe itself is not usable
      }
    }
  }
  return out;
}

DeviceContext::DeviceContext(cl::Device device, std::string id) : device_(std::move(device)) {
  guarded("opening OpenCL device " + id, [&] {
    info_ = describe(device_, id);
    max_allocation_ = device_.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    base_alignment_ = std::max<std::size_t>(device_.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, 64);
    cpu_vector_bytes_ = std::clamp<std::size_t>(
        std::bit_floor(std::size_t{device_.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>()}) * sizeof(float), 16, 64);
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
  });
}

cl::Buffer DeviceContext::acquire(std::size_t bytes) const {
  {
    const std::lock_guard lock(mutex_);
    for (auto it = free_buffers_.rbegin(); it != free_buffers_.rend(); ++it)
      if (it->first >= bytes && it->first / 2 <= bytes) {
        cl::Buffer found = std::move(it->second);
        free_buffers_.erase(std::next(it).base());
        return found;
      }
  }
  const std::string device = "OpenCL device " + info_.id + " (" + info_.name + ")";
  fastconv::detail::require_device_memory(bytes, info_.global_memory_bytes, device, "a device buffer");
  fastconv::detail::require_device_memory(bytes, max_allocation_, device + " in one buffer",
                                          "a device buffer (use a smaller size or batch)");
  if (info_.type == "cpu")  // the device's memory is this process's (PoCL)
    fastconv::detail::require_memory(bytes, "a buffer of " + device);
  return guarded("allocating a device buffer of " + std::to_string(bytes) + " bytes",
                 [&] { return cl::Buffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1)); });
}

void DeviceContext::release(cl::Buffer buffer) const {
  const std::size_t kKeep = std::min<std::size_t>(std::size_t{1} << 30, info_.global_memory_bytes / 4);
  std::size_t bytes = 0;
  try {
    bytes = buffer.getInfo<CL_MEM_SIZE>();
  } catch (const cl::Error&) {
    return;
  }
  const std::lock_guard lock(mutex_);
  free_buffers_.emplace_back(bytes, std::move(buffer));
  std::size_t kept = 0;
  for (auto it = free_buffers_.rbegin(); it != free_buffers_.rend(); ++it) kept += it->first;
  while (kept > kKeep && !free_buffers_.empty()) {  // drop the oldest
    kept -= free_buffers_.front().first;
    free_buffers_.erase(free_buffers_.begin());
  }
}

bool DeviceContext::can_wrap(const void* host, std::size_t bytes) const noexcept {
  return is_cpu() && bytes <= max_allocation_ && reinterpret_cast<std::uintptr_t>(host) % base_alignment_ == 0;
}

cl::Program DeviceContext::program(std::string_view source, const std::string& options) const {
  const std::lock_guard lock(programs_mutex_);
  const auto key = std::make_pair(static_cast<const void*>(source.data()), options);
  if (const auto it = programs_.find(key); it != programs_.end()) return it->second;
  cl::Program program(context_, std::string(source));
  try {
    program.build({device_}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
    } catch (const cl::Error&) {
    }
    throw Error(ErrorCode::device, "OpenCL: building a kernel program for " + info_.name + " failed with " +
                                       std::string(error_name(e.err())) + " (options: " + options + "): " + log);
  }
  programs_.emplace(key, program);
  return program;
}

std::shared_ptr<const DeviceContext> device_context(std::string_view id) {
  static std::mutex mutex;
  // Never destroyed: releasing OpenCL objects during static destruction crashes some drivers.
  static auto& opened = *new std::map<std::string, std::shared_ptr<const DeviceContext>>;
  const std::lock_guard lock(mutex);

  std::string wanted(id);
  if (wanted.empty())
    if (const char* env = std::getenv("FASTCONV_OPENCL_DEVICE")) wanted = env;

  const auto ps = platforms();
  if (ps.empty())
    throw Error(ErrorCode::device, "no OpenCL platform found: " + std::string(kHowToGetOne));
  std::vector<std::pair<std::string, cl::Device>> all;
  for (std::size_t p = 0; p < ps.size(); ++p) {
    const auto ds = devices_of(ps[p]);
    for (std::size_t d = 0; d < ds.size(); ++d) all.emplace_back(std::to_string(p) + ":" + std::to_string(d), ds[d]);
  }
  if (all.empty())
    throw Error(ErrorCode::device, "the OpenCL platforms found have no device: " + std::string(kHowToGetOne));

  const std::pair<std::string, cl::Device>* chosen = nullptr;
  if (!wanted.empty()) {
    for (const auto& entry : all)
      if (entry.first == wanted) chosen = &entry;
    if (chosen == nullptr) {
      std::string ids;
      for (const auto& entry : all) ids += (ids.empty() ? "" : ", ") + entry.first;
      throw Error(ErrorCode::invalid_argument,
                  "OpenCL device '" + wanted + "'" + (id.empty() ? " (from FASTCONV_OPENCL_DEVICE)" : "") +
                      " does not exist: the devices are " + ids + " (platform:device; see 'fastconv info')");
    }
  } else {
    for (const auto& entry : all)
      if (chosen == nullptr && (entry.second.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU)) chosen = &entry;
    if (chosen == nullptr) chosen = &all.front();
  }
  auto& slot = opened[chosen->first];
  if (!slot) slot = std::make_shared<const DeviceContext>(chosen->second, chosen->first);
  return slot;
}

}  // namespace fastconv::opencl
