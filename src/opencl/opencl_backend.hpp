// src/opencl/opencl_backend.hpp — the OpenCL backend's constructor and device list.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/backend_impl.hpp"
#include "fastconv/backend.hpp"

namespace fastconv::opencl {

/// The opencl backend with variant "gajic2011" or "fast" on device `device` (see
/// device_context()).
std::shared_ptr<const detail::BackendImpl> make_opencl_backend(std::string_view variant, std::string_view device);

/// Every OpenCL device found, with ids "P:D" (platform P, device D); empty when there is no
/// OpenCL platform. Never throws for a missing driver.
std::vector<Device> list_devices();

}  // namespace fastconv::opencl
