// HIP hardware textures (CONTRACT A39, E5) without an AMD GPU: the runtime structs Tack
// declares match ROCm's headers where they are installed, the entry points are in the loader's
// list, the runtime's hipRTC path compiles a sampling kernel, and the E5 rule on extents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "frontend/parser.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/hip/hip_backend.hpp"
#include "unit/compile_helper.hpp"

#if __has_include(<hip/hip_runtime_api.h>)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#define TACK_HAVE_HIP_H 1
#endif

namespace hip = tack::runtime::hip;
namespace cf = tack::codegen::cfamily;

namespace {

#ifdef TACK_HAVE_HIP_H
#define SAME_FIELD(Ours, Theirs, ours, theirs) \
    static_assert(offsetof(hip::Ours, ours) == offsetof(Theirs, theirs), #Ours "::" #ours)
// Ours may be larger (zeroed room past ROCm 5.2's size), never smaller.
#define NOT_SMALLER(Ours, Theirs) static_assert(sizeof(hip::Ours) >= sizeof(Theirs), #Ours)
// The offsets memory_space and the disk-cache key read (hip_api.hpp).
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == hip::kGcnArchNameOffset);
static_assert(sizeof(hipDeviceProp_t::gcnArchName) == hip::kGcnArchNameBytes);
static_assert(sizeof(hipDeviceProp_t) <= hip::kDevicePropBytes);
static_assert(offsetof(hipPointerAttribute_t, isManaged) == hip::kPointerIsManagedOffset);
static_assert(sizeof(hipPointerAttribute_t) <= hip::kPointerAttributesBytes);
static_assert(sizeof(hip::HipChannelFormatDesc) == sizeof(hipChannelFormatDesc));
SAME_FIELD(HipChannelFormatDesc, hipChannelFormatDesc, f, f);
static_assert(sizeof(hip::HipMemcpy3DParms) == sizeof(hipMemcpy3DParms));
SAME_FIELD(HipMemcpy3DParms, hipMemcpy3DParms, src_ptr, srcPtr);
SAME_FIELD(HipMemcpy3DParms, hipMemcpy3DParms, dst_array, dstArray);
SAME_FIELD(HipMemcpy3DParms, hipMemcpy3DParms, extent, extent);
SAME_FIELD(HipMemcpy3DParms, hipMemcpy3DParms, kind, kind);
NOT_SMALLER(HipResourceDesc, hipResourceDesc);
SAME_FIELD(HipResourceDesc, hipResourceDesc, res.array, res.array.array);
NOT_SMALLER(HipTextureDesc, hipTextureDesc);
SAME_FIELD(HipTextureDesc, hipTextureDesc, filter_mode, filterMode);
SAME_FIELD(HipTextureDesc, hipTextureDesc, read_mode, readMode);
SAME_FIELD(HipTextureDesc, hipTextureDesc, normalized_coords, normalizedCoords);
SAME_FIELD(HipTextureDesc, hipTextureDesc, max_mipmap_level_clamp, maxMipmapLevelClamp);
// Launch graphs (runtime/hip/graph.cpp).
static_assert(sizeof(hip::HipKernelNodeParams) == sizeof(hipKernelNodeParams));
SAME_FIELD(HipKernelNodeParams, hipKernelNodeParams, func, func);
SAME_FIELD(HipKernelNodeParams, hipKernelNodeParams, grid, gridDim);
SAME_FIELD(HipKernelNodeParams, hipKernelNodeParams, kernel_params, kernelParams);
SAME_FIELD(HipKernelNodeParams, hipKernelNodeParams, shared_bytes, sharedMemBytes);
static_assert(sizeof(hip::HipMemsetParams) == sizeof(hipMemsetParams));
SAME_FIELD(HipMemsetParams, hipMemsetParams, element_size, elementSize);
SAME_FIELD(HipMemsetParams, hipMemsetParams, height, height);
SAME_FIELD(HipMemsetParams, hipMemsetParams, pitch, pitch);
SAME_FIELD(HipMemsetParams, hipMemsetParams, value, value);
SAME_FIELD(HipMemsetParams, hipMemsetParams, width, width);
static_assert(hip::hipChannelFormatKindFloat == hipChannelFormatKindFloat &&
              hip::hipResourceTypeArray == hipResourceTypeArray &&
              hip::hipAddressModeClamp == hipAddressModeClamp &&
              hip::hipFilterModeLinear == hipFilterModeLinear &&
              hip::hipMemcpyDeviceToDevice == hipMemcpyDeviceToDevice &&
              hip::hipDeviceAttributeImageSupport == hipDeviceAttributeImageSupport &&
              hip::hipDeviceAttributeMaxTexture3DDepth == hipDeviceAttributeMaxTexture3DDepth);
#endif

TEST(HipTextures, TheStructsMatchRocmHeaders) {
#ifndef TACK_HAVE_HIP_H
    GTEST_SKIP() << "no <hip/hip_runtime_api.h> to compare with";
#endif
}

TEST(HipTextures, TheLoaderListsTheTextureEntryPoints) {
    auto optional = tack::runtime::gpu::api_function_names<hip::HipApi>(false);
    for (const char* f : {"hipMalloc3DArray", "hipFreeArray", "hipMemcpy3DAsync",
                          "hipCreateTextureObject", "hipDestroyTextureObject"})
        EXPECT_NE(std::find(optional.begin(), optional.end(), f), optional.end()) << f;
}

TEST(HipTextures, ExtentsWithinTheSmallestLimitOrUnbounded) {
    using tack::runtime::gpu::texture_fits;
    EXPECT_TRUE(texture_fits({16, 8, 4}, 16));
    EXPECT_FALSE(texture_fits({16, 17, 4}, 16));
    EXPECT_TRUE(texture_fits({1 << 20, 1, 1}, 0)) << "a non-positive limit is unbounded (E5)";
    EXPECT_TRUE(texture_fits({1 << 20, 1, 1}, -1));
}

TEST(HipTextures, TheRuntimeHiprtcPathCompilesATextureSample) {
    std::string why;
    if (!tack::runtime::gpu::load_api<hip::HiprtcApi>(&why)) GTEST_SKIP() << why;
    // The texture's extents (D, H, W) = (3, 4, 5); the HIP row samples in hardware.
    auto k = tack::testing::compiled_ir(
        {.source = R"(import tack

@tack.kernel
def sample(tex, u, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(u[i], 0.5, 1.0)
)",
         .kernel = "sample",
         .args = "tex3d,f32[:],f32[:]",
         .target = "hip",
         .extent = [](int p, int dim) { return p == 0 ? int64_t(3 + dim) : int64_t(1024); }});
    auto gen = tack::runtime::gpu::generate(k, cf::hip_dialect(), {"HIP", 256, ~0ull});
    ASSERT_NE(gen.source.find("hipTextureObject_t"), std::string::npos) << gen.source;
    auto code = hip::compile_code_object(gen.source, "sample", {"--offload-arch=gfx90a"});
    EXPECT_GT(code.size(), 4u);
}

}  // namespace
