// The f32 array-reduction kernels (codegen/cfamily/reduction.hpp) through each vendor's real
// compiler, with no GPU; a missing tool skips its check with the reason printed. The OpenCL
// kernels run for real in tests/unit/opencl/reduce_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/reduction.hpp"
#include "compile_tools.hpp"

namespace tack::cfamily_test {
namespace {

namespace cfr = tack::codegen::cfamily;
using Compiler = ToolResult (*)(const std::string&);

constexpr cfr::ReduceOp kOps[] = {cfr::ReduceOp::Sum, cfr::ReduceOp::Min, cfr::ReduceOp::Max};

void compile_all(const char* dialect_name, Compiler compile) {
    const cfr::Dialect& d = cfr::dialect(dialect_name);
    for (cfr::ReduceOp op : kOps) {
        std::string src = cfr::array_reduction_source(d, op);
        ToolResult r = compile(src);
        if (!r.available) GTEST_SKIP() << dialect_name << ": " << r.why;
        EXPECT_TRUE(r.ok) << dialect_name << " " << cfr::array_reduction_entry(op) << ":\n"
                          << r.log << "\n--- source ---\n"
                          << src;
    }
}

TEST(CFamilyReduction, CudaThroughNvrtcAndPtxas) {
    compile_all("cuda", compile_cuda);
}
TEST(CFamilyReduction, HipThroughHiprtc) {
    compile_all("hip", compile_hip);
}
TEST(CFamilyReduction, OpenCLThroughClangSpirv) {
    compile_all("opencl", compile_opencl);
}
TEST(CFamilyReduction, MetalSyntaxThroughClangShim) {
    compile_all("metal", compile_metal);
}

TEST(CFamilyReduction, EntryNamesAndIdentities) {
    EXPECT_EQ(cfr::array_reduction_entry(cfr::ReduceOp::Sum), "tack_reduce_sum_f32");
    EXPECT_EQ(cfr::array_reduction_entry(cfr::ReduceOp::Min), "tack_reduce_min_f32");
    EXPECT_EQ(cfr::array_reduction_entry(cfr::ReduceOp::Max), "tack_reduce_max_f32");
    float zero = cfr::reduction_identity(cfr::ReduceOp::Sum);
    EXPECT_EQ(zero, 0.0f);
    EXPECT_FALSE(std::signbit(zero));
    EXPECT_EQ(cfr::reduction_identity(cfr::ReduceOp::Min), INFINITY);
    EXPECT_EQ(cfr::reduction_identity(cfr::ReduceOp::Max), -INFINITY);
}

// Native f32 atomic add where the dialect has one; OpenCL 1.2 has none, so its sum reuses the
// emitter's compare-and-swap helper. Extrema always need the C17 loop.
TEST(CFamilyReduction, AtomicCombinePerDialect) {
    std::string cuda = cfr::array_reduction_source(cfr::dialect("cuda"), cfr::ReduceOp::Sum);
    EXPECT_NE(cuda.find("atomicAdd(out, tack_partial[0]);"), std::string::npos) << cuda;
    std::string ocl = cfr::array_reduction_source(cfr::dialect("opencl"), cfr::ReduceOp::Sum);
    EXPECT_NE(ocl.find("tack_atomic_add_f32(out, tack_partial[0]);"), std::string::npos) << ocl;
    std::string mx = cfr::array_reduction_source(cfr::dialect("metal"), cfr::ReduceOp::Max);
    EXPECT_NE(mx.find("tack_block_max_f32"), std::string::npos) << mx;
    EXPECT_NE(mx.find("tack_reduce_atomic_max_f32(out, tack_partial[0]);"), std::string::npos)
        << mx;
    EXPECT_NE(mx.find("threadgroup float tack_partial[256];"), std::string::npos) << mx;
}

}  // namespace
}  // namespace tack::cfamily_test
