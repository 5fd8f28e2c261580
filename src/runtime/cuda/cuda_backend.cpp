#include "runtime/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "runtime/cuda/nvrtc.hpp"
#include "runtime/cuda/texture.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/pointers.hpp"
#include "runtime/gpu/texture_slot.hpp"

namespace tack::runtime::cuda {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

const BackendEntry kEntry{"cuda", "CUDA", {}, &create};

[[noreturn]] void unavailable(const std::string& why) {
    throw RuntimeError("Cannot initialize 'cuda' backend: " + why);
}

ContextTokens& tokens() {
    static auto* t = new ContextTokens();  // never destroyed: buffers may outlive main()
    return *t;
}

/// Device memory in the backend's context; a wrapped pointer is never freed and is shared. An
/// exportable array's memory is a VMM allocation, released with the last of the array and its
/// exports.
class CuBuffer final : public Buffer {
  public:
    CuBuffer(std::shared_ptr<CudaBackend> b, CUdeviceptr ptr, std::size_t nbytes, bool owned,
             std::shared_ptr<VmmAllocation> vmm = nullptr)
        : Buffer(b, ptr, nullptr, nbytes, owned), vmm(std::move(vmm)) {}
    ~CuBuffer() override {
        if (owned() && !vmm) cuda().free(address());
    }
    const std::shared_ptr<VmmAllocation> vmm;
    bool copies_in_queue_order() const override { return true; }
    void write(std::size_t offset, const void* src, std::size_t n) override {
        cuda().upload(address() + offset, src, n);
    }
    void read(std::size_t offset, void* dst, std::size_t n) const override {
        cuda().download(dst, address() + offset, n);
    }
    /// Set only for a texture's storage sampled in hardware (its first texture launch).
    mutable gpu::TextureSlot<CuTexture> texture;

  private:
    CudaBackend& cuda() const { return static_cast<CudaBackend&>(backend()); }
};

std::shared_ptr<Backend> create(const DeviceOptions&) {
    std::string why;
    const CuApi* api = cu_api(&why);
    if (!api) unavailable(why);
    CUdevice device = 0;
    auto token = open_context(*api, &device);
    return std::make_shared<CudaBackend>(*api, device, std::move(token));
}

int attribute(const CuApi& api, int attr, CUdevice d) {
    int v = 0;
    check(api, api.cuDeviceGetAttribute(&v, attr, d), "cuDeviceGetAttribute");
    return v;
}

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

std::shared_ptr<ContextToken> open_context(const CuApi& api, CUdevice* device) {
    if (CUresult r = api.cuInit(0)) unavailable("cuInit failed: " + cu_error_name(api, r));
    CUcontext current = nullptr;
    if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        // Adopted: the embedding application owns it (CONTRACT E7: never destroyed).
        check(api, api.cuCtxGetDevice(device), "cuCtxGetDevice");
        return tokens().acquire(current, false, nullptr);
    }
    if (CUresult r = api.cuDeviceGet(device, 0))
        unavailable("no CUDA device (cuDeviceGet: " + cu_error_name(api, r) + ")");
    CUcontext primary = nullptr;
    if (CUresult r = api.cuDevicePrimaryCtxRetain(&primary, *device))
        unavailable("cuDevicePrimaryCtxRetain failed: " + cu_error_name(api, r));
    const CUdevice d = *device;
    // Each retain is matched by one release; the token shares one retain among backends.
    auto token = tokens().acquire(primary, true,
                                  [&api, d](CUcontext) { api.cuDevicePrimaryCtxRelease_v2(d); });
    // Another backend's token already holds a retain of this context: drop ours.
    if (tokens().holders(primary) > 1) api.cuDevicePrimaryCtxRelease_v2(d);
    return token;
}

ContextScope::ContextScope(const CuApi& api, CUcontext ctx, bool quiet) : api_(api) {
    CUcontext current = nullptr;
    if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) return;
    CUresult r = api.cuCtxPushCurrent_v2(ctx);
    pushed_ = r == CUDA_SUCCESS;
    if (!quiet) check(api, r, "cuCtxPushCurrent");
}

ContextScope::~ContextScope() {
    CUcontext popped = nullptr;
    if (pushed_) api_.cuCtxPopCurrent_v2(&popped);
}

