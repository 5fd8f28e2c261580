// An emulated HIP runtime with hipRTC (libamdhip64.so's entry points Tack calls, declared by
// ROCm's own headers): one gfx90a device whose kernels run on the CPU (engine.hpp). hipRTC is
// the real one (from the ROCm libamdhip64 this machine has, which compiles with no GPU); the
// code object it returns carries the HIP C it was made from. The runtime checks what HIP
// checks: handles that are live, copies and fills inside live allocations, launch limits,
// pointer arguments inside live allocations, and code objects built for the device's
// architecture. A copy to host memory runs when the stream reaches it, so a caller that reads
// the host buffer before waiting reads stale data (and fails its test).
#define __HIP_PLATFORM_AMD__
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>

#include "engine.hpp"

using tack_emu::complain;
using tack_emu::Memory;
using tack_emu::Textures;

struct ihipStream_t {
    tack_emu::Stream queue;
};
struct ihipModule_t {
    std::unique_ptr<tack_emu::Module> module;
};
struct ihipModuleSymbol_t {
    ihipModule_t* module;
    const tack_emu::Function* function;
};
struct ihipEvent_t {
    ihipStream_t* stream = nullptr;
    std::uint64_t sequence = 0;
};
struct ihipMemPoolHandle_t {};
struct ihipGraph {
    tack_emu::Graph graph;
};
struct hipGraphExec {
    tack_emu::Graph::Exec exec;
};

namespace {

constexpr const char* kArch = "gfx90a";
constexpr unsigned kElfMachineAmdgpu = 224, kMachGfx90a = 0x3f;

tack_emu::Handles<ihipStream_t> g_streams;
tack_emu::Handles<ihipModule_t> g_modules;
tack_emu::Handles<ihipModuleSymbol_t> g_functions;
tack_emu::Handles<ihipEvent_t> g_events;
ihipMemPoolHandle_t g_pool;

hipError_t refuse(hipError_t r, const std::string& what) {
    complain(what);
    return r;
}

tack_emu::Stream& null_stream() {
    static auto* s = new tack_emu::Stream();
    return *s;
}

hipError_t queue_of(hipStream_t s, tack_emu::Stream** out) {
    if (!s) {
        *out = &null_stream();
        return hipSuccess;
    }
    if (!g_streams.live(s)) return hipErrorInvalidHandle;
    *out = &s->queue;
    return hipSuccess;
}

void wait_all() {
    null_stream().wait();
    for (ihipStream_t* s : g_streams.all())
        s->queue.wait();
}

hipError_t need_range(const void* p, std::size_t bytes, const char* what) {
    if (Memory::get().contains(p, bytes)) return hipSuccess;
    return refuse(hipErrorInvalidValue, std::string(what) + ": " + std::to_string(bytes) +
                                            " bytes at a device address outside every live "
                                            "allocation");
}

template <class T>
hipError_t fill(void* p, T value, std::size_t count, hipStream_t s, const char* what) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    if (hipError_t r = need_range(p, count * sizeof(T), what)) return r;
    auto op = tack_emu::fill_op(p, unsigned(value), sizeof(T), count);
    q->enqueue([op, q] { op(*q); });
    return hipSuccess;
}

// The code object's end and whether it was built for gfx90a: an ELF file, or a clang offload
// bundle of them.
bool code_object_for_device(const unsigned char* image, std::string* why) {
    static const char kBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
    if (std::memcmp(image,
                    "\x7f"
                    "ELF",
                    4) == 0) {
        std::uint16_t machine;
        std::uint32_t flags;
        std::memcpy(&machine, image + 0x12, 2);
        std::memcpy(&flags, image + 0x30, 4);
        if (machine != kElfMachineAmdgpu || (flags & 0xff) != kMachGfx90a) {
            *why = "the code object is not for gfx90a";
            return false;
        }
        return true;
    }
    if (std::memcmp(image, kBundle, sizeof kBundle - 1) == 0) return true;
    *why = "the image is neither an ELF code object nor an offload bundle";
    return false;
}

}  // namespace

