#pragma once
// The CUDA driver API and NVRTC, loaded at run time with dlopen (libcuda.so.1, libnvrtc.so) from
// one list of signatures each (STYLE habit 5): the build needs no CUDA SDK, and a machine
// without a driver gets an explanation from tack.device("cuda") instead of a link error.
//
// The names are the ABI symbols cuda.h maps its macros to (cuMemAlloc -> cuMemAlloc_v2, ...),
// the legacy-default-stream variants: every call Tack makes names its own stream.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu/loader.hpp"
#include "runtime/gpu/rtc.hpp"

namespace tack::runtime::cuda {

// The few CUDA types and constants Tack uses (values from cuda.h, CUDA 13.0).
using CUresult = int;
using CUdevice = int;
// HIP has no counterpart: its runtime keeps one primary context per device for the process.
using CUcontext = struct CUctx_st*;
// Code, the queue it launches on and the marks on that queue.
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
// Memory. The driver API gives device addresses and texture objects as integers, HIP as pointers.
using CUdeviceptr = std::uint64_t;
using CUmemoryPool = struct CUmemPoolHandle_st*;
using CUmemGenericAllocationHandle = std::uint64_t;
using CUarray = struct CUarray_st*;
using CUtexObject = unsigned long long;
// Launch graphs (graph.cpp).
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr CUresult CUDA_ERROR_CONTEXT_IS_DESTROYED = 709;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
inline constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
inline constexpr int CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
inline constexpr int CU_POINTER_ATTRIBUTE_IS_MANAGED = 8;
inline constexpr unsigned CU_MEMORYTYPE_HOST = 1;
inline constexpr unsigned CU_MEMORYTYPE_DEVICE = 2;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
inline constexpr unsigned CU_EVENT_BLOCKING_SYNC = 1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
// Textures (texture.cpp).
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26;
inline constexpr unsigned CU_MEMORYTYPE_ARRAY = 3;
inline constexpr int CU_AD_FORMAT_FLOAT = 0x20;
inline constexpr int CU_RESOURCE_TYPE_ARRAY = 0;
inline constexpr int CU_TR_ADDRESS_MODE_CLAMP = 1;
inline constexpr int CU_TR_FILTER_MODE_LINEAR = 1;
inline constexpr unsigned CU_TRSF_NORMALIZED_COORDINATES = 2;

/// cuda.h's CUDA_ARRAY3D_DESCRIPTOR, CUDA_MEMCPY3D, CUDA_RESOURCE_DESC and CUDA_TEXTURE_DESC
/// (CUDA 13.0; tests/unit/cuda compares the layouts with cuda.h where the toolkit is installed).
struct CuArray3DDescriptor {
    std::size_t width = 0, height = 0, depth = 0;
    int format = CU_AD_FORMAT_FLOAT;
    unsigned num_channels = 1;
    unsigned flags = 0;
};
struct CuMemcpy3D {
    std::size_t src_x_bytes = 0, src_y = 0, src_z = 0, src_lod = 0;
    unsigned src_memory_type = 0;
    const void* src_host = nullptr;
    CUdeviceptr src_device = 0;
    CUarray src_array = nullptr;
    void* reserved0 = nullptr;
    std::size_t src_pitch = 0, src_height = 0;
    std::size_t dst_x_bytes = 0, dst_y = 0, dst_z = 0, dst_lod = 0;
    unsigned dst_memory_type = 0;
    void* dst_host = nullptr;
    CUdeviceptr dst_device = 0;
    CUarray dst_array = nullptr;
    void* reserved1 = nullptr;
    std::size_t dst_pitch = 0, dst_height = 0;
    std::size_t width_bytes = 0, height = 0, depth = 0;
};
struct CuResourceDesc {
    int res_type = CU_RESOURCE_TYPE_ARRAY;
    union {
        CUarray array;
        int reserved[32];
    } res{};
    unsigned flags = 0;
};
struct CuTextureDesc {
    int address_mode[3] = {};
    int filter_mode = 0;
    unsigned flags = 0;
    unsigned max_anisotropy = 0;
    int mipmap_filter_mode = 0;
    float mipmap_level_bias = 0, min_mipmap_level_clamp = 0, max_mipmap_level_clamp = 0;
    float border_color[4] = {};
    int reserved[12] = {};
};
/// cuda.h's CUDA_KERNEL_NODE_PARAMS (v2) and CUDA_MEMSET_NODE_PARAMS (CUDA 12.0).
struct CuKernelNodeParams {
    CUfunction func = nullptr;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
    void** kernel_params = nullptr;
    void** extra = nullptr;
    void* kernel = nullptr;  // a CUkernel, used when func is null
    CUcontext ctx = nullptr;
};
struct CuMemsetNodeParams {
    CUdeviceptr dst = 0;
    std::size_t pitch = 0;
    unsigned value = 0;
    unsigned element_size = 0;
    std::size_t width = 0, height = 1;
};
static_assert(sizeof(CuKernelNodeParams) == 72 && sizeof(CuMemsetNodeParams) == 40);
static_assert(sizeof(CuArray3DDescriptor) == 40 && sizeof(CuMemcpy3D) == 200 &&
              sizeof(CuResourceDesc) == 144 && sizeof(CuTextureDesc) == 104);

// name, return type, parameter list
#define TACK_CU_FUNCTIONS(X)                                                                       \
    X(cuInit, CUresult, (unsigned))                                                                \
    X(cuDriverGetVersion, CUresult, (int*))                                                        \
    X(cuGetErrorName, CUresult, (CUresult, const char**))                                          \
    X(cuDeviceGet, CUresult, (CUdevice*, int))                                                     \
    X(cuDeviceGetName, CUresult, (char*, int, CUdevice))                                           \
    X(cuDeviceGetAttribute, CUresult, (int*, int, CUdevice))                                       \
    X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext*, CUdevice))                                  \
    X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice))                                          \
    X(cuCtxGetCurrent, CUresult, (CUcontext*))                                                     \
    X(cuCtxSetCurrent, CUresult, (CUcontext))                                                      \
    X(cuCtxGetDevice, CUresult, (CUdevice*))                                                       \
    X(cuCtxPushCurrent_v2, CUresult, (CUcontext))                                                  \
    X(cuCtxPopCurrent_v2, CUresult, (CUcontext*))                                                  \
    X(cuStreamCreate, CUresult, (CUstream*, unsigned))                                             \
    X(cuStreamSynchronize, CUresult, (CUstream))                                                   \
    X(cuStreamQuery, CUresult, (CUstream))                                                         \
    X(cuEventCreate, CUresult, (CUevent*, unsigned))                                               \
    X(cuEventRecord, CUresult, (CUevent, CUstream))                                                \
    X(cuEventSynchronize, CUresult, (CUevent))                                                     \
    X(cuEventQuery, CUresult, (CUevent))                                                           \
    X(cuEventDestroy_v2, CUresult, (CUevent))                                                      \
    X(cuMemAlloc_v2, CUresult, (CUdeviceptr*, std::size_t))                                        \
    X(cuMemFree_v2, CUresult, (CUdeviceptr))                                                       \
    X(cuMemcpyHtoDAsync_v2, CUresult, (CUdeviceptr, const void*, std::size_t, CUstream))           \
    X(cuMemcpyDtoHAsync_v2, CUresult, (void*, CUdeviceptr, std::size_t, CUstream))                 \
    X(cuMemcpyDtoDAsync_v2, CUresult, (CUdeviceptr, CUdeviceptr, std::size_t, CUstream))           \
    X(cuMemsetD8Async, CUresult, (CUdeviceptr, unsigned char, std::size_t, CUstream))              \
    X(cuMemsetD16Async, CUresult, (CUdeviceptr, unsigned short, std::size_t, CUstream))            \
    X(cuMemsetD32Async, CUresult, (CUdeviceptr, unsigned, std::size_t, CUstream))                  \
    X(cuPointerGetAttribute, CUresult, (void*, int, CUdeviceptr))                                  \
    X(cuModuleLoadData, CUresult, (CUmodule*, const void*))                                        \
    X(cuModuleGetFunction, CUresult, (CUfunction*, CUmodule, const char*))                         \
    X(cuModuleUnload, CUresult, (CUmodule))                                                        \
    X(cuLaunchKernel, CUresult,                                                                    \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
       void**, void**))

