// The Metal backend on the emulated Metal device (tests/emulated/metal.cpp: a stand-in libobjc
// + Metal that runs the MSL on the CPU), or on a Mac: every check of the shared device suite,
// the seed's batching (a command buffer per 64 commands), a queued launch's error at the next
// wait, the argument buffer with overlapping arrays, and what the backend says off macOS.
#include <gtest/gtest.h>

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
    const metal::MetalBackend& backend() const {
        return static_cast<const metal::MetalBackend&>(*dev_.backend());
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
    dev_.synchronize();
    EXPECT_EQ(backend().command_buffers() - before, 3u);
    // x <- 3x + 1, 130 times from 0: (3^130 - 1) / 2 overflows f32 to inf.
    float want = 0.0f;
    for (int i = 0; i < 130; ++i)
        want = want * 3.0f + 1.0f;
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
