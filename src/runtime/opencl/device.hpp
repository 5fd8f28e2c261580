#pragma once
// Choosing and describing the OpenCL device the backend runs on, and the pure rules derived from
// it (capabilities, launch limit, cache target), kept apart from the queue so they read alone.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/opencl/cl_api.hpp"
#include "tack/dtype.hpp"
#include "tack/tack.hpp"

namespace tack::runtime::opencl {

/// Which device: `platform`/`device` options (device j of platform i), else TACK_OPENCL_DEVICE
/// counting every device of every platform in order (default 0).
struct DeviceChoice {
    std::optional<int> platform;
    int device = 0;  // within `platform`, or the flat index when platform is unset
};

/// Reads the options, then the environment. ValueError for a malformed value.
DeviceChoice choose_device(const DeviceOptions& options);

struct DeviceDesc {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string platform_name, platform_version, name, version, driver, c_version, extensions;
    bool fp64 = false;           // cl_khr_fp64
    bool int64_atomics = false;  // cl_khr_int64_base_atomics
    std::size_t max_work_group_size = 0;
    cl_uint address_bits = 64;
};

/// The chosen device; RuntimeError "Cannot initialize 'opencl' backend: ..." when absent.
DeviceDesc open_device(const ClApi& api, const DeviceChoice& choice);

DTypeSet supported_dtypes(const DeviceDesc& d);
DTypeSet atomic_dtypes(const DeviceDesc& d);
/// The Portable Computing Language's CPU device (limits of its own: private_bytes, launch_limit).
bool is_pocl(const DeviceDesc& d);
/// Lanes per group: 256 unless the device admits fewer.
std::size_t group_size(const DeviceDesc& d);
/// The bytes of local arrays one work-item may hold: `row` (the target table's) or less.
std::uint64_t private_bytes(const DeviceDesc& d, std::uint64_t row);
/// The largest iteration count one launch indexes: global sizes are size_t on the device.
std::uint64_t launch_limit(const DeviceDesc& d);
/// Identifies the code a device produces for the disk cache (platform, device, driver, options).
std::string cache_target(const DeviceDesc& d);

/// RuntimeError "OpenCL: <what> failed: <code>" unless CL_SUCCESS.
void check(cl_int code, std::string_view what);

}  // namespace tack::runtime::opencl
