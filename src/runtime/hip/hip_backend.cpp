#include "runtime/hip/hip_backend.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "runtime/errors.hpp"
#include "support/env.hpp"

namespace tack::runtime::hip {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

const BackendEntry kEntry{"hip", {}, &create};

/// One blocking stream per device, shared by every backend on it; never destroyed (HIP tears
/// its runtime down at exit on its own).
hipStream_t device_stream(const HipApi& api, hipDevice_t device) {
    static std::mutex mutex;
    static auto* streams = new std::map<hipDevice_t, hipStream_t>();
    std::lock_guard guard(mutex);
    hipStream_t& s = (*streams)[device];
    if (!s) check(api, api.hipStreamCreate(&s), "hipStreamCreate");
    return s;
}

std::shared_ptr<Backend> create(const DeviceOptions&) {
    std::string why;
    const HipApi* api = gpu::load_api<HipApi>(&why);
    if (!api) backend_unavailable("hip", why);
    if (hipError_t r = api->hipInit(0))
        backend_unavailable("hip", "hipInit failed: " + hip_error_name(*api, r));
    hipDevice_t device = 0;
    if (hipError_t r = api->hipGetDevice(&device))
        backend_unavailable("hip", "no HIP device (hipGetDevice: " + hip_error_name(*api, r) + ")");
    return std::make_shared<HipBackend>(*api, device);
}

int attribute(const HipApi& api, int attr, hipDevice_t d) {
    int v = 0;
    return api.hipDeviceGetAttribute(&v, attr, d) == hipSuccess ? v : 0;
}

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

std::uint64_t launch_limit(std::uint64_t max_grid_x) {
    constexpr std::uint64_t kCap = (std::uint64_t(1) << 32) - gpu::kCollectiveLanes;
    return std::min(max_grid_x * gpu::kCollectiveLanes, kCap);
}

DeviceScope::DeviceScope(const HipApi& api, hipDevice_t device) : api_(api) {
    hipDevice_t current = -1;
    if (api.hipGetDevice(&current) == hipSuccess && current == device) return;
    if (api.hipSetDevice(device) == hipSuccess) previous_ = current;
}

DeviceScope::~DeviceScope() {
    if (previous_ >= 0) api_.hipSetDevice(previous_);
}

namespace {

std::string device_arch(const HipApi& api, hipDevice_t device) {
    if (!api.hipGetDeviceProperties) return "";
    std::vector<char> props(kDevicePropBytes, '\0');
    if (api.hipGetDeviceProperties(props.data(), device) != hipSuccess) return "";
    const char* name = props.data() + kGcnArchNameOffset;
    return std::string(name, strnlen(name, kGcnArchNameBytes));
}

}  // namespace

std::string HipBackend::runtime_version() const {
    const int v = runtime_version_;
    return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
           std::to_string(v % 100000);
}

std::string HipBackend::memory_space(std::uint64_t address) const {
    if (!api_.hipPointerGetAttributes) return "cpu";
    alignas(8) unsigned char attr[kPointerAttributesBytes] = {};
    DeviceScope scope(api_, device_);
    if (api_.hipPointerGetAttributes(attr, reinterpret_cast<const void*>(address)) != hipSuccess)
        return "cpu";  // ROCm 5: memory the runtime does not know
    int type = 0, managed = 0;
    std::memcpy(&type, attr, sizeof type);
    std::memcpy(&managed, attr + kPointerIsManagedOffset, sizeof managed);
    const bool rocm6 = runtime_version_ >= 60000000;  // HIP_VERSION: major * 10^7 + ...
    if (managed || (rocm6 && type == 3)) return "hip_managed";
    if (type == (rocm6 ? 2 : 1)) return "hip";
    if (type == (rocm6 ? 1 : 0)) return "hip_pinned";
    return "cpu";  // ROCm 6: unregistered host memory
}

HipBackend::HipBackend(const HipApi& api, hipDevice_t device) : api_(api), device_(device) {
    DeviceScope scope(api_, device_);
    stream_ = device_stream(api_, device_);
    char name[256] = {};
    api_.hipDeviceGetName(name, sizeof name, device_);
    device_name_ = name;
    api_.hipRuntimeGetVersion(&runtime_version_);
    arch_ = device_arch(api_, device_);
    geometry_ = {
        "HIP", gpu::kCollectiveLanes,
        launch_limit(std::uint64_t(attribute(api_, hipDeviceAttributeMaxGridDimX, device_)))};
    image_support_ = attribute(api_, hipDeviceAttributeImageSupport, device_) != 0;
    if (image_support_) {
        max_texture_3d_ = std::min({attribute(api_, hipDeviceAttributeMaxTexture3DWidth, device_),
                                    attribute(api_, hipDeviceAttributeMaxTexture3DHeight, device_),
                                    attribute(api_, hipDeviceAttributeMaxTexture3DDepth, device_)});
    }
    pool_ = support::env_hip_pool_allocator() && api_.hipMallocAsync && api_.hipFreeAsync &&
            attribute(api_, hipDeviceAttributeMemoryPoolsSupported, device_) != 0;
    hipMemPool_t pool = nullptr;
    if (pool_ && api_.hipDeviceGetDefaultMemPool && api_.hipMemPoolSetAttribute &&
        api_.hipDeviceGetDefaultMemPool(&pool, device_) == hipSuccess) {
        std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
        api_.hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep);
    }
    std::size_t free_bytes = 0, total = 0;
    api_.hipMemGetInfo(&free_bytes, &total);
    cache_ = std::make_unique<gpu::BufferCache<void*>>(total / 4);
}

