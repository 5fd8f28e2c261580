// Every zoo kernel through each vendor's real compiler, with no GPU. A missing tool skips its
// check with the reason printed.
#include "codegen/cfamily/dialect.hpp"
#include "compile_tools.hpp"
#include "kernel_zoo.hpp"

namespace tack::cfamily_test {
namespace {

using Compiler = ToolResult (*)(const std::string&);

void compile_all(const char* dialect_name, Compiler compile) {
    const cf::Dialect& d = cf::dialect(dialect_name);
    bool f64 = !d.type[static_cast<int>(DType::f64)].empty();
    std::vector<Kernel> kernels = {zoo_saxpy(DType::f32), zoo_workgroup(), zoo_control(),
                                   zoo_float(DType::f32),
                                   zoo_atomics(cf::supported_atomic_dtypes(d))};
    if (f64) {
        kernels.push_back(zoo_saxpy(DType::f64));
        kernels.push_back(zoo_float(DType::f64));
    }
    for (int t = 0; t < 8; ++t)
        kernels.push_back(zoo_integer(static_cast<DType>(t)));
    for (const Kernel& k : kernels) {
        std::string src = cf::emit(k, d);
        ToolResult r = compile(src);
        if (!r.available) GTEST_SKIP() << dialect_name << ": " << r.why;
        EXPECT_TRUE(r.ok) << dialect_name << " kernel " << k.name << ":\n"
                          << r.log << "\n--- source ---\n"
                          << src;
    }
}

TEST(CFamilyCompileOnly, CudaThroughNvrtcAndPtxas) {
    compile_all("cuda", compile_cuda);
}
TEST(CFamilyCompileOnly, HipThroughHiprtc) {
    compile_all("hip", compile_hip);
}
TEST(CFamilyCompileOnly, OpenCLThroughClangSpirv) {
    compile_all("opencl", compile_opencl);
}
TEST(CFamilyCompileOnly, LevelZeroThroughClangSpirv) {
    compile_all("level_zero", compile_opencl);
}
TEST(CFamilyCompileOnly, MetalSyntaxThroughClangShim) {
    compile_all("metal", compile_metal);
}

// Under --fmad=true NVRTC fuses a product into a later statement's add unless the product is
// spelled __fmul_rn; within one expression the fusion is permitted and does happen.
TEST(CFamilyCompileOnly, CudaProductThroughVariableIsNotFused) {
    for (bool through_variable : {true, false}) {
        KernelBuilder b("fma");
        auto x = b.array("x", DType::f32), z = b.array("z", DType::f32);
        auto i = b.dim("i", 0, 0);
        auto p = b.local("p", DType::f32);
        auto product = bin(BinaryOp::Mul, ld(x, vr(i)), ld(x, vr(i)));
        if (through_variable)
            b.k.body = {Assign::make(p, product),
                        st(z, vr(i), bin(BinaryOp::Add, vr(p), ld(z, vr(i))))};
        else
            b.k.body = {st(z, vr(i), bin(BinaryOp::Add, product, ld(z, vr(i))))};
        std::string ptx;
        ToolResult r = compile_cuda_ptx(cf::emit(b.k, cf::dialect("cuda")), &ptx);
        if (!r.available) GTEST_SKIP() << r.why;
        ASSERT_TRUE(r.ok) << r.log;
        bool fused = ptx.find("fma.rn.f32") != std::string::npos;
        EXPECT_EQ(fused, !through_variable) << ptx;
    }
}

// hipRTC defaults to -ffp-contract=fast; with the HIP dialect's -ffp-contract=on a product that
// went through a variable stays a separate multiply (gfx90a: no v_fma/v_fmac/v_mad).
TEST(CFamilyCompileOnly, HipProductThroughVariableIsNotFused) {
    KernelBuilder b("fma");
    auto x = b.array("x", DType::f32), z = b.array("z", DType::f32);
    auto i = b.dim("i", 0, 0);
    auto p = b.local("p", DType::f32);
    b.k.body = {Assign::make(p, bin(BinaryOp::Mul, ld(x, vr(i)), ld(z, vr(i)))),
                st(z, vr(i), bin(BinaryOp::Sub, vr(p), vr(p))),
                st(x, vr(i), bin(BinaryOp::Add, vr(p), fc(DType::f32, 1.0)))};
    std::string dis;
    ToolResult r = compile_hip_disassemble(cf::emit(b.k, cf::dialect("hip")), &dis);
    if (!r.available) GTEST_SKIP() << r.why;
    ASSERT_TRUE(r.ok) << r.log;
    if (dis.find("v_mul_f32") == std::string::npos) GTEST_SKIP() << "no disassembly:\n" << dis;
    for (const char* fused : {"v_fma_f32", "v_fmac_f32", "v_mad_f32", "v_mac_f32"})
        EXPECT_EQ(dis.find(fused), std::string::npos) << fused << " in\n" << dis;
}

// The zoo also runs on PoCL's OpenCL compiler, which is the one that executes our tests.
TEST(CFamilyCompileOnly, OpenCLZooBuildsOnPoCL) {
    std::string why;
    auto* runner = opencl_runner(&why);
    if (!runner) GTEST_SKIP() << why;
    for (const Kernel& k : {zoo_control(), zoo_workgroup()}) {
        cf::GeneratedSource g = cf::generate(k, cf::dialect("opencl"));
        std::vector<runtime::opencl::ClArg> none;
        std::string error = runner->run(g.source, g.abi.entry, none, 0);
        // No launch happens with 0 items; a build error or a missing entry would show here.
        EXPECT_TRUE(error.empty() || error.find("argument") != std::string::npos) << error;
    }
}

}  // namespace
}  // namespace tack::cfamily_test
