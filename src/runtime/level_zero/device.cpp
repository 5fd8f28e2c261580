#include "runtime/level_zero/device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tack/tack.hpp"

namespace tack::runtime::level_zero {

namespace {

constexpr std::string_view kPrefix = "Cannot initialize 'level_zero' backend: ";

[[noreturn]] void unavailable(const std::string& why) {
    throw RuntimeError(std::string(kPrefix) + why);
}

// ze_api.h 1.4 predates ZE_extension_device_ip_version (spec 1.5); the layout is the spec's.
constexpr ze_structure_type_t kIpVersionStype = static_cast<ze_structure_type_t>(0x1000f);
struct IpVersionExt {
    ze_structure_type_t stype = kIpVersionStype;
    const void* pNext = nullptr;
    uint32_t ipVersion = 0;
};

std::vector<std::string> driver_extensions(const ZeApi& api, ze_driver_handle_t driver) {
    uint32_t n = 0;
    if (api.zeDriverGetExtensionProperties(driver, &n, nullptr) != ZE_RESULT_SUCCESS) return {};
    std::vector<ze_driver_extension_properties_t> props(n);
    if (api.zeDriverGetExtensionProperties(driver, &n, props.data()) != ZE_RESULT_SUCCESS)
        return {};
    std::vector<std::string> names;
    for (const auto& p : props)
        names.emplace_back(p.name);
    return names;
}

void read_queue_group(const ZeApi& api, ze_device_handle_t device, DeviceInfo& info) {
    uint32_t n = 0;
    check(api.zeDeviceGetCommandQueueGroupProperties(device, &n, nullptr),
          "zeDeviceGetCommandQueueGroupProperties");
    std::vector<ze_command_queue_group_properties_t> groups(n);
    for (auto& g : groups)
        g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    check(api.zeDeviceGetCommandQueueGroupProperties(device, &n, groups.data()),
          "zeDeviceGetCommandQueueGroupProperties");
    for (uint32_t i = 0; i < n; ++i) {
        if (!(groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)) continue;
        info.compute_ordinal = i;
        info.max_fill_pattern = groups[i].maxMemoryFillPatternSize;
        return;
    }
    unavailable("the Level Zero device has no compute command queue group");
}

// The first GPU among the first driver's devices, then the next driver's. The seed takes the
// first device of the first driver; the loader also enumerates NPU drivers (intel-npu-driver),
// which cannot run OpenCL C, so a non-GPU device is skipped.
bool pick_gpu(const ZeApi& api, ze_driver_handle_t driver, DeviceHandles& out) {
    uint32_t n = 0;
    if (api.zeDeviceGet(driver, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) return false;
    std::vector<ze_device_handle_t> devices(n);
    if (api.zeDeviceGet(driver, &n, devices.data()) != ZE_RESULT_SUCCESS) return false;
    for (uint32_t i = 0; i < n; ++i) {
        ze_device_handle_t d = devices[i];
        ze_device_properties_t props{};
        props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
        if (api.zeDeviceGetProperties(d, &props) != ZE_RESULT_SUCCESS) continue;
        if (props.type != ZE_DEVICE_TYPE_GPU) continue;
        out.driver = driver;
        out.device = d;
        out.ordinal = i;
        return true;
    }
    return false;
}

}  // namespace

void check(ze_result_t r, std::string_view what) {
    if (r != ZE_RESULT_SUCCESS)
        throw RuntimeError("Level Zero: " + std::string(what) + " failed: " + ze_result_name(r));
}

DTypeSet supported_dtypes(const DeviceInfo& info) {
    return info.fp64 ? DTypeSet::all() : DTypeSet::all().without(DType::f64);
}

uint32_t group_size(const DeviceInfo& info) {
    return std::min({256u, info.max_group_size_x, info.max_total_group_size});
}

uint64_t launch_limit(const DeviceInfo& info) {
    return static_cast<uint64_t>(info.max_group_count_x) * group_size(info);
}

std::string cache_target(const DeviceInfo& info, int ocloc_version, const std::string& options) {
    char ids[64];
    std::snprintf(ids, sizeof ids, "id=0x%x;ip=0x%x;driver=0x%x", info.device_id, info.ip_version,
                  info.driver_version);
    return "level_zero;" + info.name + ";" + ids + ";ocloc=" + std::to_string(ocloc_version) +
           ";options=" + options + ";f64=" + (info.fp64 ? "1" : "0");
}

DeviceHandles open_device(const ZeApi& api, const std::optional<ExternalContext>& external) {
    ze_result_t r = api.zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        unavailable(api.library +
                    " loaded but zeInit found no driver (is intel-level-zero-gpu / the Intel "
                    "compute runtime installed?) [zeInit: " +
                    ze_result_name(r) + "]");
    }
    DeviceHandles out;
    if (external) {
        out.driver = static_cast<ze_driver_handle_t>(external->driver);
        out.device = static_cast<ze_device_handle_t>(external->device);
        out.context = static_cast<ze_context_handle_t>(external->context);
        out.external = true;
        return out;
    }
    uint32_t n = 0;
    if (api.zeDriverGet(&n, nullptr) != ZE_RESULT_SUCCESS || n == 0)
        unavailable(api.library + " initialized but zeDriverGet found no driver");
    std::vector<ze_driver_handle_t> drivers(n);
    check(api.zeDriverGet(&n, drivers.data()), "zeDriverGet");
    bool found = false;
    for (ze_driver_handle_t d : drivers)
        if ((found = pick_gpu(api, d, out))) break;
    if (!found) unavailable("no Level Zero driver reports a GPU device");
    ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    check(api.zeContextCreate(out.driver, &desc, &out.context), "zeContextCreate");
    return out;
}

DeviceInfo query_device(const ZeApi& api, const DeviceHandles& h) {
    DeviceInfo info;
    auto ext = driver_extensions(api, h.driver);
    auto has = [&](std::string_view e) {
        return std::find(ext.begin(), ext.end(), e) != ext.end();
    };
    // Chaining an extension struct a driver does not know is an error on some drivers, so the
    // IP version is asked for only where the extension is listed.
    IpVersionExt ip;
    ze_device_properties_t props{};
    props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    if (has("ZE_extension_device_ip_version")) props.pNext = &ip;
    check(api.zeDeviceGetProperties(h.device, &props), "zeDeviceGetProperties");
    info.name = props.name;
    info.device_id = props.deviceId;
    info.ip_version = ip.ipVersion;

    ze_device_compute_properties_t compute{};
    compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    check(api.zeDeviceGetComputeProperties(h.device, &compute), "zeDeviceGetComputeProperties");
    info.max_group_size_x = compute.maxGroupSizeX;
    info.max_total_group_size = compute.maxTotalGroupSize;
    info.max_group_count_x = compute.maxGroupCountX;

    ze_device_module_properties_t module{};
    module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
    check(api.zeDeviceGetModuleProperties(h.device, &module), "zeDeviceGetModuleProperties");
    info.fp64 = module.fp64flags != 0;

    ze_device_image_properties_t image{};
    image.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
    if (api.zeDeviceGetImageProperties(h.device, &image) == ZE_RESULT_SUCCESS) {
        info.max_image_dims_3d = image.maxImageDims3D;
        info.max_samplers = image.maxSamplers;
    }
    read_queue_group(api, h.device, info);

    ze_driver_properties_t driver{};
    driver.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    if (api.zeDriverGetProperties(h.driver, &driver) == ZE_RESULT_SUCCESS)
        info.driver_version = driver.driverVersion;
    ze_api_version_t version{};
    if (api.zeDriverGetApiVersion(h.driver, &version) == ZE_RESULT_SUCCESS)
        info.api_version = version;
    info.host_sync =
        api.zeCommandListHostSynchronize != nullptr && info.api_version >= ZE_MAKE_VERSION(1, 6);
    info.defer_free = has("ZE_extension_memory_free_policies");
    return info;
}

}  // namespace tack::runtime::level_zero