extern "C" {

hipError_t hipInit(unsigned flags) {
    return flags == 0 ? hipSuccess : hipErrorInvalidValue;
}

const char* hipGetErrorName(hipError_t e) {
    static const std::pair<hipError_t, const char*> kNames[] = {
        {hipSuccess, "hipSuccess"},
        {hipErrorInvalidValue, "hipErrorInvalidValue"},
        {hipErrorOutOfMemory, "hipErrorOutOfMemory"},
        {hipErrorNotInitialized, "hipErrorNotInitialized"},
        {hipErrorInvalidDevice, "hipErrorInvalidDevice"},
        {hipErrorInvalidImage, "hipErrorInvalidImage"},
        {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu"},
        {hipErrorInvalidHandle, "hipErrorInvalidHandle"},
        {hipErrorNotFound, "hipErrorNotFound"},
        {hipErrorNotSupported, "hipErrorNotSupported"},
    };
    for (auto [code, text] : kNames)
        if (code == e) return text;
    return "hipErrorUnknown";
}

hipError_t hipRuntimeGetVersion(int* v) {
    *v = 50221153;  // ROCm 5.2, as the real library on this machine
    return hipSuccess;
}

hipError_t hipGetDevice(int* d) {
    *d = 0;
    return hipSuccess;
}

hipError_t hipSetDevice(int d) {
    return d == 0 ? hipSuccess : hipErrorInvalidDevice;
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t d) {
    if (d != 0) return hipErrorInvalidDevice;
    std::snprintf(name, std::size_t(len), "Tack emulated HIP device (%s)", kArch);
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t attr, int d) {
    if (d != 0) return hipErrorInvalidDevice;
    switch (attr) {
        case hipDeviceAttributeMaxGridDimX:
            *v = int(tack_emu::kMaxGridX);
            break;
        case hipDeviceAttributeMaxThreadsPerBlock:
            *v = int(tack_emu::kMaxBlock);
            break;
        case hipDeviceAttributeMaxTexture3DWidth:
        case hipDeviceAttributeMaxTexture3DHeight:
        case hipDeviceAttributeMaxTexture3DDepth:
            *v = int(tack_emu::kMaxTexture3D);
            break;
        case hipDeviceAttributeMemoryPoolsSupported:
            *v = tack_emu::feature_on("TACK_EMU_MEMORY_POOLS");
            break;
        case hipDeviceAttributeImageSupport:
            *v = tack_emu::feature_on("TACK_EMU_IMAGES");
            break;
        case hipDeviceAttributeWarpSize:
            *v = 64;
            break;
        default:
            return refuse(hipErrorInvalidValue, "hipDeviceGetAttribute: attribute " +
                                                    std::to_string(int(attr)) + " is not emulated");
    }
    return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int d) {
    if (d != 0) return hipErrorInvalidDevice;
    std::memset(p, 0, sizeof *p);
    (void)hipDeviceGetName(p->name, sizeof p->name, 0);
    std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s:sramecc+:xnack-", kArch);
    p->totalGlobalMem = Memory::get().capacity();
    p->maxThreadsPerBlock = int(tack_emu::kMaxBlock);
    p->maxGridSize[0] = int(tack_emu::kMaxGridX);
    p->warpSize = 64;
    p->major = 9;
    p->minor = 0;
    return hipSuccess;
}

hipError_t hipMemGetInfo(std::size_t* free, std::size_t* total) {
    *total = Memory::get().capacity();
    *free = *total - Memory::get().in_use();
    return hipSuccess;
}

hipError_t hipDeviceSynchronize() {
    wait_all();
    return hipSuccess;
}

// --- streams and events -----------------------------------------------------------------------

hipError_t hipStreamCreate(hipStream_t* s) {
    auto* stream = new ihipStream_t{};
    g_streams.add(stream);
    *s = stream;
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    q->wait();
    return hipError_t(q->take_failure());
}

hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned) {
    auto* event = new ihipEvent_t{};
    g_events.add(event);
    *e = event;
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
    if (!g_events.live(e)) return hipErrorInvalidHandle;
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    e->stream = s;
    e->sequence = q->mark();
    return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t e) {
    if (!g_events.live(e)) return hipErrorInvalidHandle;
    if (e->sequence == 0) return hipSuccess;
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(e->stream, &q)) return r;
    q->wait_for(e->sequence);
    return hipError_t(q->take_failure());
}

