// Hardware textures (CONTRACT A39, E5) in the C dialects. A kernel that samples a texture goes
// through the compile driver as dispatch runs it: where the target samples in hardware, each
// dialect spells its texture form (CUDA/HIP texture objects and tex3D, OpenCL C image3d_t with
// a sampler for Level Zero, MSL texture3d<float>), and the vendor compilers accept it; where it
// does not, the software form remains. On PoCL the OpenCL image form runs, in both coordinate
// conventions the dialects use, against the trilinear reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/emitter.hpp"
#include "compile_tools.hpp"
#include "frontend/parser.hpp"
#include "runtime/opencl/runner.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "unit/compile_helper.hpp"

namespace tack::cfamily_test {
namespace {

namespace cf = codegen::cfamily;

constexpr const char* kSource = R"(import tack

@tack.func
def density(tex, p):
    return tex.sample(p.x, p.y, p.z)

@tack.kernel
def sample(tex, pts, out):
    for i in range(out.shape[0]):
        p = pts[i]
        out[i] = density(tex, p)

@tack.kernel
def render(tex, rays, out, n):
    for i in range(n):
        p = rays[i]
        w = 0.0
        while w < p.z:
            w += tex.sample(p.x, 0.25, w) + 0.125
        out[i] = tex.sample(0.5, p.y, 1.0) + w
)";

constexpr int64_t kW = 8, kH = 16, kD = 32;

// The specialized kernel dispatch compiles: texture extents (W, H, D), every other extent 64.
ir::Kernel specialized(const char* name, const char* args, bool hardware, int64_t w = kW,
                       int64_t h = kH, int64_t d = kD) {
    passes::TextureInHardware in_hardware;
    if (hardware) in_hardware = [](const std::array<int64_t, 3>&) { return true; };
    return testing::compiled_ir(
        {.source = kSource,
         .kernel = name,
         .args = args,
         .target = "cuda",
         .extent =
             [&](int p, int dim) {
                 return p == 0 ? std::array{d, h, w}[dim] : dim == 1 ? 3 : 64;
             },
         .textures = in_hardware,
         .path = "textures.py"});
}

ir::Kernel render(bool hardware) {
    return specialized("render", "tex3d,f32x3[:],f32[:],i32", hardware);
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

struct Form {
    const char* dialect;
    std::vector<const char*> parts;
};

// What each dialect's hardware form must contain; W = 8 texels along u, so u maps to
// c * 7 + 0.5 texel units, over 8 where the dialect samples normalized coordinates.
const Form kForms[] = {
    {"cuda",
     {"cudaTextureObject_t tack_var_tex", "tex3D<float>(tack_var_tex, ", " * 7.0f) + 0.5f"}},
    {"hip", {"hipTextureObject_t tack_var_tex", "tex3D<float>(tack_var_tex, ", "+ 0.5f) / 8.0f"}},
    {"opencl",
     {"__read_only image3d_t tack_var_tex",
      "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR",
      "read_imagef(tack_var_tex, tack_sampler, (float4)(", " * 7.0f) + 0.5f"}},
    {"metal",
     {"    texture3d<float> tack_var_tex;\n",  // a field of the argument buffer
      "texture3d<float> tack_var_tex = tack_args.tack_var_tex;",
      "constexpr sampler tack_sampler(coord::normalized, address::clamp_to_edge, "
      "filter::linear);",
      "tack_var_tex.sample(tack_sampler, float3(", "+ 0.5f) / 8.0f"}},
};

TEST(CFamilyTextures, EachDialectSpellsItsHardwareForm) {
    for (const Form& f : kForms) {
        cf::GeneratedSource gen = cf::generate(render(true), cf::dialect(f.dialect));
        for (const char* part : f.parts)
            EXPECT_TRUE(contains(gen.source, part)) << f.dialect << ": " << part << "\n"
                                                    << gen.source;
        EXPECT_FALSE(contains(gen.source, "tack_var_tex[")) << "no texel is loaded in software";
        ASSERT_EQ(gen.abi.params.size(), 4u);
        EXPECT_TRUE(gen.abi.params[0].is_array && gen.abi.params[0].is_texture);
        EXPECT_EQ(gen.abi.params[0].texture_extent, (std::array<int64_t, 3>{kW, kH, kD}));
        EXPECT_FALSE(gen.abi.params[1].is_texture);
    }
}

TEST(CFamilyTextures, ConstantCoordinatesFold) {
    // tex.sample(0.5, p.y, 1.0): u = 0.5 * 7 + 0.5 = 4 texel units, w = 31 + 0.5.
    std::string src = cf::emit(render(true), cf::cuda_dialect());
    EXPECT_TRUE(contains(src, "tex3D<float>(tack_var_tex, 4.0f, ")) << src;
    EXPECT_TRUE(contains(src, ", 31.5f)")) << src;
}

TEST(CFamilyTextures, WithoutHardwareTheSoftwareFormRemains) {
    for (const Form& f : kForms) {
        std::string src = cf::emit(render(false), cf::dialect(f.dialect));
        EXPECT_TRUE(contains(src, "tack_var_tex[")) << f.dialect << "\n" << src;
        for (const char* word : {"Texture", "image3d_t", "texture3d", "tack_sampler"})
            EXPECT_FALSE(contains(src, word)) << f.dialect << ": " << word;
    }
}

TEST(CFamilyTextures, ADeclinedExtentIsSampledInSoftware) {
    // The choice is per texture and sees its extents (W, H, D), as Backend::texture_in_hardware.
    std::vector<std::array<int64_t, 3>> asked;
    ir::Kernel k =
        testing::compiled_ir({.source = kSource,
                              .kernel = "sample",
                              .args = "tex3d,f32x3[:],f32[:]",
                              .target = "cuda",
                              .extent =
                                  [](int p, int dim) {
                                      return p == 0 ? std::array{kD, kH, kW}[dim] : 3;
                                  },
                              .textures =
                                  [&](const std::array<int64_t, 3>& whd) {
                                      asked.push_back(whd);
                                      return whd[2] <= 16;  // a device whose 3-D limit is 16
                                  },
                              .path = "textures.py"});
    EXPECT_EQ(asked, (std::vector<std::array<int64_t, 3>>{{kW, kH, kD}}));
    EXPECT_TRUE(contains(cf::emit(k, cf::cuda_dialect()), "tack_var_tex[")) << "D = 32 > 16";
}

using Compiler = ToolResult (*)(const std::string&);

void compile_both_forms(const char* dialect, Compiler compile) {
    for (bool hardware : {true, false}) {
        std::string src = cf::emit(render(hardware), cf::dialect(dialect));
        ToolResult r = compile(src);
        if (!r.available) GTEST_SKIP() << dialect << ": " << r.why;
        EXPECT_TRUE(r.ok) << dialect << (hardware ? " hardware" : " software") << ":\n"
                          << r.log << "\n--- source ---\n"
                          << src;
    }
}

TEST(CFamilyTextures, CudaThroughNvrtcAndPtxas) {
    compile_both_forms("cuda", compile_cuda);
    std::string ptx;
    ToolResult r = compile_cuda_ptx(cf::emit(render(true), cf::cuda_dialect()), &ptx);
    if (!r.available) GTEST_SKIP() << r.why;
    EXPECT_TRUE(contains(ptx, "tex.3d.v4.f32.f32")) << "a hardware texture fetch:\n" << ptx;
}

TEST(CFamilyTextures, HipThroughHiprtc) {
    compile_both_forms("hip", compile_hip);
    std::string disassembly;
    ToolResult r = compile_hip_disassemble(cf::emit(render(true), cf::hip_dialect()), &disassembly);
    if (!r.available) GTEST_SKIP() << r.why;
    if (disassembly.empty()) GTEST_SKIP() << "llvm-objdump-19 not found";
    EXPECT_TRUE(contains(disassembly, "image_sample")) << "a gfx90a image sample";
}

// Level Zero compiles the OpenCL dialect to SPIR-V: the same path as its runtime's ocloc input.
TEST(CFamilyTextures, LevelZeroOpenCLThroughClangSpirv) {
    compile_both_forms("opencl", compile_opencl);
}

// There is no Metal compiler on Linux: the MSL is checked textually (above) and for syntax and
// types through clang++ over the emulated Metal device's <metal_stdlib>, which models
// texture3d<float> and sampler.
TEST(CFamilyTextures, MetalSyntaxThroughClangShim) {
    compile_both_forms("metal", compile_metal);
}

// ---- the OpenCL image form on PoCL -------------------------------------------------------

// Texel centres at 0 and 1, coordinates clamped (NaN to 0), x along the last storage axis; in
// double, as tests/python/test_textures.py's NumPy reference.
double trilinear(const std::vector<float>& vol, int64_t w, int64_t h, int64_t d, const float* p) {
    auto axis = [](double c, int64_t n, int64_t* i0, int64_t* i1) {
        double x = std::min(std::max(std::isnan(c) ? 0.0 : c, 0.0), 1.0) * double(n - 1);
        *i0 = std::min(int64_t(x), std::max<int64_t>(n - 2, 0));
        *i1 = std::min(*i0 + 1, n - 1);
        return x - double(*i0);
    };
    int64_t x0, x1, y0, y1, z0, z1;
    double tx = axis(p[0], w, &x0, &x1), ty = axis(p[1], h, &y0, &y1), tz = axis(p[2], d, &z0, &z1);
    auto at = [&](int64_t k, int64_t j, int64_t i) {
        return double(vol[size_t((k * h + j) * w + i)]);
    };
    auto lerp = [](double a, double b, double t) { return a * (1 - t) + b * t; };
    auto plane = [&](int64_t k) {
        return lerp(lerp(at(k, y0, x0), at(k, y0, x1), tx), lerp(at(k, y1, x0), at(k, y1, x1), tx),
                    ty);
    };
    return lerp(plane(z0), plane(z1), tz);
}

// OpenCL with normalized coordinates: the convention the HIP and Metal dialects emit.
cf::Dialect normalized_opencl() {
    cf::Dialect d = cf::opencl_dialect();
    d.texture_sampler =
        "__constant sampler_t tack_sampler =\n"
        "    CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n";
    d.texture_normalized = true;
    return d;
}

TEST(CFamilyTextures, TheImageFormMatchesTheTrilinearReferenceOnPocl) {
    std::string why;
    auto runner = runtime::opencl::ClRunner::create(&why);
    if (!runner) GTEST_SKIP() << why;
    const int64_t w = 5, h = 4, d = 3, n = 2000;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), wide(-0.25f, 1.25f);
    std::vector<float> vol(size_t(w * h * d)), pts(size_t(n * 3));
    for (float& v : vol)
        v = unit(rng);
    for (float& c : pts)
        c = wide(rng);
    // Texel centres, the corners, and NaN (clamped to 0 before the sampler sees it).
    const float fixed[][3] = {
        {0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0.25f, 1.0f / 3, 0.5f}, {NAN, 0.5f, 2.0f}};
    for (size_t k = 0; k < std::size(fixed); ++k)
        std::copy(fixed[k], fixed[k] + 3, pts.begin() + long(3 * k));
    ir::Kernel k = specialized("sample", "tex3d,f32x3[:],f32[:]", true, w, h, d);
    // The third: texel-unit coordinates given to a normalized sampler, which must be caught.
    cf::Dialect mismatched = normalized_opencl();
    mismatched.texture_normalized = false;
    const std::pair<cf::Dialect, bool> cases[] = {
        {cf::opencl_dialect(), false}, {normalized_opencl(), false}, {mismatched, true}};
    for (const auto& [dialect, wrong] : cases) {
        cf::GeneratedSource gen = cf::generate(k, dialect);
        std::vector<float> out(size_t(n), -1.0f);
        ASSERT_EQ(gen.abi.num_args, 4);  // tex, pts, out, __n__
        std::vector<runtime::opencl::ClArg> args = {
            runtime::opencl::ClArg::image3d(vol.data(), size_t(w), size_t(h), size_t(d)),
            runtime::opencl::ClArg::buffer(pts.data(), pts.size() * 4, false),
            runtime::opencl::ClArg::buffer(out.data(), out.size() * 4),
            runtime::opencl::ClArg::value(&n, sizeof n)};
        std::string error = runner->run(gen.source, gen.abi.entry, args, uint64_t(n));
        if (contains(error, "clCreateImage")) GTEST_SKIP() << error;
        ASSERT_EQ(error, "") << gen.source;
        // PoCL filters in float: the reference within float rounding (1.2e-7 measured). A GPU's
        // sampler weighs with 8-bit fractions: see tests/unit/cuda's hardware texture test.
        double worst = 0;
        for (int64_t i = 0; i < n; ++i)
            worst = std::max(
                worst, std::abs(out[size_t(i)] - trilinear(vol, w, h, d, &pts[size_t(3 * i)])));
        const char* convention = wrong                        ? "mismatched"
                                 : dialect.texture_normalized ? "normalized"
                                                              : "texel-unit";
        std::printf("PoCL image sampling, %s coordinates: worst |error| %.3g\n", convention, worst);
        if (wrong) {
            EXPECT_GT(worst, 0.05) << "the comparison must tell the conventions apart";
            continue;
        }
        EXPECT_LT(worst, 1e-6) << convention;
        EXPECT_EQ(out[0], vol[0]);
        EXPECT_EQ(out[1], vol.back());
        EXPECT_EQ(out[2], vol[size_t(w - 1)]);
    }
}

}  // namespace
}  // namespace tack::cfamily_test
