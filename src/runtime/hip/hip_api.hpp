#pragma once
// The HIP runtime and hipRTC, loaded at run time with dlopen (libamdhip64.so, which carries
// hipRTC up to ROCm 5; libhiprtc.so from ROCm 6) from one list of signatures each (STYLE habit
// 5): the build needs no ROCm, and a machine without it gets an explanation.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu/loader.hpp"
#include "runtime/gpu/rtc.hpp"

namespace tack::runtime::hip {

using hipError_t = int;
// Code: a module loaded from a code object and the kernels in it.
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
// Where code runs: a device (the runtime keeps its context), its queues and marks on them.
using hipDevice_t = int;
using hipStream_t = struct ihipStream_t*;
using hipEvent_t = struct ihipEvent_t*;
// Memory: device addresses and texture objects are pointers (CUDA's driver API: integers).
using hipDeviceptr_t = void*;
using hipMemPool_t = struct ihipMemPoolHandle_t*;
using hipArray_t = struct hipArray*;
using hipTextureObject_t = struct __hip_texture*;
// Launch graphs (graph.cpp).
using hipGraph_t = struct ihipGraph*;
using hipGraphNode_t = struct hipGraphNode*;
using hipGraphExec_t = struct hipGraphExec*;

/// hip_runtime_api.h's hipKernelNodeParams and hipMemsetParams (ROCm 5.x).
struct HipDim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct HipKernelNodeParams {
    HipDim3 block;
    void** extra = nullptr;
    void* func = nullptr;
    HipDim3 grid;
    void** kernel_params = nullptr;
    unsigned shared_bytes = 0;
};
struct HipMemsetParams {
    void* dst = nullptr;
    unsigned element_size = 0;
    std::size_t height = 1, pitch = 0;
    unsigned value = 0;
    std::size_t width = 0;
};
static_assert(sizeof(HipKernelNodeParams) == 64 && sizeof(HipMemsetParams) == 48);

inline constexpr hipError_t hipSuccess = 0;
inline constexpr hipError_t hipErrorOutOfMemory = 2;
inline constexpr hipError_t hipErrorNotReady = 600;
// hipDeviceAttribute_t values (hip_runtime_api.h, ROCm 5.2; the enum is append-only).
inline constexpr int hipDeviceAttributeMaxGridDimX = 29;
inline constexpr int hipDeviceAttributeMaxTexture3DWidth = 49;
inline constexpr int hipDeviceAttributeMaxTexture3DHeight = 50;
inline constexpr int hipDeviceAttributeMaxTexture3DDepth = 51;
inline constexpr int hipDeviceAttributeMemoryPoolsSupported = 88;
inline constexpr int hipDeviceAttributeImageSupport = 10014;
inline constexpr int hipMemPoolAttrReleaseThreshold = 4;
inline constexpr unsigned hipEventBlockingSync = 1;
inline constexpr unsigned hipEventDisableTiming = 2;

// Textures (texture.cpp): the runtime API's structs of driver_types.h and texture_types.h,
// ROCm 5.2, which mirror CUDA's runtime API (tests/unit/hip compares the layouts with the
// headers where they are installed). The unions and the texture descriptor carry zeroed room
// past ROCm 5.2's sizes: a later runtime that reads a larger struct reads zeros, never past it.
inline constexpr int hipChannelFormatKindFloat = 2;
inline constexpr int hipResourceTypeArray = 0;
inline constexpr int hipAddressModeClamp = 1;
inline constexpr int hipFilterModeLinear = 1;
inline constexpr int hipReadModeElementType = 0;
inline constexpr int hipMemcpyDeviceToDevice = 3;

/// hipPointerAttribute_t (ROCm 5 and 6 alike): the memory type at byte 0, isManaged at 24. The
/// type's values became CUDA's in ROCm 6 (0 unregistered, 1 host, 2 device, 3 managed); ROCm 5
/// has 0 host, 1 device and fails the call for memory it does not know.
inline constexpr std::size_t kPointerAttributesBytes = 64, kPointerIsManagedOffset = 24;
/// hipDeviceProp_t as hipGetDeviceProperties (the unversioned symbol, which ROCm 6 keeps for
/// the ROCm 5 layout) fills it: gcnArchName, "gfx90a:sramecc+:xnack-", at byte 396 of 792
/// (tests/unit/hip compares with the header where it is installed). The buffer has room to spare.
inline constexpr std::size_t kDevicePropBytes = 4096, kGcnArchNameOffset = 396,
                             kGcnArchNameBytes = 256;
struct HipChannelFormatDesc {
    int x = 32, y = 0, z = 0, w = 0;  // one 32-bit channel
    int f = hipChannelFormatKindFloat;
};
struct HipExtent {
    std::size_t width = 0, height = 0, depth = 0;
};
struct HipPos {
    std::size_t x = 0, y = 0, z = 0;
};
struct HipPitchedPtr {
    void* ptr = nullptr;
    std::size_t pitch = 0, xsize = 0, ysize = 0;
};
struct HipMemcpy3DParms {
    hipArray_t src_array = nullptr;
    HipPos src_pos;
    HipPitchedPtr src_ptr;
    hipArray_t dst_array = nullptr;
    HipPos dst_pos;
    HipPitchedPtr dst_ptr;
    HipExtent extent;
    int kind = hipMemcpyDeviceToDevice;
};
struct HipResourceDesc {
    int res_type = hipResourceTypeArray;
    union {
        hipArray_t array;
        unsigned char room[128];
    } res{};
};
struct HipTextureDesc {
    int address_mode[3] = {};
    int filter_mode = 0;
    int read_mode = hipReadModeElementType;
    int srgb = 0;
    float border_color[4] = {};
    int normalized_coords = 0;
    unsigned max_anisotropy = 0;
    int mipmap_filter_mode = 0;
    float mipmap_level_bias = 0, min_mipmap_level_clamp = 0, max_mipmap_level_clamp = 0;
    int room[16] = {};
};

#define TACK_HIP_FUNCTIONS(X)                                                                     \
    X(hipInit, hipError_t, (unsigned))                                                            \
    X(hipGetErrorName, const char*, (hipError_t))                                                 \
    X(hipRuntimeGetVersion, hipError_t, (int*))                                                   \
    X(hipGetDevice, hipError_t, (hipDevice_t*))                                                   \
    X(hipSetDevice, hipError_t, (hipDevice_t))                                                    \
    X(hipDeviceGetName, hipError_t, (char*, int, hipDevice_t))                                    \
    X(hipDeviceGetAttribute, hipError_t, (int*, int, hipDevice_t))                                \
    X(hipMemGetInfo, hipError_t, (std::size_t*, std::size_t*))                                    \
    X(hipStreamCreate, hipError_t, (hipStream_t*))                                                \
    X(hipEventCreateWithFlags, hipError_t, (hipEvent_t*, unsigned))                               \
    X(hipEventRecord, hipError_t, (hipEvent_t, hipStream_t))                                      \
    X(hipEventSynchronize, hipError_t, (hipEvent_t))                                              \
    X(hipEventQuery, hipError_t, (hipEvent_t))                                                    \
    X(hipEventDestroy, hipError_t, (hipEvent_t))                                                  \
    X(hipMalloc, hipError_t, (void**, std::size_t))                                               \
    X(hipFree, hipError_t, (void*))                                                               \
    X(hipMemcpyHtoDAsync, hipError_t, (hipDeviceptr_t, void*, std::size_t, hipStream_t))          \
    X(hipMemcpyDtoHAsync, hipError_t, (void*, hipDeviceptr_t, std::size_t, hipStream_t))          \
    X(hipMemcpyDtoDAsync, hipError_t, (hipDeviceptr_t, hipDeviceptr_t, std::size_t, hipStream_t)) \
    X(hipMemsetD8Async, hipError_t, (hipDeviceptr_t, unsigned char, std::size_t, hipStream_t))    \
    X(hipMemsetD16Async, hipError_t, (hipDeviceptr_t, unsigned short, std::size_t, hipStream_t))  \
    X(hipMemsetD32Async, hipError_t, (hipDeviceptr_t, int, std::size_t, hipStream_t))             \
    X(hipModuleLoadData, hipError_t, (hipModule_t*, const void*))                                 \
    X(hipModuleGetFunction, hipError_t, (hipFunction_t*, hipModule_t, const char*))               \
    X(hipModuleUnload, hipError_t, (hipModule_t))                                                 \
    X(hipModuleLaunchKernel, hipError_t,                                                          \
      (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,       \
       hipStream_t, void**, void**))

// Texture objects (texture.cpp).
#define TACK_HIP_TEXTURE_FUNCTIONS(X)                                                  \
    TACK_GPU_TEXTURE_FUNCTIONS(                                                        \
        X, hipError_t, hipStream_t, hipArray_t, hipTextureObject_t, HipMemcpy3DParms,  \
        HipResourceDesc, HipTextureDesc, hipMalloc3DArray,                             \
        (hipArray_t*, const HipChannelFormatDesc*, HipExtent, unsigned), hipFreeArray, \
        hipMemcpy3DAsync, hipCreateTextureObject, hipDestroyTextureObject)

// Launch graphs built node by node (graph.cpp; ROCm 5.x). A runtime without them replays graphs
// through the core's loop.
#define TACK_HIP_GRAPH_FUNCTIONS(X)                                                                \
    X(hipGraphCreate, hipError_t, (hipGraph_t*, unsigned))                                         \
    X(hipGraphAddKernelNode, hipError_t,                                                           \
      (hipGraphNode_t*, hipGraph_t, const hipGraphNode_t*, std::size_t,                            \
       const HipKernelNodeParams*))                                                                \
    X(hipGraphAddMemsetNode, hipError_t,                                                           \
      (hipGraphNode_t*, hipGraph_t, const hipGraphNode_t*, std::size_t, const HipMemsetParams*))   \
    X(hipGraphInstantiateWithFlags, hipError_t, (hipGraphExec_t*, hipGraph_t, unsigned long long)) \
    X(hipGraphLaunch, hipError_t, (hipGraphExec_t, hipStream_t))                                   \
    X(hipGraphExecDestroy, hipError_t, (hipGraphExec_t))                                           \
    X(hipGraphDestroy, hipError_t, (hipGraph_t))

// TACK_HIP_ALLOCATOR=pool (ROCm 5.1+). Texture objects. Pointer attributes (memory_space) and
// device properties (the architecture the disk cache keys on), read at the offsets below.
#define TACK_HIP_OPTIONAL_FUNCTIONS(X)                                \
    X(hipMallocAsync, hipError_t, (void**, std::size_t, hipStream_t)) \
    X(hipFreeAsync, hipError_t, (void*, hipStream_t))                 \
    X(hipDeviceGetDefaultMemPool, hipError_t, (hipMemPool_t*, int))   \
    X(hipMemPoolSetAttribute, hipError_t, (hipMemPool_t, int, void*)) \
    TACK_HIP_TEXTURE_FUNCTIONS(X)                                     \
    TACK_HIP_GRAPH_FUNCTIONS(X)                                       \
    X(hipPointerGetAttributes, hipError_t, (void*, const void*))      \
    X(hipGetDeviceProperties, hipError_t, (void*, int))

struct HipApi {
    TACK_GPU_API(TACK_HIP_FUNCTIONS, TACK_HIP_OPTIONAL_FUNCTIONS)
    static constexpr std::string_view kLibrary = "hip";
    bool has_textures() const { return true TACK_HIP_TEXTURE_FUNCTIONS(TACK_GPU_PRESENT); }
    bool has_graphs() const { return true TACK_HIP_GRAPH_FUNCTIONS(TACK_GPU_PRESENT); }
};

/// hipRTC (gpu/rtc.hpp): HIP C to a code object.
using HiprtcApi = gpu::RtcApi<gpu::Rtc::Hiprtc>;

/// RuntimeError "HIP: <what> failed: <name> (<code>)" unless hipSuccess.
void check(const HipApi& api, hipError_t r, const char* what);
std::string hip_error_name(const HipApi& api, hipError_t r);

/// Code object for `source`: hipRTC with -ffp-contract=on (docs/decisions.md) plus `options`
/// (tests pass --offload-arch=gfx90a; the backend none: hipRTC targets the current device).
/// RuntimeError with the log and source on failure.
std::vector<std::uint8_t> compile_code_object(const std::string& source, const std::string& kernel,
                                              const std::vector<std::string>& options = {});
/// hipRTC's options, as the disk cache's target names them.
std::vector<std::string> hiprtc_options();

}  // namespace tack::runtime::hip