CudaBackend::CudaBackend(const CuApi& api, CUdevice device, std::shared_ptr<ContextToken> token)
    : api_(api), device_(device), token_(std::move(token)) {
    ContextScope scope(api_, context());
    {
        std::lock_guard guard(token_->state_mutex());
        ContextState& s = token_->state();
        if (!s.stream) check(api_, api_.cuStreamCreate(&s.stream, 0), "cuStreamCreate");
        stream_ = s.stream;
    }
    char name[256] = {};
    api_.cuDeviceGetName(name, sizeof name, device_);
    device_name_ = name;
    cc_major_ = attribute(api_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_);
    cc_minor_ = attribute(api_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_);
    api_.cuDriverGetVersion(&driver_version_);
    max_texture_3d_ =
        std::min({attribute(api_, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, device_),
                  attribute(api_, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, device_),
                  attribute(api_, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, device_)});
    // D10: gridDim.x blocks of 256 threads.
    auto grid =
        static_cast<std::uint64_t>(attribute(api_, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, device_));
    geometry_ = {"CUDA", gpu::kCollectiveLanes, grid * gpu::kCollectiveLanes};
    CUmemoryPool pool = nullptr;
    pools_ = api_.cuMemAllocAsync && api_.cuMemFreeAsync && api_.cuDeviceGetDefaultMemPool &&
             attribute(api_, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device_) &&
             api_.cuDeviceGetDefaultMemPool(&pool, device_) == CUDA_SUCCESS;
    if (pools_) {
        std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
        api_.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
    }
}

CudaBackend::~CudaBackend() {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuStreamSynchronize(stream_);
    drain_frees();
}

CUdeviceptr CudaBackend::allocate(std::size_t nbytes) {
    ContextScope scope(api_, context());
    std::size_t n = nbytes ? nbytes : 1;
    CUdeviceptr p = 0;
    auto attempt = [&] {
        if (pools_) return api_.cuMemAllocAsync(&p, n, stream_);
        if (frees_.pending() && api_.cuStreamSynchronize(stream_) == CUDA_SUCCESS) drain_frees();
        return api_.cuMemAlloc_v2(&p, n);
    };
    CUresult r = attempt();
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        // Memory freed in stream order returns to the pool once the stream has run past the
        // free: wait, then try once more. Still too big is std::bad_alloc (Python's MemoryError
        // naming the shape), as on every backend.
        check(api_, api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
        drain_frees();
        r = attempt();
        if (r == CUDA_ERROR_OUT_OF_MEMORY) throw std::bad_alloc();
    }
    check(api_, r, pools_ ? "cuMemAllocAsync" : "cuMemAlloc");
    check(api_, api_.cuMemsetD8Async(p, 0, n, stream_), "cuMemsetD8Async");  // zero-filled
    return p;
}

void CudaBackend::free(CUdeviceptr ptr) {
    if (pools_) {
        ContextScope scope(api_, context(), /*quiet=*/true);
        api_.cuMemFreeAsync(ptr, stream_);  // after the launches queued on it
    } else {
        frees_.defer(ptr);  // cuMemFree waits for the device: freed at the next wait
    }
}

void CudaBackend::drain_frees() {
    frees_.drain([&](CUdeviceptr p) { api_.cuMemFree_v2(p); });
}

void CudaBackend::upload(CUdeviceptr dst, const void* src, std::size_t n) {
    if (n == 0) return;
    ContextScope scope(api_, context());
    // From pageable memory the driver stages the bytes before returning, so the caller may
    // reuse `src` at once and the copy still runs in order with the launches.
    check(api_, api_.cuMemcpyHtoDAsync_v2(dst, src, n, stream_), "cuMemcpyHtoDAsync");
}

