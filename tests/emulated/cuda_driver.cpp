// An emulated CUDA driver (libcuda.so.1's entry points Tack calls, declared by the toolkit's own
// cuda.h): one device of compute capability 9.0 whose kernels run on the CPU (engine.hpp). It
// checks what the real driver checks and fails where it would: cuInit first, a context current
// on the calling thread, handles that are live and of that context, copies and fills inside
// live allocations, launch limits, every pointer argument inside a live allocation, and PTX that
// ptxas accepts for sm_90 (the driver's JIT).
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>

#include "engine.hpp"

using tack_emu::complain;
using tack_emu::Memory;
using tack_emu::Textures;

struct CUctx_st {
    bool primary;
};
struct CUstream_st {
    CUctx_st* ctx;
    tack_emu::Stream queue;
};
struct CUmod_st {
    CUctx_st* ctx;
    std::unique_ptr<tack_emu::Module> module;
    std::string ptx;
};
struct CUfunc_st {
    CUmod_st* module;
    const tack_emu::Function* function;
};
struct CUevent_st {
    CUstream_st* stream = nullptr;
    std::uint64_t sequence = 0;
};
struct CUmemPoolHandle_st {};
struct CUgraph_st {
    CUctx_st* ctx;
    tack_emu::Graph graph;
};
struct CUgraphExec_st {
    CUctx_st* ctx;
    tack_emu::Graph::Exec exec;
};
struct CUarray_st {};  // handles are tack_emu::Array3D*, cast

