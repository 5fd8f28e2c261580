#include "runtime/hip/hip_backend.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/gpu/pointers.hpp"
#include "runtime/gpu/texture_slot.hpp"
#include "runtime/hip/texture.hpp"
#include "support/env.hpp"

namespace tack::runtime::hip {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

const BackendEntry kEntry{"hip", "HIP", {}, &create};

[[noreturn]] void unavailable(const std::string& why) {
    throw RuntimeError("Cannot initialize 'hip' backend: " + why);
}

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

class HipBuffer final : public Buffer {
  public:
    HipBuffer(std::shared_ptr<HipBackend> b, void* ptr, std::size_t nbytes, bool owned)
        : Buffer(b, reinterpret_cast<std::uint64_t>(ptr), nullptr, nbytes, owned) {}
    ~HipBuffer() override {
        if (owned()) hip().release(reinterpret_cast<void*>(address()), nbytes());
    }
    bool copies_in_queue_order() const override { return true; }
    void write(std::size_t offset, const void* src, std::size_t n) override {
        hip().upload(reinterpret_cast<char*>(address()) + offset, src, n);
    }
    void read(std::size_t offset, void* dst, std::size_t n) const override {
        hip().download(dst, reinterpret_cast<const char*>(address()) + offset, n);
    }
    /// Set only for a texture's storage sampled in hardware (its first texture launch).
    mutable gpu::TextureSlot<HipTexture> texture;

  private:
    HipBackend& hip() const { return static_cast<HipBackend&>(backend()); }
};

std::shared_ptr<Backend> create(const DeviceOptions&) {
    std::string why;
    const HipApi* api = hip_api(&why);
    if (!api) unavailable(why);
    if (hipError_t r = api->hipInit(0)) unavailable("hipInit failed: " + hip_error_name(*api, r));
    hipDevice_t device = 0;
    if (hipError_t r = api->hipGetDevice(&device))
        unavailable("no HIP device (hipGetDevice: " + hip_error_name(*api, r) + ")");
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
        wait("teardown");
    } catch (const std::exception&) {  // an error of a queued launch nobody waited for
    }
    cache_->clear([&](void* p) { api_.hipFree(p); });
}

void HipBackend::wait(const char* what) {
    DeviceScope scope(api_, device_);
    hipEvent_t e = nullptr;
    check(api_, api_.hipEventCreateWithFlags(&e, hipEventBlockingSync | hipEventDisableTiming),
          "hipEventCreateWithFlags");
    hipError_t r = api_.hipEventRecord(e, stream_);
    if (r == hipSuccess) r = api_.hipEventSynchronize(e);
    api_.hipEventDestroy(e);
    check(api_, r, what);
}

void HipBackend::synchronize() {
    wait("a queued launch (hipEventSynchronize)");
}

namespace {

// Through the runtime's C API: hip-python's wrappers hold the GIL while the runtime waits (the
// seed: another task ran 6 times during a 357 ms wait, 1353 times through ctypes).
class HipMark final : public QueueMark {
  public:
    HipMark(std::shared_ptr<HipBackend> b, hipEvent_t e) : b_(std::move(b)), event_(e) {}
    ~HipMark() override { b_->api().hipEventDestroy(event_); }
    void wait() override {
        DeviceScope scope(b_->api(), b_->device());
        check(b_->api(), b_->api().hipEventSynchronize(event_),
              "a queued launch (hipEventSynchronize)");
    }

  private:
    std::shared_ptr<HipBackend> b_;
    hipEvent_t event_;
};

}  // namespace

std::unique_ptr<QueueMark> HipBackend::mark_queue() {
    DeviceScope scope(api_, device_);
    hipEvent_t e = nullptr;
    check(api_, api_.hipEventCreateWithFlags(&e, hipEventBlockingSync | hipEventDisableTiming),
          "hipEventCreateWithFlags");
    if (hipError_t r = api_.hipEventRecord(e, stream_)) {
        api_.hipEventDestroy(e);
        check(api_, r, "hipEventRecord");
    }
    return std::make_unique<HipMark>(std::static_pointer_cast<HipBackend>(shared_from_this()), e);
}

void* HipBackend::allocate(std::size_t nbytes) {
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
            wait("a queued launch (hipEventSynchronize)");
            cache_->clear([&](void* q) { api_.hipFree(q); });
            r = attempt();
            if (r == hipErrorOutOfMemory) throw std::bad_alloc();
        }
        check(api_, r, pool_ ? "hipMallocAsync" : "hipMalloc");
    }
    check(api_, api_.hipMemsetD8Async(p, 0, cap, stream_), "hipMemsetD8Async");
    return p;
}

