// Vector, matrix and constant-table kernels written as Tack source, lowered by sema (which
// scalarizes them) and emitted for each dialect, through each vendor's real compiler with no
// GPU. The zoo covers the IR nodes one by one; these cover what real programs write.
#include <gtest/gtest.h>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/emitter.hpp"
#include "compile_tools.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "unit/compile_helper.hpp"

namespace tack::cfamily_test {
namespace {

namespace cf = codegen::cfamily;

constexpr const char* kSource = R"(import tack
FACES = tack.constant((0, 4, 7, 3, 1, 2, 6, 5), tack.i32)
SUN = tack.constant((0.5, 0.25, 1.0))

@tack.func
def gravity(p, q, eps):
    d = q - p
    r2 = d.norm_sqr() + eps
    return d * (1.0 / (r2 * tack.sqrt(r2)))

@tack.kernel
def nbody(pos, vel, n, dt):
    for i in range(n):
        p = pos[i]
        acc = tack.Vector([0.0, 0.0, 0.0])
        for j in range(n):
            acc += gravity(p, pos[j], 0.01)
        vel[i] = vel[i] + acc * dt

@tack.kernel
def matrices(a, b, v, out, sel, n):
    for i in range(n):
        m = a[i] @ b[i].inverse() + tack.Matrix.identity(3)
        w = m @ v[i]
        k = sel[i]
        m[k, 1] = w[k] + tack.f32(FACES[k])
        out[i] = m.transpose() * m.determinant()
        v[i] = tack.select(w > SUN, w.cross(SUN), w.normalized())

@tack.func
def density(tex, p):
    return tex.sample(p.x, p.y, p.z)

@tack.kernel
def render(tex, rays, out, n):
    for i in range(n):
        p = rays[i]
        out[i] = density(tex, p) + tex.sample(0.5, p.y, 1.0)
)";

std::vector<ir::Kernel> lowered_kernels() {
    auto templ = [](const char* kernel, const char* args) {
        return testing::compiled_ir({.source = kSource,
                                     .kernel = kernel,
                                     .args = args,
                                     .target = "cuda",
                                     .stop_after = driver::Stage::Template,
                                     .path = "vectors.py"});
    };
    std::vector<ir::Kernel> out;
    out.push_back(templ("nbody", "f32x3[:],f32x3[:],i32,f32"));
    out.push_back(templ("matrices", "f32x3x3[:],f32x3x3[:],f32x3[:],f32x3x3[:],i32[:],i32"));
    // Textures: sampled in hardware (the CUDA row), the samples stay TexSample, so every
    // dialect emits its hardware form (texture_test.cpp covers both forms).
    out.push_back(testing::compiled_ir({.source = kSource,
                                        .kernel = "render",
                                        .args = "tex3d,f32x3[:],f32[:],i32",
                                        .target = "cuda",
                                        .extent =
                                            [](int p, int dim) {
                                                return p == 0 ? std::array{8, 16, 32}[dim] : 1024;
                                            },
                                        .path = "vectors.py"}));
    return out;
}

using Compiler = ToolResult (*)(const std::string&);

void compile_vectors(const char* dialect_name, Compiler compile) {
    const cf::Dialect& d = cf::dialect(dialect_name);
    for (const ir::Kernel& k : lowered_kernels()) {
        std::string src = cf::emit(k, d);
        EXPECT_NE(src.find("__tack_table_") == std::string::npos, k.name == "matrices") << src;
        ToolResult r = compile(src);
        if (!r.available) GTEST_SKIP() << dialect_name << ": " << r.why;
        EXPECT_TRUE(r.ok) << dialect_name << " kernel " << k.name << ":\n"
                          << r.log << "\n--- source ---\n"
                          << src;
    }
}

TEST(CFamilyVectorKernels, CudaThroughNvrtcAndPtxas) {
    compile_vectors("cuda", compile_cuda);
}
TEST(CFamilyVectorKernels, HipThroughHiprtc) {
    compile_vectors("hip", compile_hip);
}
TEST(CFamilyVectorKernels, OpenCLThroughClangSpirv) {
    compile_vectors("opencl", compile_opencl);
}
TEST(CFamilyVectorKernels, MetalSyntaxThroughClangShim) {
    compile_vectors("metal", compile_metal);
}

}  // namespace
}  // namespace tack::cfamily_test