hipError_t hipEventQuery(hipEvent_t e) {
    if (!g_events.live(e)) return hipErrorInvalidHandle;
    if (e->sequence == 0) return hipSuccess;
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(e->stream, &q)) return r;
    return q->done(e->sequence) ? hipSuccess : hipErrorNotReady;
}

hipError_t hipEventDestroy(hipEvent_t e) {
    return g_events.destroy(e) ? hipSuccess : hipErrorInvalidHandle;
}

// --- memory -----------------------------------------------------------------------------------

hipError_t hipMalloc(void** p, std::size_t bytes) {
    if (bytes == 0) {
        *p = nullptr;
        return hipSuccess;
    }
    *p = Memory::get().allocate(bytes);
    return *p ? hipSuccess : hipErrorOutOfMemory;
}

// hipFree waits for the device: the memory is unused afterwards.
hipError_t hipFree(void* p) {
    if (!p) return hipSuccess;
    wait_all();
    if (!Memory::get().release(p))
        return refuse(hipErrorInvalidValue, "hipFree of an address that is no allocation");
    return hipSuccess;
}

hipError_t hipMallocAsync(void** p, std::size_t bytes, hipStream_t s) {
    if (!tack_emu::feature_on("TACK_EMU_MEMORY_POOLS"))
        return refuse(hipErrorNotSupported, "hipMallocAsync on a device without memory pools");
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    return hipMalloc(p, bytes);
}

hipError_t hipFreeAsync(void* p, hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    if (!p) return hipSuccess;
    if (!Memory::get().contains(p, 0))
        return refuse(hipErrorInvalidValue, "hipFreeAsync of an address that is no allocation");
    q->enqueue([p] {
        if (!Memory::get().release(p)) complain("hipFreeAsync: freed twice");
    });
    return hipSuccess;
}

hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t* pool, int d) {
    if (d != 0) return hipErrorInvalidDevice;
    *pool = &g_pool;
    return hipSuccess;
}

hipError_t hipMemPoolSetAttribute(hipMemPool_t pool, hipMemPoolAttr, void* value) {
    return pool == &g_pool && value ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, std::size_t n, hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    if (hipError_t r = need_range(dst, n, "hipMemcpyHtoDAsync")) return r;
    // Pageable host memory is staged at the call, as CUDA documents (ROCm stages it too).
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + n);
    q->enqueue([=] { std::memcpy(dst, staged->data(), n); });
    return hipSuccess;
}

hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, std::size_t n, hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    if (hipError_t r = need_range(src, n, "hipMemcpyDtoHAsync")) return r;
    q->enqueue([=] { std::memcpy(dst, src, n); });
    return hipSuccess;
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, std::size_t n,
                              hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    if (hipError_t r = need_range(src, n, "hipMemcpyDtoDAsync (source)")) return r;
    if (hipError_t r = need_range(dst, n, "hipMemcpyDtoDAsync (destination)")) return r;
    q->enqueue([=] { std::memmove(dst, src, n); });
    return hipSuccess;
}

hipError_t hipMemsetD8Async(hipDeviceptr_t p, unsigned char v, std::size_t n, hipStream_t s) {
    return fill(p, v, n, s, "hipMemsetD8Async");
}
hipError_t hipMemsetD16Async(hipDeviceptr_t p, unsigned short v, std::size_t n, hipStream_t s) {
    return fill(p, v, n, s, "hipMemsetD16Async");
}
hipError_t hipMemsetD32Async(hipDeviceptr_t p, int v, std::size_t n, hipStream_t s) {
    return fill(p, v, n, s, "hipMemsetD32Async");
}