/// The virtual memory management API's allocation properties (cuda.h CUmemAllocationProp).
struct CuMemAllocationProp {
    int type = 1;                    // CU_MEM_ALLOCATION_TYPE_PINNED
    int requested_handle_types = 1;  // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    int location_type = 1;           // CU_MEM_LOCATION_TYPE_DEVICE
    int location_id = 0;             // the device ordinal
    void* win32_metadata = nullptr;
    unsigned char compression = 0, rdma = 0;
    unsigned short usage = 0;
    unsigned char reserved[4] = {};
};
struct CuMemAccessDesc {
    int location_type = 1;  // CU_MEM_LOCATION_TYPE_DEVICE
    int location_id = 0;
    int flags = 3;  // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
};
static_assert(sizeof(CuMemAllocationProp) == 32 && sizeof(CuMemAccessDesc) == 12);

// Texture objects (texture.cpp, CUDA 5.0).
#define TACK_CU_TEXTURE_FUNCTIONS(X)                                                    \
    TACK_GPU_TEXTURE_FUNCTIONS(X, CUresult, CUstream, CUarray, CUtexObject, CuMemcpy3D, \
                               CuResourceDesc, CuTextureDesc, cuArray3DCreate_v2,       \
                               (CUarray*, const CuArray3DDescriptor*), cuArrayDestroy,  \
                               cuMemcpy3DAsync_v2, cuTexObjectCreate, cuTexObjectDestroy)

