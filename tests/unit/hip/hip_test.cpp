// The HIP backend without an AMD GPU: hipRTC (in libamdhip64 or libhiprtc) compiles the test
// kernels and the reduction sources to gfx90a code objects through the runtime's own path; the
// launch limit; TACK_HIP_ALLOCATOR; a device that cannot start is explained. With a GPU the
// backend runs the shared end-to-end checks below.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "codegen/cfamily/reduction.hpp"
#include "frontend/parser.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/hip/hip_backend.hpp"
#include "support/env.hpp"
#include "tack/tack.hpp"
#include "unit/compile_helper.hpp"
#include "unit/device_suite/device_suite.hpp"

namespace hip = tack::runtime::hip;
namespace cf = tack::codegen::cfamily;

namespace {

using tack::device_suite::kKernels;  // saxpy, group_sums, histogram, ...

std::string hip_source(const char* kernel, const char* args) {
    tack::ir::Kernel k = tack::testing::compiled_ir({.source = kKernels,
                                                     .kernel = kernel,
                                                     .args = args,
                                                     .target = "hip",
                                                     .extent = tack::testing::every_extent(4096)});
    return tack::runtime::gpu::generate(k, cf::hip_dialect(), {"HIP", 256, ~0ull}).source;
}

TEST(HipCompile, RuntimeHiprtcPathMakesGfx90aCodeObjects) {
    std::string why;
    if (!tack::runtime::gpu::load_api<hip::HiprtcApi>(&why)) GTEST_SKIP() << why;
    const std::vector<std::string> arch = {"--offload-arch=gfx90a"};
    struct Case {
        const char *kernel, *args;
    };
    for (Case c : {Case{"saxpy", "f32[:],f32[:],f32"}, Case{"saxpy", "f64[:],f64[:],f64"},
                   Case{"group_sums", "f32[:],f32[:]"}, Case{"histogram", "f32[:],i32[:]"}}) {
        auto code = hip::compile_code_object(hip_source(c.kernel, c.args), c.kernel, arch);
        ASSERT_GT(code.size(), 4u) << c.kernel;
        // An offload bundle or an ELF code object.
        std::string head(code.begin(), code.begin() + 4);
        EXPECT_TRUE(head ==
                        "\x7f"
                        "ELF" ||
                    std::string(code.begin(), code.begin() + 8) == "__CLANG_")
            << c.kernel;
    }
    for (auto op : {cf::ReduceOp::Sum, cf::ReduceOp::Min, cf::ReduceOp::Max}) {
        auto code = hip::compile_code_object(cf::array_reduction_source(cf::hip_dialect(), op),
                                             cf::array_reduction_entry(op), arch);
        EXPECT_GT(code.size(), 4u);
    }
}

TEST(HipCompile, OneOptionAndFailuresCarryTheLog) {
    EXPECT_EQ(hip::hiprtc_options(), std::vector<std::string>{"-ffp-contract=on"});
    std::string why;
    if (!tack::runtime::gpu::load_api<hip::HiprtcApi>(&why)) GTEST_SKIP() << why;
    try {
        hip::compile_code_object("extern \"C\" __global__ void broken( {", "broken",
                                 {"--offload-arch=gfx90a"});
        FAIL();
    } catch (const tack::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("Kernel 'broken': hipRTC failed"), std::string::npos)
            << e.what();
    }
}

TEST(HipRules, LaunchLimitIsCappedBelow2To32) {
    EXPECT_EQ(hip::launch_limit(1024), 1024u * 256);
    EXPECT_EQ(hip::launch_limit(0x7fffffff), (std::uint64_t(1) << 32) - 256);
}

TEST(HipRules, AllocatorChoice) {
    ::unsetenv("TACK_HIP_ALLOCATOR");
    EXPECT_FALSE(tack::support::env_hip_pool_allocator());
    ::setenv("TACK_HIP_ALLOCATOR", " Pool ", 1);
    EXPECT_TRUE(tack::support::env_hip_pool_allocator());
    ::setenv("TACK_HIP_ALLOCATOR", "cache", 1);
    EXPECT_FALSE(tack::support::env_hip_pool_allocator());
    ::setenv("TACK_HIP_ALLOCATOR", "slab", 1);
    EXPECT_ANY_THROW(tack::support::env_hip_pool_allocator());
    ::unsetenv("TACK_HIP_ALLOCATOR");
}

