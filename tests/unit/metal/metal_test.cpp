// The Metal backend on the emulated Metal device (tests/emulated/metal.cpp: a stand-in libobjc
// + Metal that runs the MSL on the CPU), or on a Mac: every check of the shared device suite,
// the seed's batching (a command buffer per 64 commands), a queued launch's error at the next
// wait, the argument buffer with overlapping arrays, and what the backend says off macOS.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/metal/metal_backend.hpp"
#include "tack/tack.hpp"
#include "unit/device_suite/device_suite.hpp"

namespace metal = tack::runtime::metal;

namespace {

class Metal : public tack::device_suite::DeviceTest {
  protected:
    Metal() : DeviceTest("metal") {}
    metal::MetalBackend& backend() const {
        return static_cast<metal::MetalBackend&>(*dev_.backend());
    }
};

TACK_DEVICE_SUITE(Metal, "metal")

TEST_F(Metal, AQueuedLaunchsErrorSurfacesAtTheNextWait) {
    const char* lib = std::getenv("TACK_METAL_LIBRARY");
    auto fail = tack::device_suite::fail_kernels_of(lib ? lib : "");
    if (!fail) GTEST_SKIP() << "needs the emulated device's fault injection";
    tack::device_suite::a_queued_launchs_error_surfaces_at_the_next_wait(dev_, fail);
}

// The seed's batching: launches go into the open command buffer, which is committed every 64
// commands; a wait commits the open one.
TEST_F(Metal, ACommandBufferHoldsSixtyFourCommands) {
    tack::Kernel step = kernel("step");
    auto x = tack::zeros(tack::f32, {1000});
    dev_.synchronize();
    std::size_t before = backend().command_buffers();
    for (int i = 0; i < 130; ++i)
        step(x, 1.0f);
    EXPECT_EQ(backend().command_buffers() - before, 2u) << "two full batches, one open";
    for (int i = 0; i < 64 * 6; ++i)
        step(x, 0.0f);
    EXPECT_LE(backend().in_flight(), metal::kInFlight);
    dev_.synchronize();
    EXPECT_EQ(backend().command_buffers() - before, 9u);
    // x <- 3x + 1, 130 times from 0, then x <- 3x 384 times: inf in f32.
    float want = 0.0f;
    for (int i = 0; i < 130; ++i)
        want = want * 3.0f + 1.0f;
    for (int i = 0; i < 64 * 6; ++i)
        want = want * 3.0f;
    EXPECT_EQ(x.to_host<float>()[999], want);
}

// CONTRACT E13: overlapping arrays are legal; the argument buffer holds both addresses.
TEST_F(Metal, OverlappingArraysShareTheirMemory) {
    tack::Kernel saxpy = kernel("saxpy");
    auto x = tack::zeros(tack::f32, {512});
    x.fill(2.0f);
    saxpy(x, x, 3.0f);  // y = a x + y with y = x: 3 * 2 + 2
    EXPECT_EQ(x.to_host<float>()[511], 8.0f);
}

// CONTRACT E1's row beyond the suite's checks: atomics on i32/u32/f32 only, no init options.
TEST_F(Metal, AtomicsAndOptionsFollowTheMatrix) {
    EXPECT_EQ(dev_.supported_atomic_dtypes(), (tack::DTypeSet{tack::i32, tack::u32, tack::f32}));
    EXPECT_THROW(tack::init("metal", {{"num_threads", std::int64_t(2)}}), tack::ValueError);
}

// The seed's group: min(maxTotalThreadsPerThreadgroup, 256). A pipeline admitting 64 threads
// (the emulated device's TACK_EMU_METAL_MAX_THREADS; it aborts on a wider group) runs a plain
// kernel in groups of 64, and a kernel with collectives, which needs 256, is refused.
TEST_F(Metal, ANarrowPipelineGetsNarrowGroups) {
    ::setenv("TACK_EMU_METAL_MAX_THREADS", "64", 1);
    tack::Kernel saxpy = kernel("saxpy");
    auto x = tack::zeros(tack::f32, {1000}), y = tack::zeros(tack::f32, {1000});
    x.fill(1.0f);
    saxpy(x, y, 2.0f);
    EXPECT_EQ(y.to_host<float>()[999], 2.0f);
    tack::Kernel sums = kernel("group_sums");
    auto g = tack::zeros(tack::f32, {512}), out = tack::zeros(tack::f32, {2});
    try {
        sums(g, out);
        ADD_FAILURE() << "a collective kernel ran in groups of 64";
    } catch (const tack::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("needs threadgroups of 256 threads"),
                  std::string::npos)
            << e.what();
    }
    ::unsetenv("TACK_EMU_METAL_MAX_THREADS");
}

