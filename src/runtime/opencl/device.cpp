#include "runtime/opencl/device.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/opencl/runner.hpp"
#include "support/env.hpp"

namespace tack::runtime::opencl {

namespace {

constexpr std::string_view kPrefix = "Cannot initialize 'opencl' backend: ";

[[noreturn]] void unavailable(const std::string& why) {
    throw RuntimeError(std::string(kPrefix) + why);
}

std::optional<int> int_option(const DeviceOptions& options, const char* key) {
    auto it = options.find(key);
    if (it == options.end()) return std::nullopt;
    const auto* v = std::get_if<std::int64_t>(&it->second.value());
    if (!v || *v < 0)
        throw ValueError(std::string("The 'opencl' backend's ") + key +
                         " option must be a non-negative integer");
    return static_cast<int>(*v);
}

template <class Handle, class Fn>
std::string info_string(Fn&& query, Handle h, cl_uint what) {
    size_t n = 0;
    if (query(h, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
    std::string s(n, '\0');
    query(h, what, n, s.data(), nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

bool has_word(const std::string& list, std::string_view word) {
    std::istringstream in(list);
    for (std::string w; in >> w;)
        if (w == word) return true;
    return false;
}

std::vector<cl_device_id> devices_of(const ClApi& api, cl_platform_id p) {
    cl_uint n = 0;
    if (api.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) return {};
    std::vector<cl_device_id> out(n);
    api.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, out.data(), nullptr);
    return out;
}

DeviceDesc describe(const ClApi& api, cl_platform_id p, cl_device_id dev) {
    DeviceDesc d;
    d.platform = p;
    d.device = dev;
    d.platform_name = info_string(api.clGetPlatformInfo, p, CL_PLATFORM_NAME);
    d.platform_version = info_string(api.clGetPlatformInfo, p, CL_PLATFORM_VERSION);
    d.name = info_string(api.clGetDeviceInfo, dev, CL_DEVICE_NAME);
    d.version = info_string(api.clGetDeviceInfo, dev, CL_DEVICE_VERSION);
    d.driver = info_string(api.clGetDeviceInfo, dev, CL_DRIVER_VERSION);
    d.c_version = info_string(api.clGetDeviceInfo, dev, CL_DEVICE_OPENCL_C_VERSION);
    d.extensions = info_string(api.clGetDeviceInfo, dev, CL_DEVICE_EXTENSIONS);
    d.fp64 = has_word(d.extensions, "cl_khr_fp64");
    d.int64_atomics = has_word(d.extensions, "cl_khr_int64_base_atomics");
    api.clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), &d.max_work_group_size,
                        nullptr);
    api.clGetDeviceInfo(dev, CL_DEVICE_ADDRESS_BITS, sizeof(cl_uint), &d.address_bits, nullptr);
    return d;
}

}  // namespace

DeviceChoice choose_device(const DeviceOptions& options) {
    DeviceChoice c;
    c.platform = int_option(options, "platform");
    std::optional<int> device = int_option(options, "device");
    if (c.platform || device) {
        if (!c.platform) c.platform = 0;
        c.device = device.value_or(0);
        return c;
    }
    auto env = translate_compile_errors([] { return support::env_integer("TACK_OPENCL_DEVICE"); });
    if (env && *env < 0) throw ValueError("TACK_OPENCL_DEVICE must be a non-negative integer");
    c.device = static_cast<int>(env.value_or(0));
    return c;
}

DeviceDesc open_device(const ClApi& api, const DeviceChoice& choice) {
    cl_uint np = 0;
    if (api.clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
        unavailable("no OpenCL platform (is an ICD such as PoCL installed?)");
    std::vector<cl_platform_id> platforms(np);
    api.clGetPlatformIDs(np, platforms.data(), nullptr);
    if (choice.platform) {
        if (*choice.platform >= static_cast<int>(np))
            unavailable("no OpenCL platform with index " + std::to_string(*choice.platform) + " (" +
                        std::to_string(np) + " found)");
        cl_platform_id p = platforms[static_cast<size_t>(*choice.platform)];
        std::vector<cl_device_id> devs = devices_of(api, p);
        if (choice.device >= static_cast<int>(devs.size()))
            unavailable("platform " + std::to_string(*choice.platform) + " has no device " +
                        std::to_string(choice.device));
        return describe(api, p, devs[static_cast<size_t>(choice.device)]);
    }
    int index = choice.device;
    for (cl_platform_id p : platforms) {
        std::vector<cl_device_id> devs = devices_of(api, p);
        if (index < static_cast<int>(devs.size()))
            return describe(api, p, devs[static_cast<size_t>(index)]);
        index -= static_cast<int>(devs.size());
    }
    unavailable("no OpenCL device with index " + std::to_string(choice.device));
}

DTypeSet supported_dtypes(const DeviceDesc& d) {
    return d.fp64 ? DTypeSet::all() : DTypeSet::all().without(DType::f64);
}

DTypeSet atomic_dtypes(const DeviceDesc& d) {
    DTypeSet s{DType::i32, DType::u32, DType::f32};
    if (d.int64_atomics) s = s | DTypeSet{DType::i64, DType::u64};
    return s;
}

bool is_pocl(const DeviceDesc& d) {
    return d.platform_name.find("Portable Computing Language") != std::string::npos;
}

std::size_t group_size(const DeviceDesc& d) {
    return std::min<std::size_t>(256, std::max<std::size_t>(d.max_work_group_size, 1));
}

// OpenCL has no query for private memory. PoCL's CPU device ends the process with SIGSEGV when
// one work-item's array reaches 32 KiB (measured, PoCL 3.1 / Debian 12, 2026-12: an f32 array
// of 8150 elements ran, 8192 crashed; two arrays of 32,000 bytes each ran), so on PoCL the bound
// is the largest size that ran, counted over all of a work-item's arrays. Other devices keep
// the row's.
std::uint64_t private_bytes(const DeviceDesc& d, std::uint64_t row) {
    return is_pocl(d) ? std::min<std::uint64_t>(row, 32 * 1024 - 64) : row;
}

// A global size is a size_t of the device's address width; one group of margin keeps the
// rounded-up global size representable. PoCL counts groups in 32 bits: 2^32 groups of 256
// ended the process (SIGILL, SIGFPE or abort; measured as above), 2^32 - 1 ran.
std::uint64_t launch_limit(const DeviceDesc& d) {
    std::uint64_t g = group_size(d);
    std::uint64_t limit = d.address_bits >= 64 ? (std::uint64_t(1) << 63) - g
                                               : (std::uint64_t(1) << d.address_bits) - g;
    return is_pocl(d) ? std::min(limit, ((std::uint64_t(1) << 32) - 1) * g) : limit;
}

std::string cache_target(const DeviceDesc& d) {
    return "opencl;platform=" + d.platform_name + ";" + d.platform_version + ";device=" + d.name +
           ";" + d.version + ";driver=" + d.driver + ";c=" + d.c_version +
           ";dialect=opencl-c-1.2;options=" + kBuildOptions + ";f64=" + (d.fp64 ? "1" : "0") +
           ";i64atomics=" + (d.int64_atomics ? "1" : "0");
}

void check(cl_int code, std::string_view what) {
    if (code != CL_SUCCESS)
        throw RuntimeError("OpenCL: " + std::string(what) + " failed: " + cl_error_name(code));
}

}  // namespace tack::runtime::opencl