// On a device (an AMD GPU, or the emulated one of tests/emulated, which ctest names) every check
// CUDA's suite has; without one, the missing runtime is explained.
class Hip : public tack::device_suite::DeviceTest {
  protected:
    Hip() : DeviceTest("hip") {}
};

TACK_DEVICE_SUITE(Hip, "hip", "hip", "hip_pinned", "hip_managed")

TEST_F(Hip, AQueuedLaunchsErrorSurfacesAtTheNextWait) {
    const auto& b = static_cast<const hip::HipBackend&>(*dev_.backend());
    auto fail = tack::device_suite::fail_kernels_of(b.api().library);
    if (!fail) GTEST_SKIP() << "needs the emulated device's fault injection";
    tack::device_suite::a_queued_launchs_error_surfaces_at_the_next_wait(dev_, fail);
}

// SEED-AUDIT 'HIP · Memory spaces' (CONTRACT C21): pinned and managed memory are told apart
// from device memory by hipPointerGetAttributes, wrapped without a copy, and kernels run on
// them; pageable host memory is "cpu".
TEST_F(Hip, PinnedAndManagedMemoryAreToldApartAndWrapped) {
    const auto& hb = static_cast<const hip::HipBackend&>(*dev_.backend());
    void* lib = dlopen(hb.api().library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    using HostMalloc = hip::hipError_t (*)(void**, std::size_t, unsigned);
    using Free = hip::hipError_t (*)(void*);
    auto host_malloc = reinterpret_cast<HostMalloc>(dlsym(lib, "hipHostMalloc"));
    auto host_free = reinterpret_cast<Free>(dlsym(lib, "hipHostFree"));
    auto malloc_managed = reinterpret_cast<HostMalloc>(dlsym(lib, "hipMallocManaged"));
    if (!host_malloc || !host_free || !malloc_managed) GTEST_SKIP() << "a runtime without them";
    void *pinned = nullptr, *managed = nullptr;
    ASSERT_EQ(host_malloc(&pinned, 4096, 0), 0);
    ASSERT_EQ(malloc_managed(&managed, 4096, 1 /* hipMemAttachGlobal */), 0);
    EXPECT_EQ(hb.memory_space(reinterpret_cast<std::uint64_t>(pinned)), "hip_pinned");
    EXPECT_EQ(hb.memory_space(reinterpret_cast<std::uint64_t>(managed)), "hip_managed");
    std::vector<float> host(256);
    EXPECT_EQ(hb.memory_space(reinterpret_cast<std::uint64_t>(host.data())), "cpu");
    tack::Kernel saxpy = kernel("saxpy");
    for (void* p : {pinned, managed}) {
        tack::Array a = tack::Array::from_ptr(p, tack::f32, {256}, true);
        a.fill(2.0f);
        saxpy(a, a, 1.0f);  // wrapped memory is shared: the launch completes before returning
        EXPECT_EQ(static_cast<const float*>(p)[255], 4.0f);
    }
    EXPECT_THROW(tack::Array::from_ptr(host.data(), tack::f32, {256}, true), tack::RuntimeError);
    EXPECT_EQ(host_free(pinned), 0);
    hb.api().hipFree(managed);
}

// SEED-AUDIT 'HIP · Disk cache': a code object is machine code for one architecture, so the key
// names gcnArchName (with its target features), not the marketing name alone, and the options.
TEST_F(Hip, TheCacheTargetNamesTheArchitectureAndTheOptions) {
    const auto& b = static_cast<const hip::HipBackend&>(*dev_.backend());
    std::string key = b.cache_target().value();
    EXPECT_FALSE(b.arch().empty());
    EXPECT_NE(key.find("hip;arch=" + b.arch() + ";"), std::string::npos) << key;
    EXPECT_EQ(b.arch().rfind("gfx", 0), 0u) << b.arch();
    for (const auto& o : hip::hiprtc_options())
        EXPECT_NE(key.find(o), std::string::npos) << o << " missing from " << key;
}

}  // namespace
