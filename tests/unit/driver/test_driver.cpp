// The compile driver (driver/driver.hpp): compile() runs the stages dispatch runs, stops where
// asked, and refuses what a target's row refuses, with the messages dispatch raises.
#include <gtest/gtest.h>

#include <string>

#include "ir/printer.hpp"
#include "unit/compile_helper.hpp"

namespace tack::driver {
namespace {

constexpr const char* kSource = R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i] + x.shape[0]

@tack.kernel
def sums(x, out):
    for i in range(x.shape[0]):
        tack.barrier()
        tack.atomic_add(out, 0, x[i])

@tack.kernel
def huge(x):
    for i in range(x.shape[0]):
        tack.barrier()
        tmp = tack.local_array(tack.f32, 300000000)
        tmp[0] = x[i]
        x[i] = tmp[0]
)";

testing::Compile saxpy() {
    return {.source = kSource,
            .kernel = "saxpy",
            .args = "f32[:],f32[:],f32",
            .extent = testing::every_extent(64)};
}

template <class E>
std::string message_of(const testing::Compile& c) {
    try {
        testing::compile(c);
    } catch (const E& e) {
        return e.what();
    }
    return "<no exception>";
}

TEST(Driver, TheVariantHasTheCallsExtentsAndTheTemplateNone) {
    testing::Compile c = saxpy();
    std::string variant = ir::print(testing::compiled_ir(c));
    c.stop_after = Stage::Template;
    std::string templ = ir::print(testing::compiled_ir(c));
    EXPECT_EQ(variant.find("cast dim(x,0)"), std::string::npos) << variant;
    EXPECT_NE(templ.find("cast dim(x,0)"), std::string::npos) << templ;
}

TEST(Driver, TheTemplateKnowsWhatDispatchNeeds) {
    Compiled c = testing::compile(saxpy());
    EXPECT_EQ(c.tmpl.facts.written_params, std::vector<int>{1});
    EXPECT_EQ(c.tmpl.dims_used, (std::vector<std::pair<int, int>>{{0, 0}}));
    EXPECT_TRUE(c.tmpl.workgroup_error.empty());
    EXPECT_FALSE(c.tmpl.debug);
}

TEST(Driver, ADebugTemplateCarriesItsRecordAndPlainCodeDoesNot) {
    testing::Compile c = saxpy();
    std::string plain = ir::print(testing::compiled_ir(c));
    c.debug = true;
    Compiled debug = testing::compile(c);
    ASSERT_TRUE(debug.tmpl.debug);
    EXPECT_FALSE(debug.tmpl.debug->sites.empty());
    EXPECT_NE(ir::print(debug.ir), plain);
    // Facts describe the kernel's own code: the record the checks write is not a parameter.
    EXPECT_EQ(debug.tmpl.facts.written_params, std::vector<int>{1});
}

TEST(Driver, ATargetsRowRefusesAsDispatchDoes) {
    EXPECT_EQ(
        message_of<TypeError>(
            {.source = kSource, .kernel = "saxpy", .args = "f64[:],f64[:],f64", .target = "metal"}),
        "Kernel 'saxpy': parameter 'x' has dtype tack.f64, which is not supported on Metal. "
        "Supported dtypes: i8, u8, i16, u16, i32, u32, i64, u64, f32");
    std::string cpu = message_of<NotImplementedError>(
        {.source = kSource, .kernel = "sums", .args = "f32[:],f32[:]"});
    EXPECT_EQ(cpu.rfind("Kernel 'sums': CPU backend does not support workgroup execution", 0), 0u)
        << cpu;
    EXPECT_EQ(message_of<NotImplementedError>(
                  {.source = kSource, .kernel = "sums", .args = "f32[:],f32[:]", .target = "cuda"}),
              "<no exception>");
}

// The refusals come in dispatch's order on every entry point: the located ones (atomic dtypes,
// local arrays past the target's bytes) when the template is made, the workgroup refusal after.
TEST(Driver, RefusalsComeInDispatchsOrder) {
    std::string cpu =
        message_of<diag::CompileError>({.source = kSource, .kernel = "huge", .args = "f32[:]"});
    EXPECT_NE(cpu.find("local_array 'tmp' needs 1.1 GiB"), std::string::npos) << cpu;
}

TEST(Driver, TheKernelsDiagnosticsComeFirst) {
    testing::Compile c{.source =
                           "import tack\n\n@tack.kernel\ndef k(x):\n    for i in range(8):\n       "
                           " x[i] = undefined_name\n",
                       .kernel = "k",
                       .args = "f32[:]",
                       .target = "metal"};
    try {
        testing::compile(c);
        FAIL();
    } catch (const diag::CompileError& e) {
        EXPECT_EQ(e.first().kind, diag::ErrorKind::NameError) << e.first().message;
    }
}

TEST(Driver, TheCacheKeySeparatesWhatChangesTheCode) {
    ir::Kernel v = testing::compiled_ir(saxpy());
    std::string key = variant_cache_key(v, true, false, "x86_64", "cpu");
    EXPECT_EQ(key, variant_cache_key(v, true, false, "x86_64", "cpu"));
    EXPECT_NE(key, variant_cache_key(v, false, false, "x86_64", "cpu"));
    EXPECT_NE(key, variant_cache_key(v, true, true, "x86_64", "cpu"));
    EXPECT_NE(key, variant_cache_key(v, true, false, "aarch64", "cpu"));
    EXPECT_NE(key, variant_cache_key(v, true, false, "x86_64", "opencl"));
    testing::Compile other = saxpy();
    other.extent = testing::every_extent(65);
    EXPECT_NE(key, variant_cache_key(testing::compiled_ir(other), true, false, "x86_64", "cpu"));
}

}  // namespace
}  // namespace tack::driver