// Pinned host memory and managed memory: the same mappings, told apart by the attributes.
hipError_t hipHostMalloc(void** p, std::size_t bytes, unsigned) {
    if (!p || bytes == 0) return hipErrorInvalidValue;
    *p = Memory::get().allocate(bytes, Memory::Kind::Pinned);
    return *p ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipHostFree(void* p) {
    if (!Memory::get().contains(p, 0) || Memory::get().kind_of(p) != Memory::Kind::Pinned)
        return refuse(hipErrorInvalidValue, "hipHostFree of memory hipHostMalloc did not make");
    Memory::get().release(p);
    return hipSuccess;
}

hipError_t hipMallocManaged(void** p, std::size_t bytes, unsigned) {
    if (!p || bytes == 0) return hipErrorInvalidValue;
    *p = Memory::get().allocate(bytes, Memory::Kind::Managed);
    return *p ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t* a, const void* p) {
    if (!Memory::get().contains(p, 0)) return hipErrorInvalidValue;
    const Memory::Kind kind = Memory::get().kind_of(p);
    std::memset(a, 0, sizeof *a);
    a->memoryType = kind == Memory::Kind::Pinned ? hipMemoryTypeHost : hipMemoryTypeDevice;
    a->isManaged = kind == Memory::Kind::Managed;
    a->device = 0;
    a->devicePointer = const_cast<void*>(p);
    return hipSuccess;
}

// --- modules and launches ---------------------------------------------------------------------

hipError_t hipModuleLoadData(hipModule_t* out, const void* image) {
    auto* bytes = static_cast<const unsigned char*>(image);
    std::string why, source;
    if (!bytes) return hipErrorInvalidValue;
    if (!code_object_for_device(bytes, &why)) return refuse(hipErrorNoBinaryForGpu, why);
    if (!tack_emu::source_from_code_object(bytes, &source, &why))
        return refuse(hipErrorInvalidImage, why);
    auto module = tack_emu::Module::load(source, &why);
    if (!module) return refuse(hipErrorInvalidImage, why);
    auto* m = new ihipModule_t{std::move(module)};
    g_modules.add(m);
    *out = m;
    return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t* f, hipModule_t m, const char* name) {
    if (!g_modules.live(m)) return hipErrorInvalidHandle;
    const tack_emu::Function* fn = m->module->function(name);
    if (!fn) return hipErrorNotFound;
    auto* h = new ihipModuleSymbol_t{m, fn};
    g_functions.add(h);
    *f = h;
    return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t m) {
    if (!g_modules.live(m)) return hipErrorInvalidHandle;
    g_functions.destroy_if([m](const ihipModuleSymbol_t& f) { return f.module == m; });
    g_modules.destroy(m);
    return hipSuccess;
}

}  // extern "C"

namespace {

// A launch checked as hipModuleLaunchKernel checks it, its arguments copied: the operation to
// queue (now, or as a graph's kernel node).
hipError_t kernel_op(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                     unsigned by, unsigned bz, unsigned shared, void** params, void** extra,
                     const char* what, tack_emu::Graph::Op* op) {
    if (!g_functions.live(f)) return hipErrorInvalidHandle;
    if (std::string no = tack_emu::unsupported_launch(gy, gz, by, bz, extra); !no.empty())
        return refuse(hipErrorNotSupported, std::string(what) + ": " + no);
    std::string why =
        tack_emu::launch_op(f->function, gx, bx, shared, params, hipErrorLaunchFailure, op);
    return why.empty() ? hipSuccess : refuse(hipErrorInvalidValue, std::string(what) + ": " + why);
}

tack_emu::Handles<ihipGraph> g_graphs;
tack_emu::Handles<hipGraphExec> g_execs;

hipError_t add_node(hipGraphNode_t* out, hipGraph_t g, const hipGraphNode_t* deps, std::size_t n,
                    tack_emu::Graph::Op op, const char* what) {
    std::string why;
    *out = static_cast<hipGraphNode_t>(g->graph.add(std::move(op), deps, n, &why));
    return *out ? hipSuccess : refuse(hipErrorInvalidValue, std::string(what) + ": " + why);
}

}  // namespace