void CudaBackend::download(void* dst, CUdeviceptr src, std::size_t n) {
    ContextScope scope(api_, context());
    // Wait first: a copy to pageable memory waits inside the driver with the context held,
    // where no other thread could launch; cuStreamSynchronize holds nothing a launch needs.
    check(api_, api_.cuStreamSynchronize(stream_), "a queued launch (cuStreamSynchronize)");
    if (n == 0) return;
    check(api_, api_.cuMemcpyDtoHAsync_v2(dst, src, n, stream_), "cuMemcpyDtoHAsync");
    check(api_, api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void CudaBackend::synchronize() {
    ContextScope scope(api_, context());
    CUresult r = api_.cuStreamSynchronize(stream_);
    drain_frees();
    check(api_, r, "a queued launch (cuStreamSynchronize)");
}

namespace {

// cuda-bindings releases the GIL in cuEventSynchronize: during a 490 ms kernel another task ran
// 436 times awaiting sync_async and 0 times under tack.sync() (the seed).
class CuMark final : public QueueMark {
  public:
    CuMark(std::shared_ptr<CudaBackend> b, CUevent e) : b_(std::move(b)), event_(e) {}
    ~CuMark() override {
        ContextScope scope(b_->api(), b_->context(), /*quiet=*/true);
        b_->api().cuEventDestroy_v2(event_);
    }
    void wait() override {
        ContextScope scope(b_->api(), b_->context());
        check(b_->api(), b_->api().cuEventSynchronize(event_),
              "a queued launch (cuEventSynchronize)");
    }

  private:
    std::shared_ptr<CudaBackend> b_;
    CUevent event_;
};

}  // namespace

std::unique_ptr<QueueMark> CudaBackend::mark_queue() {
    ContextScope scope(api_, context());
    CUevent e = nullptr;
    check(api_, api_.cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
    if (CUresult r = api_.cuEventRecord(e, stream_)) {
        api_.cuEventDestroy_v2(e);
        check(api_, r, "cuEventRecord");
    }
    return std::make_unique<CuMark>(std::static_pointer_cast<CudaBackend>(shared_from_this()), e);
}

std::shared_ptr<Buffer> CudaBackend::allocate_array(std::size_t nbytes) {
    auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
    return std::make_shared<CuBuffer>(self, allocate(nbytes), nbytes, true);
}

std::shared_ptr<Buffer> CudaBackend::allocate_exportable(std::size_t nbytes) {
    auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
    CUdeviceptr ptr = 0;
    auto vmm = map_exportable(nbytes, &ptr);
    return std::make_shared<CuBuffer>(self, ptr, nbytes, true, std::move(vmm));
}

std::shared_ptr<VmmAllocation> CudaBackend::allocation_of(const Buffer& buffer) const {
    return static_cast<const CuBuffer&>(buffer).vmm;  // export_memory takes only ours
}

CUtexObject CudaBackend::texture_object(const Buffer& buffer,
                                        const std::array<std::int64_t, 3>& whd) {
    const auto& b = static_cast<const CuBuffer&>(buffer);  // binds() admitted only ours
    return b.texture
        .get(whd, b.nbytes(),
             [&](const auto& e) { return std::make_unique<CuTexture>(*this, b.address(), e); })
        .object();
}

std::shared_ptr<Buffer> CudaBackend::wrap_ptr(void* ptr, std::size_t nbytes) {
    gpu::require_device_pointer(*this, ptr, nbytes);
    auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
    return std::make_shared<CuBuffer>(self, reinterpret_cast<CUdeviceptr>(ptr), nbytes, false);
}

bool CudaBackend::fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                             std::size_t count) {
    if (count == 0) return false;
    ContextScope scope(api_, context());
    CUdeviceptr p = buffer.address();
    if (elem_size == 1) {
        check(api_,
              api_.cuMemsetD8Async(p, *static_cast<const std::uint8_t*>(pattern), count, stream_),
              "cuMemsetD8Async");
    } else if (elem_size == 2) {
        std::uint16_t v;
        std::memcpy(&v, pattern, 2);
        check(api_, api_.cuMemsetD16Async(p, v, count, stream_), "cuMemsetD16Async");
    } else if (elem_size == 4) {
        std::uint32_t v;
        std::memcpy(&v, pattern, 4);
        check(api_, api_.cuMemsetD32Async(p, v, count, stream_), "cuMemsetD32Async");
    } else {
        return false;  // 8-byte patterns are written through the buffer
    }
    if (buffer.shared()) synchronize();  // another library may read it now
    return true;
}

std::string CudaBackend::memory_space(std::uint64_t address) const {
    ContextScope scope(api_, context(), /*quiet=*/true);
    unsigned type = 0;
    if (api_.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address) !=
        CUDA_SUCCESS)
        return "cpu";  // pageable host memory, or no allocation the driver knows
    int managed = 0;
    api_.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, address);
    if (managed) return "cuda_managed";
    return type == CU_MEMORYTYPE_HOST ? "cuda_pinned" : "cuda";
}

bool CudaBackend::copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) {
    if (nbytes == 0 || &src.backend() != this) return false;
    ContextScope scope(api_, context());
    check(api_, api_.cuMemcpyDtoDAsync_v2(dst.address(), src.address(), nbytes, stream_),
          "cuMemcpyDtoDAsync");
    if (dst.shared() || src.shared()) synchronize();
    return true;
}

std::optional<std::string> CudaBackend::cache_target() const {
    std::string options;
    for (const char* o : nvrtc_options())
        options += std::string(options.empty() ? "" : " ") + o;
    // The PTX depends on NVRTC and its options only; the device is named so a cached module
    // is JIT-compiled for the architecture it was made on.
    return "cuda;sm=" + std::to_string(cc_major_) + std::to_string(cc_minor_) +
           ";device=" + device_name_ + ";driver=" + std::to_string(driver_version_) +
           ";nvrtc=" + nvrtc_version() + ";options=" + options;
}

gpu::DeviceBackend::Code CudaBackend::load(const std::vector<std::uint8_t>& code,
                                           const std::string& entry, const std::string& kernel) {
    std::string ptx(code.begin(), code.end());  // NUL-terminated for the driver
    ContextScope scope(api_, context());
    CUmodule module = nullptr;
    if (CUresult r = api_.cuModuleLoadData(&module, ptx.c_str()))
        throw RuntimeError("Kernel '" + kernel +
                           "': cuModuleLoadData failed: " + cu_error_name(api_, r));
    CUfunction f = nullptr;
    if (CUresult r = api_.cuModuleGetFunction(&f, module, entry.c_str())) {
        api_.cuModuleUnload(module);
        throw RuntimeError("Kernel '" + kernel + "': cuModuleGetFunction(" + entry +
                           ") failed: " + cu_error_name(api_, r));
    }
    return {module, f};
}

}  // namespace tack::runtime::cuda