// Launch graphs built node by node (graph.cpp; the v2 kernel node of CUDA 12.0). A driver
// without them replays graphs through the core's loop.
#define TACK_CU_GRAPH_FUNCTIONS(X)                                                         \
    X(cuGraphCreate, CUresult, (CUgraph*, unsigned))                                       \
    X(cuGraphAddKernelNode_v2, CUresult,                                                   \
      (CUgraphNode*, CUgraph, const CUgraphNode*, std::size_t, const CuKernelNodeParams*)) \
    X(cuGraphAddMemsetNode, CUresult,                                                      \
      (CUgraphNode*, CUgraph, const CUgraphNode*, std::size_t, const CuMemsetNodeParams*,  \
       CUcontext))                                                                         \
    X(cuGraphInstantiateWithFlags, CUresult, (CUgraphExec*, CUgraph, unsigned long long))  \
    X(cuGraphLaunch, CUresult, (CUgraphExec, CUstream))                                    \
    X(cuGraphExecDestroy, CUresult, (CUgraphExec))                                         \
    X(cuGraphDestroy, CUresult, (CUgraph))

// Stream-ordered allocation (CUDA 11.2); a device without memory pools uses cuMemAlloc. The
// virtual memory management API (export_memory, CUDA 10.2). Texture objects.
#define TACK_CU_OPTIONAL_FUNCTIONS(X)                                                            \
    X(cuMemAllocAsync, CUresult, (CUdeviceptr*, std::size_t, CUstream))                          \
    X(cuMemFreeAsync, CUresult, (CUdeviceptr, CUstream))                                         \
    X(cuDeviceGetDefaultMemPool, CUresult, (CUmemoryPool*, CUdevice))                            \
    X(cuMemPoolSetAttribute, CUresult, (CUmemoryPool, int, void*))                               \
    X(cuMemGetAllocationGranularity, CUresult, (std::size_t*, const CuMemAllocationProp*, int))  \
    X(cuMemCreate, CUresult,                                                                     \
      (CUmemGenericAllocationHandle*, std::size_t, const CuMemAllocationProp*,                   \
       unsigned long long))                                                                      \
    X(cuMemAddressReserve, CUresult,                                                             \
      (CUdeviceptr*, std::size_t, std::size_t, CUdeviceptr, unsigned long long))                 \
    X(cuMemMap, CUresult,                                                                        \
      (CUdeviceptr, std::size_t, std::size_t, CUmemGenericAllocationHandle, unsigned long long)) \
    X(cuMemSetAccess, CUresult, (CUdeviceptr, std::size_t, const CuMemAccessDesc*, std::size_t)) \
    X(cuMemExportToShareableHandle, CUresult,                                                    \
      (void*, CUmemGenericAllocationHandle, int, unsigned long long))                            \
    X(cuMemUnmap, CUresult, (CUdeviceptr, std::size_t))                                          \
    X(cuMemAddressFree, CUresult, (CUdeviceptr, std::size_t))                                    \
    X(cuMemRelease, CUresult, (CUmemGenericAllocationHandle))                                    \
    X(cuDeviceGetUuid_v2, CUresult, (unsigned char*, CUdevice))                                  \
    TACK_CU_TEXTURE_FUNCTIONS(X)                                                                 \
    TACK_CU_GRAPH_FUNCTIONS(X)

struct CuApi {
    TACK_GPU_API(TACK_CU_FUNCTIONS, TACK_CU_OPTIONAL_FUNCTIONS)
    static constexpr std::string_view kLibrary = "cuda";
    bool has_textures() const { return true TACK_CU_TEXTURE_FUNCTIONS(TACK_GPU_PRESENT); }
    bool has_graphs() const { return true TACK_CU_GRAPH_FUNCTIONS(TACK_GPU_PRESENT); }
};

/// NVRTC (gpu/rtc.hpp): CUDA C to PTX.
using NvrtcApi = gpu::RtcApi<gpu::Rtc::Nvrtc>;

/// "CUDA_ERROR_INVALID_CONTEXT (201)".
std::string cu_error_name(const CuApi& api, CUresult r);
/// RuntimeError "CUDA: <what> failed: <name>" unless CUDA_SUCCESS.
void check(const CuApi& api, CUresult r, const char* what);

}  // namespace tack::runtime::cuda