void HipBackend::release(void* ptr, std::size_t nbytes) {
    DeviceScope scope(api_, device_);
    std::size_t cap = gpu::capacity_class(nbytes);
    if (pool_) {
        api_.hipFreeAsync(ptr, stream_);
    } else if (!cache_->give(ptr, cap)) {
        try {
            wait("a queued launch (hipEventSynchronize)");  // hipFree would wait for the device
        } catch (const std::exception&) {
        }
        api_.hipFree(ptr);
    }
}

void HipBackend::upload(void* dst, const void* src, std::size_t n) {
    if (n == 0) return;
    DeviceScope scope(api_, device_);
    // ROCm 7.1 stages a small pageable write (16 KB) before returning and waits for the stream
    // before a large one (4 MB): either way the array gets what `src` held at the call.
    check(api_, api_.hipMemcpyHtoDAsync(dst, const_cast<void*>(src), n, stream_),
          "hipMemcpyHtoDAsync");
}

void HipBackend::download(void* dst, const void* src, std::size_t n) {
    // A copy to pageable memory waits inside hipMemcpyAsync holding the stream: wait on an
    // event first, so other threads' launches are not held behind this read.
    wait("a queued launch (hipEventSynchronize)");
    if (n == 0) return;
    DeviceScope scope(api_, device_);
    check(api_, api_.hipMemcpyDtoHAsync(dst, const_cast<void*>(src), n, stream_),
          "hipMemcpyDtoHAsync");
    wait("hipMemcpyDtoHAsync");
}

std::shared_ptr<Buffer> HipBackend::allocate_array(std::size_t nbytes) {
    auto self = std::static_pointer_cast<HipBackend>(shared_from_this());
    return std::make_shared<HipBuffer>(self, allocate(nbytes), nbytes, true);
}

hipTextureObject_t HipBackend::texture_object(const Buffer& buffer,
                                              const std::array<std::int64_t, 3>& whd) {
    const auto& b = static_cast<const HipBuffer&>(buffer);  // binds() admitted only ours
    auto* src = reinterpret_cast<void*>(b.address());
    return b.texture
        .get(whd, b.nbytes(),
             [&](const auto& e) { return std::make_unique<HipTexture>(*this, src, e); })
        .object();
}

std::shared_ptr<Buffer> HipBackend::wrap_ptr(void* ptr, std::size_t nbytes) {
    gpu::require_device_pointer(*this, ptr, nbytes);
    auto self = std::static_pointer_cast<HipBackend>(shared_from_this());
    return std::make_shared<HipBuffer>(self, ptr, nbytes, false);
}

bool HipBackend::fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                            std::size_t count) {
    if (count == 0 || (elem_size != 1 && elem_size != 2 && elem_size != 4)) return false;
    DeviceScope scope(api_, device_);
    void* p = reinterpret_cast<void*>(buffer.address());
    std::uint32_t v = 0;
    std::memcpy(&v, pattern, elem_size);
    hipError_t r = elem_size == 1   ? api_.hipMemsetD8Async(p, std::uint8_t(v), count, stream_)
                   : elem_size == 2 ? api_.hipMemsetD16Async(p, std::uint16_t(v), count, stream_)
                                    : api_.hipMemsetD32Async(p, int(v), count, stream_);
    check(api_, r, "hipMemsetAsync");
    if (buffer.shared()) synchronize();  // its owner may read it now
    return true;
}

bool HipBackend::copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) {
    if (nbytes == 0 || &src.backend() != this) return false;
    DeviceScope scope(api_, device_);
    check(api_,
          api_.hipMemcpyDtoDAsync(reinterpret_cast<void*>(dst.address()),
                                  reinterpret_cast<void*>(src.address()), nbytes, stream_),
          "hipMemcpyDtoDAsync");
    if (dst.shared() || src.shared()) synchronize();
    return true;
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

gpu::DeviceBackend::Code HipBackend::load(const std::vector<std::uint8_t>& code,
                                          const std::string& entry, const std::string& kernel) {
    DeviceScope scope(api_, device_);
    hipModule_t module = nullptr;
    if (hipError_t r = api_.hipModuleLoadData(&module, code.data()))
        throw RuntimeError("Kernel '" + kernel +
                           "': hipModuleLoadData failed: " + hip_error_name(api_, r));
    hipFunction_t f = nullptr;
    if (hipError_t r = api_.hipModuleGetFunction(&f, module, entry.c_str())) {
        api_.hipModuleUnload(module);
        throw RuntimeError("Kernel '" + kernel + "': hipModuleGetFunction(" + entry +
                           ") failed: " + hip_error_name(api_, r));
    }
    return {module, f};
}

}  // namespace tack::runtime::hip