// CONTRACT B20: fastMathEnabled is off, so NaN compares unequal to itself and inf survives
// (the emulated compiler takes clang's fast-math liberties when it is on).
TEST_F(Metal, FastMathIsOff) {
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def ieee(x, out):
    for i in range(x.shape[0]):
        out[i] = 1 if x[i] != x[i] else (2 if x[i] > 3.0e38 else 0)
)",
                                               "ieee.py")
                         .kernel("ieee");
    std::vector<float> host = {std::nanf(""), 1.0f, INFINITY};
    auto x = tack::Array::from_host(host, {3});
    auto out = tack::zeros(tack::i32, {3});
    k(x, out);
    EXPECT_EQ(out.to_host<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 2}));
}

// The seed: a library that does not compile is a RuntimeError with the MSL source in it.
TEST_F(Metal, ACompileFailureCarriesTheSource) {
    char dir[] = "/tmp/tack-metal-test-XXXXXX";
    ASSERT_TRUE(::mkdtemp(dir));
    ::setenv("TACK_EMU_CXX", "/bin/false", 1);  // the emulated Metal compiler fails
    ::setenv("TACK_EMU_CACHE", dir, 1);
    ::setenv("TACK_CACHE_DIR", dir, 1);
    auto x = tack::zeros(tack::f32, {8});
    try {
        kernel("doomed")(x);
        ADD_FAILURE() << "the compile failure was not reported";
    } catch (const tack::RuntimeError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("newLibraryWithSource:options:error:"), std::string::npos) << what;
        EXPECT_NE(what.find("MSL source:\n// Generated by Tack. Metal Shading Language"),
                  std::string::npos)
            << what;
    }
    ::unsetenv("TACK_EMU_CXX");
    ::unsetenv("TACK_EMU_CACHE");
    ::unsetenv("TACK_CACHE_DIR");
}

// CONTRACT D10: thread_position_in_grid is a uint, so one launch covers at most 2^32
// iterations; a longer one is a ValueError before anything is encoded.
TEST_F(Metal, OneLaunchIndexesAtMostTwoToTheThirtyTwo) {
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def count(x, n):
    for i in range(n):
        x[0] = 1.0
)",
                                               "count.py")
                         .kernel("count");
    auto x = tack::zeros(tack::f32, {1});
    EXPECT_THROW(k(x, (std::int64_t(1) << 32) + 1), tack::ValueError);
    EXPECT_EQ(x.to_host<float>()[0], 0.0f);
}

// CONTRACT C19 beyond the Python cases: field_from_ptr takes an MTLBuffer of this device in
// shared storage, and refuses any other object before a kernel can see it.
TEST_F(Metal, FromPtrTakesOnlyASharedMtlBufferOfThisDevice) {
    std::string why;
    const metal::Messages* m = metal::Messages::get(&why);
    ASSERT_NE(m, nullptr) << why;
    metal::AutoreleasePool pool(*m);
    auto wrap = [&](metal::Id object, std::int64_t n) {
        return tack::Array::from_ptr(object, tack::f32, {n}, true, dev_);
    };
    metal::Id text = m->string("not a buffer");
    EXPECT_THROW(wrap(text, 4), tack::TypeError);
    m->release_object(text);
    constexpr unsigned long kPrivate = 2 << 4;  // MTLResourceStorageModePrivate
    metal::Id hidden = m->send(backend().device(), m->newBufferWithLength, 64ul, kPrivate);
    EXPECT_THROW(wrap(hidden, 4), tack::ValueError);
    m->release_object(hidden);
    metal::Id other = m->create_device();
    metal::Id elsewhere = m->send(other, m->newBufferWithLength, 64ul, metal::kStorageModeShared);
    EXPECT_THROW(wrap(elsewhere, 4), tack::ValueError);
    m->release_object(elsewhere);
    m->release_object(other);
    // A buffer made outside Tack: the field writes its memory, and keeps it after the caller's
    // release.
    metal::Id mine =
        m->send(backend().device(), m->newBufferWithLength, 4096ul, metal::kStorageModeShared);
    auto* host = static_cast<float*>(m->send<void*>(mine, m->contents));
    for (int i = 0; i < 1024; ++i)
        host[i] = float(i);
    tack::Array a = wrap(mine, 1024);
    m->release_object(mine);
    kernel("saxpy")(a, a, 2.0f);  // y = 2x + y with y = x
    std::vector<float> got = a.to_host<float>();
    for (int i = 0; i < 1024; ++i)
        ASSERT_EQ(got[i], 3.0f * float(i)) << i;
}

TEST(MetalUnavailable, NoDeviceIsExplained) {
    ::setenv("TACK_EMU_METAL_DEVICE", "0", 1);
    try {
        tack::init("metal");  // a new backend: the device is asked for again
        ADD_FAILURE() << "a Metal backend opened without a device";
    } catch (const tack::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("Cannot initialize 'metal' backend"),
                  std::string::npos)
            << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
    }
    ::unsetenv("TACK_EMU_METAL_DEVICE");
    tack::device_suite::leave_device("metal");
}

}  // namespace
