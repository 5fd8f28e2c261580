#pragma once
// Choosing and describing the Level Zero device: zeInit, the driver/device/context (own or
// adopted through external_context) and the properties the backend reads (the seed's
// _query_device). The limits derived from them are pure functions, tested without a device.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/level_zero/options.hpp"
#include "runtime/level_zero/ze_api.hpp"
#include "tack/dtype.hpp"

namespace tack::runtime::level_zero {

struct DeviceInfo {
    std::string name;         // ze_device_properties_t::name
    uint32_t device_id = 0;   // PCI device id, given to `ocloc -device`
    uint32_t ip_version = 0;  // names the stepping; 0 without ZE_extension_device_ip_version
    uint32_t driver_version = 0;
    uint32_t api_version = 0;
    uint32_t max_group_size_x = 0;
    uint32_t max_total_group_size = 0;
    uint32_t max_group_count_x = 0;
    uint32_t max_image_dims_3d = 0;
    uint32_t max_samplers = 0;
    bool fp64 = false;                 // fp64flags != 0
    uint32_t compute_ordinal = 0;      // first command queue group with the compute flag
    std::size_t max_fill_pattern = 0;  // that group's maxMemoryFillPatternSize
    bool host_sync = false;            // zeCommandListHostSynchronize (API 1.6) is usable
    bool defer_free = false;  // ZE_extension_memory_free_policies (zeMemFreeExt DEFER_FREE)
};

/// Nine dtypes, plus f64 where the device's fp64flags are nonzero (CONTRACT E1).
DTypeSet supported_dtypes(const DeviceInfo& info);
/// min(256, maxGroupSizeX, maxTotalGroupSize) (CONTRACT E6).
uint32_t group_size(const DeviceInfo& info);
/// The most iterations one launch indexes: maxGroupCountX x group size (CONTRACT D10).
uint64_t launch_limit(const DeviceInfo& info);

/// Everything that changes the code this device runs (the seed: device and IP version, driver,
/// ocloc's version and options, the module build flags, f64 support).
std::string cache_target(const DeviceInfo& info, int ocloc_version, const std::string& options);

struct DeviceHandles {
    ze_driver_handle_t driver = nullptr;
    ze_device_handle_t device = nullptr;
    ze_context_handle_t context = nullptr;
    uint32_t ordinal = 0;   // the device's index among its driver's (DLPack's device id)
    bool external = false;  // adopted: never destroyed
};

// --- needs a driver (not exercised on a machine without one) -------------------------------

/// zeInit, then the adopted handles or the first GPU device of the first driver that has one,
/// with a new context. RuntimeError "Cannot initialize 'level_zero' backend: ..." saying what
/// is missing.
DeviceHandles open_device(const ZeApi& api, const std::optional<ExternalContext>& external);
DeviceInfo query_device(const ZeApi& api, const DeviceHandles& handles);

/// Throws RuntimeError "<what> failed: <result name>" unless `r` is ZE_RESULT_SUCCESS.
void check(ze_result_t r, std::string_view what);

}  // namespace tack::runtime::level_zero
