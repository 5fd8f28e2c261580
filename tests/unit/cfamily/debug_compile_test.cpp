// Debug variants (DECISIONS "Debug mode") of kernels that exercise every check, emitted for each
// C dialect and compiled by the real vendor compilers (NVRTC + ptxas, hipRTC, clang-15 +
// llvm-spirv + spirv-val for OpenCL C / Level Zero, clang over the MSL shim). A missing tool
// skips with its reason. The plain variants of the same kernels go through the same compilers,
// so a failure here is the debug rewrite's.
#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/emitter.hpp"
#include "compile_tools.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"
#include "unit/compile_helper.hpp"

namespace tack::cfamily_test {
namespace {

namespace cf = tack::codegen::cfamily;

const char* const kSource = R"(import tack

@tack.func
def neighbour(x, i):
    return x[i + 1]

@tack.kernel
def fields(a, b, v, c, n: int):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        t = tack.local_array(tack.f32, 4)
        t[j % 4] = b[i, j]
        w = v[i]
        a[i, j] = t[(j + 1) % 4] + w.x + (neighbour(c, j) if j + 1 < n else 0.0)

@tack.kernel
def ints(q, r, s, d, k: int):
    base = q[0] // k
    for i in range(q.shape[0]):
        m = i
        while m < q.shape[0] and r[m] % k > 0:
            m += 1
        q[i] = q[i] // r[i] + base
        s[i] = s[i] % (d[i] + 1)
        tack.atomic_add(r, q[i] % 4, 1)

@tack.kernel
def sample(tex, u, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(u[i], u[i + 1], 0.5)

@tack.kernel
def group(x, y):
    for i in range(x.shape[0]):
        sh = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        sh[t] = x[i]
        tack.barrier()
        y[i] = sh[255 - t] + tack.block_sum(x[i])
)";

struct Variant {
    const char* kernel;
    const char* args;  // f32x3[:] is a field of 3-vectors, tex3d a texture
    bool textured() const { return std::string_view(args).find("tex3d") != std::string_view::npos; }
};

// The variant dispatch would build: lower, debug checks, shapes, optimize.
ir::Kernel debug_variant(const Variant& v, const char* target) {
    // The target's texture form: hardware sampling where the dialect has it.
    return testing::compiled_ir({.source = kSource,
                                 .kernel = v.kernel,
                                 .args = v.args,
                                 .target = target,
                                 .debug = true,
                                 .extent = testing::every_extent(256)});
}

void compile_debug_variants(const char* target, ToolResult (*compile)(const std::string&)) {
    const char* dialect_name = std::string_view(target) == "level_zero" ? "opencl" : target;
    const cf::Dialect& d = cf::dialect(dialect_name);
    std::vector<Variant> variants = {
        {"fields", "f32[:,:],f32[:,:],f32x3[:],f32[:],i32"},
        {"ints", "i32[:],i32[:],u32[:],u32[:],i32"},
        {"ints", "i64[:],i32[:],i8[:],i8[:],i32"},
        {"sample", "tex3d,f32[:],f32[:]"},
        {"group", "f32[:],f32[:]"},
    };
    for (const Variant& v : variants) {
        std::string src = cf::emit(debug_variant(v, target), d);
        ASSERT_NE(src.find("debug"), std::string::npos) << src;
        if (v.textured() && std::string_view(target) != "opencl") {
            bool hardware = src.find("tex3D<float>") != std::string::npos ||
                            src.find("read_imagef") != std::string::npos ||
                            src.find("texture3d<float>") != std::string::npos;
            EXPECT_TRUE(hardware) << target << " samples in software:\n" << src;
        }
        ToolResult r = compile(src);
        if (!r.available) GTEST_SKIP() << dialect_name << ": " << r.why;
        EXPECT_TRUE(r.ok) << dialect_name << " " << v.kernel << "(" << v.args << "):\n"
                          << r.log << "\n--- source ---\n"
                          << src;
    }
}

TEST(DebugVariantsCompile, Cuda) {
    compile_debug_variants("cuda", compile_cuda);
}
TEST(DebugVariantsCompile, Hip) {
    compile_debug_variants("hip", compile_hip);
}
TEST(DebugVariantsCompile, OpenCL) {
    compile_debug_variants("opencl", compile_opencl);
}
TEST(DebugVariantsCompile, LevelZero) {
    compile_debug_variants("level_zero", compile_opencl);  // OpenCL C, hardware textures
}
TEST(DebugVariantsCompile, Metal) {
    compile_debug_variants("metal", compile_metal);
}

}  // namespace
}  // namespace tack::cfamily_test
