#include "runtime/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "runtime/cuda/nvrtc.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/interruptible_wait.hpp"

namespace tack::runtime::cuda {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

const BackendEntry kEntry{"cuda", {}, &create};

ContextTokens& tokens() {
    static auto* t = new ContextTokens();  // never destroyed: buffers may outlive main()
    return *t;
}

std::shared_ptr<Backend> create(const DeviceOptions&) {
    std::string why;
    const CuApi* api = gpu::load_api<CuApi>(&why);
    if (!api) backend_unavailable("cuda", why);
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
    if (CUresult r = api.cuInit(0))
        backend_unavailable("cuda", "cuInit failed: " + cu_error_name(api, r));
    CUcontext current = nullptr;
    if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        // Adopted: the embedding application owns it (CONTRACT E7: never destroyed).
        check(api, api.cuCtxGetDevice(device), "cuCtxGetDevice");
        return tokens().acquire(current, false, nullptr);
    }
    if (CUresult r = api.cuDeviceGet(device, 0))
        backend_unavailable("cuda", "no CUDA device (cuDeviceGet: " + cu_error_name(api, r) + ")");
    CUcontext primary = nullptr;
    if (CUresult r = api.cuDevicePrimaryCtxRetain(&primary, *device))
        backend_unavailable("cuda", "cuDevicePrimaryCtxRetain failed: " + cu_error_name(api, r));
    const CUdevice d = *device;
    // Each retain is matched by one release; the token shares one retain among backends.
    auto token = tokens().acquire(primary, true,
                                  [&api, d](CUcontext) { api.cuDevicePrimaryCtxRelease_v2(d); });
    // Another backend's token already holds a retain of this context: drop ours.
    if (tokens().holders(primary) > 1) api.cuDevicePrimaryCtxRelease_v2(d);
    return token;
}

ContextScope::ContextScope(const CuApi& api, CUcontext ctx, bool quiet, const char* verb)
    : api_(api) {
    CUcontext current = nullptr;
    if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) return;
    CUresult r = api.cuCtxPushCurrent_v2(ctx);
    pushed_ = r == CUDA_SUCCESS;
    if (quiet) return;
    if (r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_CONTEXT_IS_DESTROYED) {
        throw RuntimeError(std::string("Cannot ") + verb +
                           " this CUDA field: the CUDA context this field was allocated in has "
                           "been destroyed (the application that made it destroyed it while "
                           "Tack was using it; make a new device with tack.init('cuda'))");
    }
    check(api, r, "cuCtxPushCurrent");
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

std::uint64_t CudaBackend::allocate_block(std::size_t nbytes) {
    ContextScope scope(api_, context(), false, "allocate");
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

void CudaBackend::release_block(std::uint64_t ptr, std::size_t) noexcept {
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

void CudaBackend::copy_in(std::uint64_t dst, const void* src, std::size_t n) {
    if (n == 0) return;
    ContextScope scope(api_, context(), false, "write");
    // From pageable memory the driver stages the bytes before returning, so the caller may
    // reuse `src` at once and the copy still runs in order with the launches.
    check(api_, api_.cuMemcpyHtoDAsync_v2(dst, src, n, stream_), "cuMemcpyHtoDAsync");
}

void CudaBackend::copy_out(void* dst, std::uint64_t src, std::size_t n) {
    ContextScope scope(api_, context(), false, "read");
    // Wait first: a copy to pageable memory waits inside the driver with the context held,
    // where no other thread could launch; cuStreamSynchronize holds nothing a launch needs.
    check(api_, api_.cuStreamSynchronize(stream_), "a queued launch (cuStreamSynchronize)");
    if (n == 0) return;
    check(api_, api_.cuMemcpyDtoHAsync_v2(dst, src, n, stream_), "cuMemcpyDtoHAsync");
    check(api_, api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void CudaBackend::synchronize() {
    ContextScope scope(api_, context());
    // A Ctrl-C ends the wait (gpu/interruptible_wait.hpp); asking the stream adds no event.
    gpu::wait_interruptibly([&] { return api_.cuStreamQuery(stream_) != CUDA_ERROR_NOT_READY; });
    CUresult r = api_.cuStreamSynchronize(stream_);
    drain_frees();
    check(api_, r, "a queued launch (cuStreamSynchronize)");
}

// cuda-bindings releases the GIL in cuEventSynchronize: during a 490 ms kernel another task ran
// 436 times awaiting sync_async and 0 times under tack.sync() (the seed).
void* CudaBackend::create_event() {
    ContextScope scope(api_, context());
    CUevent e = nullptr;
    check(api_, api_.cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
    return e;
}

void CudaBackend::record_event(void* event) {
    ContextScope scope(api_, context());
    check(api_, api_.cuEventRecord(static_cast<CUevent>(event), stream_), "cuEventRecord");
}

void CudaBackend::wait_event(void* event) {
    ContextScope scope(api_, context());
    check(api_, api_.cuEventSynchronize(static_cast<CUevent>(event)),
          "a queued launch (cuEventSynchronize)");
}

bool CudaBackend::event_done(void* event) {
    ContextScope scope(api_, context());
    return api_.cuEventQuery(static_cast<CUevent>(event)) != CUDA_ERROR_NOT_READY;
}

void CudaBackend::destroy_event(void* event) noexcept {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuEventDestroy_v2(static_cast<CUevent>(event));
}

std::shared_ptr<Buffer> CudaBackend::allocate_exportable(std::size_t nbytes) {
    CUdeviceptr ptr = 0;
    auto vmm = map_exportable(nbytes, &ptr);
    return device_buffer(ptr, nbytes, true, std::move(vmm));
}

std::shared_ptr<VmmAllocation> CudaBackend::allocation_of(const Buffer& buffer) const {
    return std::static_pointer_cast<VmmAllocation>(owner_of(buffer));  // only VMM owners here
}

void CudaBackend::fill_block(std::uint64_t dst, std::uint32_t pattern, std::size_t elem_size,
                             std::size_t count) {
    ContextScope scope(api_, context(), false, "fill");
    CUresult r = elem_size == 1 ? api_.cuMemsetD8Async(dst, std::uint8_t(pattern), count, stream_)
                 : elem_size == 2
                     ? api_.cuMemsetD16Async(dst, std::uint16_t(pattern), count, stream_)
                     : api_.cuMemsetD32Async(dst, pattern, count, stream_);
    check(api_, r, "cuMemsetAsync");
}

std::string CudaBackend::runtime_version() const {
    return std::to_string(driver_version_ / 1000) + "." +
           std::to_string(driver_version_ % 1000 / 10);
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

void CudaBackend::copy_block(std::uint64_t dst, std::uint64_t src, std::size_t n) {
    ContextScope scope(api_, context());
    check(api_, api_.cuMemcpyDtoDAsync_v2(dst, src, n, stream_), "cuMemcpyDtoDAsync");
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

}  // namespace tack::runtime::cuda