extern "C" {

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 hipStream_t s, void** params, void** extra) {
    tack_emu::Graph::Op op;
    if (hipError_t r = kernel_op(f, gx, gy, gz, bx, by, bz, shared, params, extra,
                                 "hipModuleLaunchKernel", &op))
        return r;
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    q->enqueue([op, q] { op(*q); });
    return hipSuccess;
}

// --- graphs: built node by node (runtime/gpu/device_backend.cpp), launched on a stream ------

hipError_t hipGraphCreate(hipGraph_t* out, unsigned flags) {
    if (flags) return hipErrorInvalidValue;
    *out = g_graphs.add(new ihipGraph{});
    return hipSuccess;
}

// HIP takes a module's hipFunction_t where a kernel node names a host function.
hipError_t hipGraphAddKernelNode(hipGraphNode_t* out, hipGraph_t g, const hipGraphNode_t* deps,
                                 std::size_t n, const hipKernelNodeParams* p) {
    if (!g_graphs.live(g)) return hipErrorInvalidHandle;
    tack_emu::Graph::Op op;
    if (hipError_t r =
            kernel_op(static_cast<hipFunction_t>(p->func), p->gridDim.x, p->gridDim.y, p->gridDim.z,
                      p->blockDim.x, p->blockDim.y, p->blockDim.z, p->sharedMemBytes,
                      p->kernelParams, p->extra, "hipGraphAddKernelNode", &op))
        return r;
    return add_node(out, g, deps, n, std::move(op), "hipGraphAddKernelNode");
}

hipError_t hipGraphAddMemsetNode(hipGraphNode_t* out, hipGraph_t g, const hipGraphNode_t* deps,
                                 std::size_t n, const hipMemsetParams* p) {
    if (!g_graphs.live(g)) return hipErrorInvalidHandle;
    unsigned elem = p->elementSize;
    if (elem != 1 && elem != 2 && elem != 4) return hipErrorInvalidValue;
    if (p->height != 1) return refuse(hipErrorNotSupported, "hipGraphAddMemsetNode: one row only");
    std::size_t count = p->width;
    if (hipError_t r = need_range(p->dst, count * elem, "hipGraphAddMemsetNode")) return r;
    auto op = tack_emu::fill_op(p->dst, p->value, elem, count);
    return add_node(out, g, deps, n, std::move(op), "hipGraphAddMemsetNode");
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* out, hipGraph_t g,
                                        unsigned long long flags) {
    if (!g_graphs.live(g)) return hipErrorInvalidHandle;
    if (flags) return refuse(hipErrorNotSupported, "hipGraphInstantiateWithFlags: flags");
    *out = g_execs.add(new hipGraphExec{g->graph.instantiate()});
    return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t e, hipStream_t s) {
    if (!g_execs.live(e)) return hipErrorInvalidHandle;
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    tack_emu::Graph::launch(e->exec, *q);
    return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t e) {
    return g_execs.destroy(e) ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t hipGraphDestroy(hipGraph_t g) {
    return g_graphs.destroy(g) ? hipSuccess : hipErrorInvalidHandle;
}

// --- 3-D arrays and texture objects -----------------------------------------------------------

hipError_t hipMalloc3DArray(hipArray** out, const hipChannelFormatDesc* desc, hipExtent e,
                            unsigned flags) {
    if (desc->f != hipChannelFormatKindFloat || desc->x != 32 || desc->y || desc->z || desc->w ||
        flags)
        return refuse(hipErrorNotSupported, "hipMalloc3DArray: only 1-channel float arrays");
    auto lim = tack_emu::kMaxTexture3D;
    if (!e.width || !e.height || !e.depth || e.width > lim || e.height > lim || e.depth > lim)
        return hipErrorInvalidValue;
    *out = reinterpret_cast<hipArray*>(Textures::get().create_array(e.width, e.height, e.depth));
    return hipSuccess;
}

hipError_t hipFreeArray(hipArray* a) {
    return Textures::get().destroy_array(reinterpret_cast<tack_emu::Array3D*>(a))
               ? hipSuccess
               : hipErrorInvalidValue;
}

// Device memory (pitched rows) into an array: the one copy Tack's textures make.
hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms* p, hipStream_t s) {
    tack_emu::Stream* q;
    if (hipError_t r = queue_of(s, &q)) return r;
    auto* a = reinterpret_cast<tack_emu::Array3D*>(p->dstArray);
    if (p->kind != hipMemcpyDeviceToDevice || p->srcArray || !Textures::get().is_array(a))
        return refuse(hipErrorNotSupported, "hipMemcpy3DAsync: only device memory to an array");
    if (p->srcPos.x || p->srcPos.y || p->srcPos.z || p->dstPos.x || p->dstPos.y || p->dstPos.z ||
        p->extent.width != a->width || p->extent.height != a->height || p->extent.depth != a->depth)
        return refuse(hipErrorInvalidValue, "hipMemcpy3DAsync: the extent is not the array's");
    std::string why =
        tack_emu::queue_copy_into_array(*q, a, p->srcPtr.ptr, p->srcPtr.pitch, p->srcPtr.ysize);
    if (!why.empty()) return refuse(hipErrorInvalidValue, "hipMemcpy3DAsync: " + why);
    return hipSuccess;
}