namespace {

std::atomic<bool> g_initialized{false};
CUctx_st g_primary{true};
int g_primary_retains = 0;
std::mutex g_mutex;  // the context set
std::set<const void*> g_contexts = {&g_primary};
tack_emu::Handles<CUstream_st> g_streams;
tack_emu::Handles<CUmod_st> g_modules;
tack_emu::Handles<CUfunc_st> g_functions;
tack_emu::Handles<CUevent_st> g_events;
CUmemPoolHandle_st g_pool;
thread_local std::vector<CUctx_st*> t_stack;  // the thread's context stack; back() is current

bool live(const std::set<const void*>& set, const void* h) {
    std::lock_guard lock(g_mutex);
    return set.count(h) == 1;
}
void add(std::set<const void*>& set, const void* h) {
    std::lock_guard lock(g_mutex);
    set.insert(h);
}
void remove(std::set<const void*>& set, const void* h) {
    std::lock_guard lock(g_mutex);
    set.erase(h);
}

CUctx_st* current() {
    return t_stack.empty() ? nullptr : t_stack.back();
}

// Most calls need cuInit and a current context.
#define NEED_CONTEXT()                                         \
    do {                                                       \
        if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED; \
        if (!current()) return CUDA_ERROR_INVALID_CONTEXT;     \
    } while (0)

CUresult refuse(CUresult r, const std::string& what) {
    complain(what);
    return r;
}

// Stream 0 (the legacy default stream) of the one device.
tack_emu::Stream& default_stream() {
    static auto* s = new tack_emu::Stream();
    return *s;
}

CUresult queue_of(CUstream s, tack_emu::Stream** out) {
    if (!s) {
        *out = &default_stream();
        return CUDA_SUCCESS;
    }
    if (!g_streams.live(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (s->ctx != current()) return refuse(CUDA_ERROR_INVALID_HANDLE, "stream of another context");
    *out = &s->queue;
    return CUDA_SUCCESS;
}

void* dptr(CUdeviceptr p) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

CUresult need_range(CUdeviceptr p, std::size_t bytes, const char* what) {
    if (Memory::get().contains(dptr(p), bytes)) return CUDA_SUCCESS;
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  std::string(what) + ": " + std::to_string(bytes) +
                      " bytes at a device address outside every live allocation");
}

template <class T>
CUresult fill(CUdeviceptr p, T value, std::size_t count, CUstream s, const char* what) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (CUresult r = need_range(p, count * sizeof(T), what)) return r;
    auto op = tack_emu::fill_op(dptr(p), unsigned(value), sizeof(T), count);
    q->enqueue([op, q] { op(*q); });
    return CUDA_SUCCESS;
}

constexpr std::size_t kGranularity = std::size_t(2) << 20;

struct VmmHandle {
    int fd;
    std::size_t size;
};

}  // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    g_initialized = true;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* v) {
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char** name) {
    static const std::pair<CUresult, const char*> kNames[] = {
        {CUDA_SUCCESS, "CUDA_SUCCESS"},
        {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
        {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
        {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
        {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
        {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
        {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
        {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
        {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
        {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
        {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
        {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
        {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
    };
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    for (auto [code, text] : kNames)
        if (code == r) {
            *name = text;
            return CUDA_SUCCESS;
        }
    *name = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::snprintf(name, std::size_t(len), "%s", "Tack emulated CUDA device (sm_90)");
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute attr, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (attr) {
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
            *v = int(tack_emu::kMaxGridX);
            break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
            *v = int(tack_emu::kMaxBlock);
            break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
            *v = 9;
            break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
            *v = 0;
            break;
        case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
            *v = tack_emu::feature_on("TACK_EMU_MEMORY_POOLS");
            break;
        case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
        case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
        case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
            *v = int(tack_emu::kMaxTexture3D);
            break;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
            *v = 32;
            break;
        default:
            return refuse(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute: attribute " +
                                                        std::to_string(int(attr)) +
                                                        " is not emulated");
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::memcpy(uuid->bytes, "tack-emulated-gp", 16);
    return CUDA_SUCCESS;
}

// --- contexts ---------------------------------------------------------------------------------

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard lock(g_mutex);
    ++g_primary_retains;
    *ctx = &g_primary;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard lock(g_mutex);
    if (g_primary_retains == 0) {
        complain("cuDevicePrimaryCtxRelease without a retain");
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    --g_primary_retains;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    *ctx = current();
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx && !live(g_contexts, ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    if (t_stack.empty())
        t_stack.push_back(ctx);
    else
        t_stack.back() = ctx;
    if (!ctx) t_stack.pop_back();
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* d) {
    NEED_CONTEXT();
    *d = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx || !live(g_contexts, ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    t_stack.push_back(ctx);
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext* ctx) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (t_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx) *ctx = t_stack.back();
    t_stack.pop_back();
    return CUDA_SUCCESS;
}

// The legacy cuCtxCreate_v2 / cuCtxDestroy_v2 (cuda.h maps cuCtxCreate to _v4 since CUDA 12):
// a context the application makes, current on the calling thread.
CUresult tack_emu_ctx_create(CUcontext* ctx, unsigned, CUdevice d) __asm__("cuCtxCreate_v2");
CUresult tack_emu_ctx_create(CUcontext* ctx, unsigned, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    auto* c = new CUctx_st{false};
    add(g_contexts, c);
    t_stack.push_back(c);
    *ctx = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx) {
    if (!ctx || ctx == &g_primary || !live(g_contexts, ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    remove(g_contexts, ctx);
    for (auto& c : t_stack)
        if (c == ctx) c = nullptr;
    while (!t_stack.empty() && !t_stack.back())
        t_stack.pop_back();
    delete ctx;
    return CUDA_SUCCESS;
}

// --- streams and events -----------------------------------------------------------------------

CUresult cuStreamCreate(CUstream* s, unsigned flags) {
    NEED_CONTEXT();
    auto* stream = new CUstream_st{current(), {}};
    g_streams.add(stream);
    *s = stream;
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    q->wait();
    return CUresult(q->take_failure());
}

// Tests ask whether a launch had completed when it returned (a texture's, a shared buffer's).
CUresult cuStreamQuery(CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    return q->done(q->mark()) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventCreate(CUevent* e, unsigned flags) {
    NEED_CONTEXT();
    auto* event = new CUevent_st{};
    g_events.add(event);
    *e = event;
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s) {
    NEED_CONTEXT();
    if (!g_events.live(e)) return CUDA_ERROR_INVALID_HANDLE;
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    e->stream = s;
    e->sequence = q->mark();
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e) {
    NEED_CONTEXT();
    if (!g_events.live(e)) return CUDA_ERROR_INVALID_HANDLE;
    if (e->sequence == 0) return CUDA_SUCCESS;  // never recorded
    tack_emu::Stream* q;
    if (CUresult r = queue_of(e->stream, &q)) return r;
    q->wait_for(e->sequence);
    return CUresult(q->take_failure());
}

CUresult cuEventQuery(CUevent e) {
    NEED_CONTEXT();
    if (!g_events.live(e)) return CUDA_ERROR_INVALID_HANDLE;
    if (e->sequence == 0) return CUDA_SUCCESS;  // never recorded
    tack_emu::Stream* q;
    if (CUresult r = queue_of(e->stream, &q)) return r;
    return q->done(e->sequence) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventDestroy(CUevent e) {
    return g_events.destroy(e) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// --- memory -----------------------------------------------------------------------------------

CUresult cuMemAlloc(CUdeviceptr* p, std::size_t bytes) {
    NEED_CONTEXT();
    if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    void* m = Memory::get().allocate(bytes);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<std::uintptr_t>(m);
    return CUDA_SUCCESS;
}

// cuMemFree waits for the work queued on the device: the memory is then unused.
CUresult cuMemFree(CUdeviceptr p) {
    NEED_CONTEXT();
    default_stream().wait();
    for (CUstream_st* s : g_streams.all())
        s->queue.wait();
    if (!Memory::get().release(dptr(p)))
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemFree of an address that is no allocation");
    return CUDA_SUCCESS;
}

CUresult cuMemAllocAsync(CUdeviceptr* p, std::size_t bytes, CUstream s) {
    NEED_CONTEXT();
    if (!tack_emu::feature_on("TACK_EMU_MEMORY_POOLS"))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuMemAllocAsync on a device without memory pools");
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    void* m = Memory::get().allocate(bytes);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<std::uintptr_t>(m);
    return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (!Memory::get().contains(dptr(p), 0))
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cuMemFreeAsync of an address that is no allocation");
    q->enqueue([p] {
        if (!Memory::get().release(dptr(p))) complain("cuMemFreeAsync: freed twice");
    });
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *pool = &g_pool;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute, void* value) {
    return pool == &g_pool && value ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t n, CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (CUresult r = need_range(dst, n, "cuMemcpyHtoDAsync")) return r;
    // Pageable host memory is staged at the call: the caller may reuse it on return.
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + n);
    q->enqueue([=] { std::memcpy(dptr(dst), staged->data(), n); });
    return CUDA_SUCCESS;
}

// Into pageable host memory the copy completes before the call returns.
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t n, CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (CUresult r = need_range(src, n, "cuMemcpyDtoHAsync")) return r;
    q->enqueue([=] { std::memcpy(dst, dptr(src), n); });
    q->wait();
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    if (CUresult r = need_range(src, n, "cuMemcpyDtoDAsync (source)")) return r;
    if (CUresult r = need_range(dst, n, "cuMemcpyDtoDAsync (destination)")) return r;
    q->enqueue([=] { std::memmove(dptr(dst), dptr(src), n); });
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, std::size_t n, CUstream s) {
    return fill(p, v, n, s, "cuMemsetD8Async");
}
CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short v, std::size_t n, CUstream s) {
    return fill(p, v, n, s, "cuMemsetD16Async");
}
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, std::size_t n, CUstream s) {
    return fill(p, v, n, s, "cuMemsetD32Async");
}

// Pinned host memory and managed memory: the same mappings, told apart by the pointer
// attributes (memory_space).
CUresult cuMemAllocHost(void** p, std::size_t bytes) {
    NEED_CONTEXT();
    if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    *p = Memory::get().allocate(bytes, Memory::Kind::Pinned);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void* p) {
    NEED_CONTEXT();
    if (!Memory::get().contains(p, 0) || Memory::get().kind_of(p) != Memory::Kind::Pinned)
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cuMemFreeHost of memory cuMemAllocHost did not make");
    Memory::get().release(p);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr* p, std::size_t bytes, unsigned) {
    NEED_CONTEXT();
    if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    void* m = Memory::get().allocate(bytes, Memory::Kind::Managed);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<std::uintptr_t>(m);
    return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void* out, CUpointer_attribute attr, CUdeviceptr p) {
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    // Host memory the driver did not allocate or register is unknown to it.
    if (!Memory::get().contains(dptr(p), 0)) return CUDA_ERROR_INVALID_VALUE;
    const Memory::Kind kind = Memory::get().kind_of(dptr(p));
    switch (attr) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *static_cast<unsigned*>(out) =
                kind == Memory::Kind::Pinned ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
            return CUDA_SUCCESS;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *static_cast<int*>(out) = kind == Memory::Kind::Managed;
            return CUDA_SUCCESS;
        default:
            return CUDA_ERROR_INVALID_VALUE;
    }
}

// --- the virtual memory management API (export_memory) ----------------------------------------

CUresult cuMemGetAllocationGranularity(std::size_t* g, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags) {
    if (!g || !prop) return CUDA_ERROR_INVALID_VALUE;
    *g = kGranularity;
    return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* h, std::size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags) {
    NEED_CONTEXT();
    if (size == 0 || size % kGranularity != 0)
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cuMemCreate: size not a multiple of the granularity");
    if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    int fd = memfd_create("tack-emu-vmm", 0);
    if (fd < 0 || ftruncate(fd, off_t(size)) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    *h = reinterpret_cast<std::uintptr_t>(new VmmHandle{fd, size});
    return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr* p, std::size_t size, std::size_t, CUdeviceptr,
                             unsigned long long) {
    NEED_CONTEXT();
    void* m = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<std::uintptr_t>(m);
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr p, std::size_t size, std::size_t offset,
                  CUmemGenericAllocationHandle h, unsigned long long) {
    NEED_CONTEXT();
    auto* vmm = reinterpret_cast<VmmHandle*>(h);
    if (offset + size > vmm->size) return CUDA_ERROR_INVALID_VALUE;
    void* m =
        mmap(dptr(p), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, vmm->fd, off_t(offset));
    if (m == MAP_FAILED) return CUDA_ERROR_INVALID_VALUE;
    Memory::get().adopt(m, size);
    return CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr p, std::size_t size, const CUmemAccessDesc*, std::size_t n) {
    NEED_CONTEXT();
    return n >= 1 && Memory::get().contains(dptr(p), size) ? CUDA_SUCCESS
                                                           : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemExportToShareableHandle(void* out, CUmemGenericAllocationHandle h,
                                      CUmemAllocationHandleType type, unsigned long long) {
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
    *static_cast<int*>(out) = dup(reinterpret_cast<VmmHandle*>(h)->fd);
    return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr p, std::size_t size) {
    NEED_CONTEXT();
    if (!Memory::get().forget(dptr(p))) return CUDA_ERROR_INVALID_VALUE;
    mmap(dptr(p), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr p, std::size_t size) {
    return munmap(dptr(p), size) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
    auto* vmm = reinterpret_cast<VmmHandle*>(h);
    close(vmm->fd);  // a mapping keeps the memory until it is unmapped
    delete vmm;
    return CUDA_SUCCESS;
}

// --- modules and launches ---------------------------------------------------------------------

CUresult cuModuleLoadData(CUmodule* out, const void* image) {
    NEED_CONTEXT();
    const char* ptx = static_cast<const char*>(image);
    if (!ptx || std::strncmp(ptx, "//", 2) != 0 || !std::strstr(ptx, ".version"))
        return refuse(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: the image is not PTX text");
    std::string why, source;
    // The driver JIT-compiles PTX for the device: ptxas for sm_90 checks it the same way.
    if (!tack_emu::cached_check("ptxas sm_90", {TACK_EMU_PTXAS, "-arch=sm_90", "-o", "/dev/null"},
                                ptx, &why))
        return refuse(CUDA_ERROR_INVALID_PTX, "ptxas rejected the module:\n" + why);
    if (!tack_emu::source_from_ptx(ptx, &source, &why)) return refuse(CUDA_ERROR_INVALID_PTX, why);
    auto module = tack_emu::Module::load(source, &why);
    if (!module) return refuse(CUDA_ERROR_INVALID_PTX, why);
    auto* m = new CUmod_st{current(), std::move(module), ptx};
    g_modules.add(m);
    *out = m;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    NEED_CONTEXT();
    if (!g_modules.live(m)) return CUDA_ERROR_INVALID_HANDLE;
    // The entry must be in the PTX, as the driver sees it, and in the module that runs.
    std::string entry = std::string(".entry ") + name + "(";
    const tack_emu::Function* fn = m->module->function(name);
    if (m->ptx.find(entry) == std::string::npos || !fn) return CUDA_ERROR_NOT_FOUND;
    auto* h = new CUfunc_st{m, fn};
    g_functions.add(h);
    *f = h;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) {
    if (!g_modules.live(m)) return CUDA_ERROR_INVALID_HANDLE;
    g_functions.destroy_if([m](const CUfunc_st& f) { return f.module == m; });
    g_modules.destroy(m);
    return CUDA_SUCCESS;
}

}  // extern "C"

namespace {

// A launch checked as cuLaunchKernel checks it, its arguments copied: the operation to queue
// (now, or as a graph's kernel node).
CUresult kernel_op(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void** params, void** extra, const char* what,
                   tack_emu::Graph::Op* op) {
    if (!g_functions.live(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (f->module->ctx != current())
        return refuse(CUDA_ERROR_INVALID_HANDLE, std::string(what) +
                                                     ": the function's module belongs to "
                                                     "another context than the current one");
    if (std::string no = tack_emu::unsupported_launch(gy, gz, by, bz, extra); !no.empty())
        return refuse(CUDA_ERROR_NOT_SUPPORTED, std::string(what) + ": " + no);
    if (std::uint64_t(bx) > tack_emu::kMaxBlock) return CUDA_ERROR_INVALID_VALUE;
    std::string why =
        tack_emu::launch_op(f->function, gx, bx, shared, params, CUDA_ERROR_LAUNCH_FAILED, op);
    return why.empty() ? CUDA_SUCCESS
                       : refuse(CUDA_ERROR_INVALID_VALUE, std::string(what) + ": " + why);
}

tack_emu::Handles<CUgraph_st> g_graphs;
tack_emu::Handles<CUgraphExec_st> g_execs;

CUresult add_node(CUgraphNode* out, CUgraph g, const CUgraphNode* deps, std::size_t n,
                  tack_emu::Graph::Op op, const char* what) {
    std::string why;
    *out = static_cast<CUgraphNode>(g->graph.add(std::move(op), deps, n, &why));
    return *out ? CUDA_SUCCESS : refuse(CUDA_ERROR_INVALID_VALUE, std::string(what) + ": " + why);
}

}  // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void** params,
                        void** extra) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    tack_emu::Graph::Op op;
    if (CUresult r =
            kernel_op(f, gx, gy, gz, bx, by, bz, shared, params, extra, "cuLaunchKernel", &op))
        return r;
    if (CUresult r = queue_of(s, &q)) return r;
    q->enqueue([op, q] { op(*q); });
    return CUDA_SUCCESS;
}

// --- graphs: built node by node (runtime/gpu/device_backend.cpp), launched on a stream ------

CUresult cuGraphCreate(CUgraph* out, unsigned flags) {
    NEED_CONTEXT();
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    *out = g_graphs.add(new CUgraph_st{current(), {}});
    return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode(CUgraphNode* out, CUgraph g, const CUgraphNode* deps, std::size_t n,
                              const CUDA_KERNEL_NODE_PARAMS* p) {
    NEED_CONTEXT();
    if (!g_graphs.live(g)) return CUDA_ERROR_INVALID_HANDLE;
    if (!p->func) return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuGraphAddKernelNode: CUkernel nodes");
    tack_emu::Graph::Op op;
    if (CUresult r = kernel_op(p->func, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                               p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->kernelParams,
                               p->extra, "cuGraphAddKernelNode", &op))
        return r;
    return add_node(out, g, deps, n, std::move(op), "cuGraphAddKernelNode");
}

CUresult cuGraphAddMemsetNode(CUgraphNode* out, CUgraph g, const CUgraphNode* deps, std::size_t n,
                              const CUDA_MEMSET_NODE_PARAMS* p, CUcontext ctx) {
    NEED_CONTEXT();
    if (!g_graphs.live(g) || !live(g_contexts, ctx)) return CUDA_ERROR_INVALID_HANDLE;
    if (p->height != 1)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuGraphAddMemsetNode: one row only");
    unsigned elem = p->elementSize;
    if (elem != 1 && elem != 2 && elem != 4) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = need_range(p->dst, p->width * elem, "cuGraphAddMemsetNode")) return r;
    auto op = tack_emu::fill_op(dptr(p->dst), p->value, elem, p->width);
    return add_node(out, g, deps, n, std::move(op), "cuGraphAddMemsetNode");
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* out, CUgraph g, unsigned long long flags) {
    NEED_CONTEXT();
    if (!g_graphs.live(g)) return CUDA_ERROR_INVALID_HANDLE;
    if (flags) return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuGraphInstantiate: flags");
    *out = g_execs.add(new CUgraphExec_st{g->ctx, g->graph.instantiate()});
    return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
    NEED_CONTEXT();
    if (!g_execs.live(e)) return CUDA_ERROR_INVALID_HANDLE;
    if (e->ctx != current())
        return refuse(CUDA_ERROR_INVALID_HANDLE, "cuGraphLaunch: a graph of another context");
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    tack_emu::Graph::launch(e->exec, *q);
    return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec e) {
    return g_execs.destroy(e) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuGraphDestroy(CUgraph g) {
    return g_graphs.destroy(g) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// --- 3-D arrays and texture objects -----------------------------------------------------------

CUresult cuArray3DCreate(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR* d) {
    NEED_CONTEXT();
    if (d->Format != CU_AD_FORMAT_FLOAT || d->NumChannels != 1 || d->Flags != 0)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuArray3DCreate: only 1-channel float arrays");
    auto lim = tack_emu::kMaxTexture3D;
    if (!d->Width || !d->Height || !d->Depth || d->Width > lim || d->Height > lim || d->Depth > lim)
        return CUDA_ERROR_INVALID_VALUE;
    *out = reinterpret_cast<CUarray>(Textures::get().create_array(d->Width, d->Height, d->Depth));
    return CUDA_SUCCESS;
}

CUresult cuArrayDestroy(CUarray a) {
    return Textures::get().destroy_array(reinterpret_cast<tack_emu::Array3D*>(a))
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_HANDLE;
}

// Device memory (pitched rows) into an array: the one copy Tack's textures make.
CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D* c, CUstream s) {
    NEED_CONTEXT();
    tack_emu::Stream* q;
    if (CUresult r = queue_of(s, &q)) return r;
    auto* a = reinterpret_cast<tack_emu::Array3D*>(c->dstArray);
    if (c->srcMemoryType != CU_MEMORYTYPE_DEVICE || c->dstMemoryType != CU_MEMORYTYPE_ARRAY ||
        !Textures::get().is_array(a))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuMemcpy3DAsync: only device memory to an array");
    if (c->srcXInBytes || c->srcY || c->srcZ || c->dstXInBytes || c->dstY || c->dstZ ||
        c->WidthInBytes != a->width * sizeof(float) || c->Height != a->height ||
        c->Depth != a->depth)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemcpy3DAsync: the extent is not the array's");
    std::string why =
        tack_emu::queue_copy_into_array(*q, a, dptr(c->srcDevice), c->srcPitch, c->srcHeight);
    if (!why.empty()) return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemcpy3DAsync: " + why);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject* out, const CUDA_RESOURCE_DESC* res,
                           const CUDA_TEXTURE_DESC* tex, const CUDA_RESOURCE_VIEW_DESC* view) {
    NEED_CONTEXT();
    auto* a = reinterpret_cast<tack_emu::Array3D*>(res->res.array.hArray);
    if (res->resType != CU_RESOURCE_TYPE_ARRAY || !Textures::get().is_array(a) || view)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < 3; ++i)
        if (tex->addressMode[i] != CU_TR_ADDRESS_MODE_CLAMP)
            return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuTexObjectCreate: clamp addressing only");
    if (tex->filterMode != CU_TR_FILTER_MODE_LINEAR || (tex->flags & CU_TRSF_READ_AS_INTEGER))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cuTexObjectCreate: linear float reads only");
    bool normalized = tex->flags & CU_TRSF_NORMALIZED_COORDINATES;
    *out = reinterpret_cast<std::uintptr_t>(Textures::get().create_texture(a, normalized));
    return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject t) {
    return Textures::get().destroy_texture(reinterpret_cast<tack_emu_texture*>(t))
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

}  // extern "C"