HipBackend::~HipBackend() {
    DeviceScope scope(api_, device_);
    try {
        wait_for_queue();
    } catch (const std::exception&) {  // an error of a queued launch nobody waited for
    }
    cache_->clear([&](void* p) { api_.hipFree(p); });
}

void HipBackend::synchronize() {
    wait_for_queue(/*interruptible=*/true);
}

// Through the runtime's C API: hip-python's wrappers hold the GIL while the runtime waits (the
// seed: another task ran 6 times during a 357 ms wait, 1353 times through ctypes).
void* HipBackend::create_event() {
    DeviceScope scope(api_, device_);
    hipEvent_t e = nullptr;
    check(api_, api_.hipEventCreateWithFlags(&e, hipEventBlockingSync | hipEventDisableTiming),
          "hipEventCreateWithFlags");
    return e;
}

void HipBackend::record_event(void* event) {
    DeviceScope scope(api_, device_);
    check(api_, api_.hipEventRecord(static_cast<hipEvent_t>(event), stream_), "hipEventRecord");
}

void HipBackend::wait_event(void* event) {
    DeviceScope scope(api_, device_);
    check(api_, api_.hipEventSynchronize(static_cast<hipEvent_t>(event)),
          "a queued launch (hipEventSynchronize)");
}

bool HipBackend::event_done(void* event) {
    DeviceScope scope(api_, device_);
    return api_.hipEventQuery(static_cast<hipEvent_t>(event)) != hipErrorNotReady;
}

void HipBackend::destroy_event(void* event) noexcept {
    api_.hipEventDestroy(static_cast<hipEvent_t>(event));
}

std::uint64_t HipBackend::allocate_block(std::size_t nbytes) {
    DeviceScope scope(api_, device_);
    std::size_t cap = gpu::capacity_class(nbytes);
    void* p = nullptr;
    if (!pool_) {
        if (auto cached = cache_->take(cap)) p = *cached;  // its last array's work runs first
    }
    if (!p) {
        auto attempt = [&] {
            return pool_ ? api_.hipMallocAsync(&p, cap, stream_) : api_.hipMalloc(&p, cap);
        };
        hipError_t r = attempt();
        if (r == hipErrorOutOfMemory) {
            // The dropped buffers the cache holds (and the pool's freed memory, once the stream
            // has run past the frees) go back to the device; then once more. Still too big is
            // std::bad_alloc (Python's MemoryError naming the shape), as on every backend.
            wait_for_queue();
            cache_->clear([&](void* q) { api_.hipFree(q); });
            r = attempt();
            if (r == hipErrorOutOfMemory) throw std::bad_alloc();
        }
        check(api_, r, pool_ ? "hipMallocAsync" : "hipMalloc");
    }
    check(api_, api_.hipMemsetD8Async(p, 0, cap, stream_), "hipMemsetD8Async");
    return reinterpret_cast<std::uint64_t>(p);
}

void HipBackend::release_block(std::uint64_t address, std::size_t nbytes) noexcept {
    DeviceScope scope(api_, device_);
    auto* ptr = reinterpret_cast<void*>(address);
    std::size_t cap = gpu::capacity_class(nbytes);
    if (pool_) {
        api_.hipFreeAsync(ptr, stream_);
    } else if (!cache_->give(ptr, cap)) {
        try {
            wait_for_queue();  // hipFree would wait for the device
        } catch (const std::exception&) {
        }
        api_.hipFree(ptr);
    }
}

void HipBackend::copy_in(std::uint64_t dst, const void* src, std::size_t n) {
    if (n == 0) return;
    DeviceScope scope(api_, device_);
    // ROCm 7.1 stages a small pageable write (16 KB) before returning and waits for the stream
    // before a large one (4 MB): either way the array gets what `src` held at the call.
    check(api_,
          api_.hipMemcpyHtoDAsync(reinterpret_cast<void*>(dst), const_cast<void*>(src), n, stream_),
          "hipMemcpyHtoDAsync");
}

void HipBackend::copy_out(void* dst, std::uint64_t src, std::size_t n) {
    // A copy to pageable memory waits inside hipMemcpyAsync holding the stream: wait on an
    // event first, so other threads' launches are not held behind this read.
    wait_for_queue();
    if (n == 0) return;
    DeviceScope scope(api_, device_);
    check(api_, api_.hipMemcpyDtoHAsync(dst, reinterpret_cast<void*>(src), n, stream_),
          "hipMemcpyDtoHAsync");
    wait_for_queue();
}

void HipBackend::copy_block(std::uint64_t dst, std::uint64_t src, std::size_t n) {
    DeviceScope scope(api_, device_);
    check(api_,
          api_.hipMemcpyDtoDAsync(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), n,
                                  stream_),
          "hipMemcpyDtoDAsync");
}

void HipBackend::fill_block(std::uint64_t dst, std::uint32_t pattern, std::size_t elem_size,
                            std::size_t count) {
    DeviceScope scope(api_, device_);
    auto* p = reinterpret_cast<void*>(dst);
    hipError_t r = elem_size == 1 ? api_.hipMemsetD8Async(p, std::uint8_t(pattern), count, stream_)
                   : elem_size == 2
                       ? api_.hipMemsetD16Async(p, std::uint16_t(pattern), count, stream_)
                       : api_.hipMemsetD32Async(p, int(pattern), count, stream_);
    check(api_, r, "hipMemsetAsync");
}

std::optional<std::string> HipBackend::cache_target() const {
    std::string options;
    for (const auto& o : hiprtc_options())
        options += o;
    // A code object is machine code for the architecture it was compiled for (gcnArchName, with
    // its target features); the marketing name alone can cover several.
    return "hip;arch=" + arch_ + ";device=" + device_name_ +
           ";runtime=" + std::to_string(runtime_version_) + ";options=" + options;
}

}  // namespace tack::runtime::hip
