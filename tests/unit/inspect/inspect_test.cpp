// runtime/inspect: the code one variant becomes, per target (CONTRACT C26), shared by
// tack.inspect and tackc.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "runtime/inspect.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "unit/compile_helper.hpp"

namespace tack::runtime {
namespace {

constexpr const char* kSaxpy = R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)";

// saxpy for (f32[:], f32[:], f32) with 64-element arrays, specialized and optimized.
ir::Kernel saxpy_variant() {
    return testing::compiled_ir({.source = kSaxpy,
                                 .kernel = "saxpy",
                                 .args = "f32[:],f32[:],f32",
                                 .extent = testing::every_extent(64),
                                 .path = "saxpy.py"});
}

template <class E>
std::string message_of(auto&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "<no exception>";
}

TEST(InspectMode, NamesTheThreeModes) {
    EXPECT_EQ(inspect_mode("ir"), InspectMode::Ir);
    EXPECT_EQ(inspect_mode("source"), InspectMode::Source);
    EXPECT_EQ(inspect_mode("optimized"), InspectMode::Optimized);
    EXPECT_EQ(message_of<ValueError>([] { inspect_mode("ptx"); }),
              "Unknown inspect mode: 'ptx'. Use 'ir', 'source', or 'optimized'.");
}

TEST(RenderVariant, CpuIsLlvmIrWithTheDisjointBit) {
    ir::Kernel k = saxpy_variant();
    std::string disjoint = render_variant(k, "cpu", InspectMode::Source, true);
    std::string aliased = render_variant(k, "cpu", InspectMode::Source, false);
    EXPECT_NE(disjoint.find("define"), std::string::npos);
    EXPECT_NE(disjoint.find("noalias"), std::string::npos);
    EXPECT_EQ(aliased.find("noalias"), std::string::npos);
    EXPECT_NE(render_variant(k, "cpu", InspectMode::Optimized, true).find("define"),
              std::string::npos);
}

TEST(RenderVariant, GpuTargetsShowTheirDialect) {
    ir::Kernel k = saxpy_variant();
    EXPECT_NE(render_variant(k, "opencl", InspectMode::Source, false).find("__kernel void"),
              std::string::npos);
    EXPECT_NE(render_variant(k, "level_zero", InspectMode::Source, false).find("__kernel void"),
              std::string::npos);
    EXPECT_NE(render_variant(k, "cuda", InspectMode::Source, false).find("__global__"),
              std::string::npos);
    std::string msg =
        message_of<ValueError>([&] { render_variant(k, "opencl", InspectMode::Optimized, false); });
    EXPECT_EQ(msg.rfind("inspect mode 'optimized' is CPU only: ", 0), 0u) << msg;
    EXPECT_NE(message_of<ValueError>([&] {
                  render_variant(k, "vulkan", InspectMode::Source, false);
              }).find("unknown inspect target 'vulkan'"),
              std::string::npos);
}

}  // namespace
}  // namespace tack::runtime