hipError_t hipCreateTextureObject(hipTextureObject_t* out, const hipResourceDesc* res,
                                  const hipTextureDesc* tex, const hipResourceViewDesc* view) {
    auto* a = reinterpret_cast<tack_emu::Array3D*>(res->res.array.array);
    if (res->resType != hipResourceTypeArray || !Textures::get().is_array(a) || view)
        return hipErrorInvalidValue;
    for (int i = 0; i < 3; ++i)
        if (tex->addressMode[i] != hipAddressModeClamp)
            return refuse(hipErrorNotSupported, "hipCreateTextureObject: clamp addressing only");
    if (tex->filterMode != hipFilterModeLinear || tex->readMode != hipReadModeElementType)
        return refuse(hipErrorNotSupported, "hipCreateTextureObject: linear float reads only");
    auto* t = Textures::get().create_texture(a, tex->normalizedCoords != 0);
    *out = reinterpret_cast<hipTextureObject_t>(t);
    return hipSuccess;
}

hipError_t hipDestroyTextureObject(hipTextureObject_t t) {
    return Textures::get().destroy_texture(reinterpret_cast<tack_emu_texture*>(t))
               ? hipSuccess
               : hipErrorInvalidValue;
}

}  // extern "C"

// --- hipRTC: the real compiler, the source carried in the code object -------------------------

namespace {

struct RealRtc {
    void* handle = nullptr;
#define TACK_EMU_REAL(name) decltype(&::name) name = nullptr;
    TACK_EMU_REAL(hiprtcVersion)
    TACK_EMU_REAL(hiprtcGetErrorString)
    TACK_EMU_REAL(hiprtcCreateProgram)
    TACK_EMU_REAL(hiprtcCompileProgram)
    TACK_EMU_REAL(hiprtcGetProgramLogSize)
    TACK_EMU_REAL(hiprtcGetProgramLog)
    TACK_EMU_REAL(hiprtcGetCodeSize)
    TACK_EMU_REAL(hiprtcGetCode)
    TACK_EMU_REAL(hiprtcDestroyProgram)
#undef TACK_EMU_REAL
};

const RealRtc& rtc() {
    static const RealRtc* r = [] {
        auto* r = new RealRtc();
        const char* path = std::getenv("TACK_EMU_REAL_HIPRTC");
        if (!path || !*path) path = TACK_EMU_REAL_HIPRTC;
        r->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!r->handle) {
            complain(std::string("the real hipRTC did not load: ") + dlerror());
            return r;
        }
#define TACK_EMU_BIND(name) r->name = reinterpret_cast<decltype(r->name)>(dlsym(r->handle, #name));
        TACK_EMU_BIND(hiprtcVersion)
        TACK_EMU_BIND(hiprtcGetErrorString)
        TACK_EMU_BIND(hiprtcCreateProgram)
        TACK_EMU_BIND(hiprtcCompileProgram)
        TACK_EMU_BIND(hiprtcGetProgramLogSize)
        TACK_EMU_BIND(hiprtcGetProgramLog)
        TACK_EMU_BIND(hiprtcGetCodeSize)
        TACK_EMU_BIND(hiprtcGetCode)
        TACK_EMU_BIND(hiprtcDestroyProgram)
#undef TACK_EMU_BIND
        return r;
    }();
    return *r;
}

}  // namespace

