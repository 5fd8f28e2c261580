// CUDA hardware textures (CONTRACT A39, E5). Without a GPU: the driver structs Tack declares
// match cuda.h, the texture entry points are in the loader's list, and the runtime's NVRTC path
// compiles a sampling kernel to PTX with a texture fetch that ptxas accepts. With a GPU
// (scripts/gpu_check.sh): samples through the texture object against the trilinear reference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "frontend/parser.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "tack/tack.hpp"
#include "unit/compile_helper.hpp"

// cuda.h defines CU_TRSF_NORMALIZED_COORDINATES as a macro: read Tack's constant before it.
constexpr unsigned kTackNormalizedFlag = tack::runtime::cuda::CU_TRSF_NORMALIZED_COORDINATES;
#if __has_include("/usr/local/cuda/include/cuda.h")
#include "/usr/local/cuda/include/cuda.h"
#define TACK_HAVE_CUDA_H 1
#endif

namespace cuda = tack::runtime::cuda;
namespace cf = tack::codegen::cfamily;

namespace {

constexpr const char* kKernels = R"(import tack

@tack.kernel
def sample(tex, u, v, w, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(u[i], v[i], w[i])
)";

#ifdef TACK_HAVE_CUDA_H
#define SAME_FIELD(Ours, Theirs, ours, theirs) \
    static_assert(offsetof(cuda::Ours, ours) == offsetof(Theirs, theirs), #Ours "::" #ours)
static_assert(sizeof(cuda::CuArray3DDescriptor) == sizeof(CUDA_ARRAY3D_DESCRIPTOR));
SAME_FIELD(CuArray3DDescriptor, CUDA_ARRAY3D_DESCRIPTOR, format, Format);
SAME_FIELD(CuArray3DDescriptor, CUDA_ARRAY3D_DESCRIPTOR, flags, Flags);
static_assert(sizeof(cuda::CuMemcpy3D) == sizeof(CUDA_MEMCPY3D));
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_memory_type, srcMemoryType);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_device, srcDevice);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_pitch, srcPitch);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_height, srcHeight);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, dst_memory_type, dstMemoryType);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, dst_array, dstArray);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, width_bytes, WidthInBytes);
SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, depth, Depth);
static_assert(sizeof(cuda::CuResourceDesc) == sizeof(CUDA_RESOURCE_DESC));
SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, res.array, res.array.hArray);
SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, flags, flags);
static_assert(sizeof(cuda::CuTextureDesc) == sizeof(CUDA_TEXTURE_DESC));
SAME_FIELD(CuTextureDesc, CUDA_TEXTURE_DESC, filter_mode, filterMode);
SAME_FIELD(CuTextureDesc, CUDA_TEXTURE_DESC, flags, flags);
SAME_FIELD(CuTextureDesc, CUDA_TEXTURE_DESC, border_color, borderColor);
// Launch graphs (runtime/cuda/graph.cpp).
static_assert(sizeof(cuda::CuKernelNodeParams) == sizeof(CUDA_KERNEL_NODE_PARAMS));
SAME_FIELD(CuKernelNodeParams, CUDA_KERNEL_NODE_PARAMS, grid, gridDimX);
SAME_FIELD(CuKernelNodeParams, CUDA_KERNEL_NODE_PARAMS, block, blockDimX);
SAME_FIELD(CuKernelNodeParams, CUDA_KERNEL_NODE_PARAMS, shared_bytes, sharedMemBytes);
SAME_FIELD(CuKernelNodeParams, CUDA_KERNEL_NODE_PARAMS, kernel_params, kernelParams);
SAME_FIELD(CuKernelNodeParams, CUDA_KERNEL_NODE_PARAMS, ctx, ctx);
static_assert(sizeof(cuda::CuMemsetNodeParams) == sizeof(CUDA_MEMSET_NODE_PARAMS));
SAME_FIELD(CuMemsetNodeParams, CUDA_MEMSET_NODE_PARAMS, value, value);
SAME_FIELD(CuMemsetNodeParams, CUDA_MEMSET_NODE_PARAMS, element_size, elementSize);
SAME_FIELD(CuMemsetNodeParams, CUDA_MEMSET_NODE_PARAMS, width, width);
SAME_FIELD(CuMemsetNodeParams, CUDA_MEMSET_NODE_PARAMS, height, height);
static_assert(cuda::CU_AD_FORMAT_FLOAT == CU_AD_FORMAT_FLOAT &&
              cuda::CU_TR_ADDRESS_MODE_CLAMP == CU_TR_ADDRESS_MODE_CLAMP &&
              cuda::CU_TR_FILTER_MODE_LINEAR == CU_TR_FILTER_MODE_LINEAR &&
              cuda::CU_RESOURCE_TYPE_ARRAY == CU_RESOURCE_TYPE_ARRAY &&
              cuda::CU_MEMORYTYPE_ARRAY == CU_MEMORYTYPE_ARRAY &&
              kTackNormalizedFlag == CU_TRSF_NORMALIZED_COORDINATES &&
              cuda::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH ==
                  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
#endif

TEST(CudaTextures, TheStructsMatchCudaH) {
#ifndef TACK_HAVE_CUDA_H
    GTEST_SKIP() << "no /usr/local/cuda/include/cuda.h to compare with";
#endif
}

TEST(CudaTextures, TheLoaderListsTheTextureEntryPoints) {
    auto optional = tack::runtime::gpu::api_function_names<cuda::CuApi>(false);
    for (const char* f : {"cuArray3DCreate_v2", "cuArrayDestroy", "cuMemcpy3DAsync_v2",
                          "cuTexObjectCreate", "cuTexObjectDestroy"})
        EXPECT_NE(std::find(optional.begin(), optional.end(), f), optional.end()) << f;
}

std::string hardware_source(std::int64_t w, std::int64_t h, std::int64_t d) {
    // The texture's extents (D, H, W); the CUDA row samples in hardware.
    auto k = tack::testing::compiled_ir({.source = kKernels,
                                         .kernel = "sample",
                                         .args = "tex3d,f32[:],f32[:],f32[:],f32[:]",
                                         .target = "cuda",
                                         .extent = [&](int p, int dim) {
                                             return p == 0 ? std::array{d, h, w}[dim] : 1024;
                                         }});
    return tack::runtime::gpu::generate(k, cf::cuda_dialect(), {"CUDA", 256, ~0ull}).source;
}

TEST(CudaTextures, TheRuntimeNvrtcPathEmitsATextureFetch) {
    std::string why;
    if (!tack::runtime::gpu::load_api<cuda::NvrtcApi>(&why)) GTEST_SKIP() << why;
    std::string ptx = cuda::compile_ptx(hardware_source(5, 4, 3), "sample");
    EXPECT_NE(ptx.find("tex.3d.v4.f32.f32"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".param .u64 tack_kernel_sample_param_0"), std::string::npos)
        << "the texture object is one 64-bit argument:\n"
        << ptx;
}

// The hardware sampling check is the device suite's
// (Cuda.HardwareSamplesMatchTheTrilinearReference).

}  // namespace
