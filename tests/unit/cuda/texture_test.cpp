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

#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "tack/tack.hpp"

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
    auto file = std::make_shared<tack::diag::SourceFile>("k.py", kKernels);
    auto module = std::make_shared<tack::frontend::Module>(
        std::move(tack::frontend::parse_module(file).module));
    tack::sema::ModuleEnvironment env(module);
    tack::driver::KernelSource src{*module->find("sample"), file, env};
    auto lowered = tack::driver::lower(src, tack::sema::parse_arg_types("tex3d,f32[:],f32[:],"
                                                                        "f32[:],f32[:]"));
    tack::passes::ShapeValues shapes = {{{0, 0}, d}, {{0, 1}, h}, {{0, 2}, w}};
    auto k = tack::driver::specialize(lowered, shapes, [](const auto&) { return true; });
    return tack::runtime::gpu::generate(k, cf::cuda_dialect(), {"CUDA", 256, ~0ull}).source;
}

TEST(CudaTextures, TheRuntimeNvrtcPathEmitsATextureFetch) {
    std::string why;
    if (!cuda::nvrtc_api(&why)) GTEST_SKIP() << why;
    std::string ptx = cuda::compile_ptx(hardware_source(5, 4, 3), "sample");
    EXPECT_NE(ptx.find("tex.3d.v4.f32.f32"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".param .u64 tack_kernel_sample_param_0"), std::string::npos)
        << "the texture object is one 64-bit argument:\n"
        << ptx;
}

// --- with a GPU ---------------------------------------------------------------------------

// Texel centres at 0 and 1, clamped (NaN to 0), x along the last storage axis, in double: the
// same reference as tests/python/test_textures.py's NumPy one.
double trilinear(const std::vector<float>& vol, std::int64_t w, std::int64_t h, std::int64_t d,
                 double u, double v, double s) {
    auto axis = [](double c, std::int64_t n, std::int64_t* i0, std::int64_t* i1) {
        double x = std::min(std::max(std::isnan(c) ? 0.0 : c, 0.0), 1.0) * double(n - 1);
        *i0 = std::min(std::int64_t(x), std::max<std::int64_t>(n - 2, 0));
        *i1 = std::min(*i0 + 1, n - 1);
        return x - double(*i0);
    };
    std::int64_t x0, x1, y0, y1, z0, z1;
    double tx = axis(u, w, &x0, &x1), ty = axis(v, h, &y0, &y1), tz = axis(s, d, &z0, &z1);
    auto at = [&](std::int64_t k, std::int64_t j, std::int64_t i) {
        return double(vol[std::size_t((k * h + j) * w + i)]);
    };
    auto lerp = [](double a, double b, double t) { return a * (1 - t) + b * t; };
    auto plane = [&](std::int64_t k) {
        return lerp(lerp(at(k, y0, x0), at(k, y0, x1), tx), lerp(at(k, y1, x0), at(k, y1, x1), tx),
                    ty);
    };
    return lerp(plane(z0), plane(z1), tz);
}

TEST(CudaTextures, HardwareSamplesMatchTheTrilinearReference) {
    tack::Device dev;
    try {
        dev = tack::init("cuda");
    } catch (const tack::RuntimeError& e) {
        GTEST_SKIP() << e.what();
    }
    const std::int64_t w = 17, h = 9, d = 5, n = 20000;
    ASSERT_TRUE(dev.backend()->texture_in_hardware({w, h, d}));
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), wide(-0.25f, 1.25f);
    std::vector<float> vol(std::size_t(w * h * d)), u(n), v(n), s(n);
    for (float& x : vol)
        x = unit(rng);
    for (auto* c : {&u, &v, &s})
        for (float& x : *c)
            x = wide(rng);
    // The first and last texel centres, and NaN (clamped to 0 as in the software form).
    u[0] = v[0] = s[0] = 0.0f;
    u[1] = v[1] = s[1] = 1.0f;
    u[2] = NAN, v[2] = s[2] = 0.0f;
    tack::Array tex = tack::Array::from_host(vol, {d, h, w}).as_texture();
    auto out = tack::zeros(tack::f32, {n});
    tack::Module::from_source(kKernels, "k.py")
        .kernel("sample")(tex, tack::Array::from_host(u, {n}), tack::Array::from_host(v, {n}),
                          tack::Array::from_host(s, {n}), out);
    auto got = out.to_host<float>();
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        double want =
            trilinear(vol, w, h, d, u[std::size_t(i)], v[std::size_t(i)], s[std::size_t(i)]);
        worst = std::max(worst, std::abs(got[std::size_t(i)] - want));
    }
    std::printf("CUDA hardware texture: worst |error| %.3g over %lld samples\n", worst,
                static_cast<long long>(n));
    // The sampler weighs each axis with an 8-bit fraction (the CUDA Programming Guide's 9-bit
    // fixed point with 8 fractional bits), off by under 1/256; three axes over texels in [0, 1)
    // stay within 3/256. A centre has weight exactly 0 or 1, so it reads the texel exactly.
    EXPECT_LT(worst, 3.0 / 256);
    EXPECT_GT(worst, 1e-5) << "the software form agrees to float rounding (about 1e-7): "
                              "this close, the texture object was not what ran";
    EXPECT_EQ(got[0], vol.front());
    EXPECT_EQ(got[1], vol.back());
    EXPECT_EQ(got[2], vol.front());
    // A second texture's storage gets its own texture object; the first one's is destroyed
    // with it.
    std::vector<float> twos(vol.size(), 2.0f);
    tack::Array tex2 = tack::Array::from_host(twos, {d, h, w}).as_texture();
    tack::Module::from_source(kKernels, "k.py")
        .kernel("sample")(tex2, tack::Array::from_host(u, {n}), tack::Array::from_host(v, {n}),
                          tack::Array::from_host(s, {n}), out);
    tex = tack::Array();
    auto twice = out.to_host<float>();
    EXPECT_EQ(*std::min_element(twice.begin(), twice.end()), 2.0f);
    EXPECT_EQ(*std::max_element(twice.begin(), twice.end()), 2.0f);
    try {
        tack::init("cpu");  // back to the default device; a TACK_LLVM=OFF build has none
    } catch (const tack::RuntimeError&) {
    }
}

}  // namespace