struct _hiprtcProgram {
    hiprtcProgram real;
    std::string source;
    std::vector<char> code;
};

extern "C" {

hiprtcResult hiprtcVersion(int* major, int* minor) {
    return rtc().handle ? rtc().hiprtcVersion(major, minor) : HIPRTC_ERROR_INTERNAL_ERROR;
}

const char* hiprtcGetErrorString(hiprtcResult r) {
    return rtc().handle ? rtc().hiprtcGetErrorString(r) : "HIPRTC_ERROR_INTERNAL_ERROR";
}

hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int n,
                                 const char** headers, const char** include_names) {
    if (!rtc().handle) return HIPRTC_ERROR_INTERNAL_ERROR;
    if (!prog || !src) return HIPRTC_ERROR_INVALID_INPUT;
    hiprtcProgram r = nullptr;
    if (hiprtcResult e = rtc().hiprtcCreateProgram(&r, src, name, n, headers, include_names))
        return e;
    *prog = new _hiprtcProgram{r, src, {}};
    return HIPRTC_SUCCESS;
}

// Without --offload-arch hipRTC targets the current device: the emulated one is a gfx90a.
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int n, const char** options) {
    if (!prog) return HIPRTC_ERROR_INVALID_PROGRAM;
    std::vector<const char*> opts(options, options + n);
    bool has_arch = std::any_of(opts.begin(), opts.end(), [](const char* o) {
        return std::strncmp(o, "--offload-arch=", 15) == 0;
    });
    std::string arch = std::string("--offload-arch=") + kArch;
    if (!has_arch) opts.push_back(arch.c_str());
    hiprtcResult e = rtc().hiprtcCompileProgram(prog->real, int(opts.size()), opts.data());
    if (e != HIPRTC_SUCCESS) return e;
    std::size_t size = 0;
    if (hiprtcResult s = rtc().hiprtcGetCodeSize(prog->real, &size)) return s;
    std::vector<char> code(size);
    if (hiprtcResult s = rtc().hiprtcGetCode(prog->real, code.data())) return s;
    prog->code = tack_emu::embed_source_in_code_object(code, prog->source);
    return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, std::size_t* n) {
    return prog ? rtc().hiprtcGetProgramLogSize(prog->real, n) : HIPRTC_ERROR_INVALID_PROGRAM;
}

hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
    return prog ? rtc().hiprtcGetProgramLog(prog->real, log) : HIPRTC_ERROR_INVALID_PROGRAM;
}

hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, std::size_t* n) {
    if (!prog || prog->code.empty()) return HIPRTC_ERROR_INVALID_PROGRAM;
    *n = prog->code.size();
    return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* out) {
    if (!prog || prog->code.empty()) return HIPRTC_ERROR_INVALID_PROGRAM;
    std::copy(prog->code.begin(), prog->code.end(), out);
    return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
    if (!prog || !*prog) return HIPRTC_ERROR_INVALID_PROGRAM;
    hiprtcResult e = rtc().hiprtcDestroyProgram(&(*prog)->real);
    delete *prog;
    *prog = nullptr;
    return e;
}

}  // extern "C"
