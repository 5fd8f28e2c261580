// The GPU device suite (tests/unit/device_suite) on the Level Zero backend over the simulated
// driver (fake_ze.hpp) and the stand-in ocloc (tests/emulated/ocloc.cpp): kernels go through the
// whole runtime path (pipeline, Level Zero dialect, ocloc, zeModuleCreate, dispatch) and run on
// PoCL. Plus what only Level Zero has: its images, its marks waited outside the launch lock,
// and the Intel workarounds in the source it launches.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "runtime/level_zero/level_zero_backend.hpp"
#include "runtime/level_zero/ocloc.hpp"
#include "runtime/opencl/runner.hpp"
#include "runtime/registry.hpp"
#include "unit/device_suite/device_suite.hpp"
#include "unit/level_zero/fake_ze.hpp"

namespace tack::level_zero_test {
namespace {

namespace l0 = runtime::level_zero;
namespace suite = tack::device_suite;

class LevelZeroSuite : public suite::DeviceTest {
  protected:
    LevelZeroSuite() : DeviceTest("level_zero") {}
    void SetUp() override {
        reset_fake();
        std::string why;
        if (!l0::ocloc_api(&why)) GTEST_SKIP() << "no ocloc (TACK_OCLOC_LIBRARY): " << why;
        if (!runtime::opencl::ClRunner::create(&why)) GTEST_SKIP() << "no PoCL: " << why;
        open();
    }
    void TearDown() override {
        suite::leave_device("cpu");
        dev_ = tack::Device();
        reset_fake();
    }
    /// A Level Zero device on the fake as it is configured now, made the default.
    void open() {
        const l0::ZeApi& api = fake_api();
        auto handles = l0::open_device(api, std::nullopt);
        auto b =
            std::make_shared<l0::LevelZeroBackend>(api, handles, l0::query_device(api, handles));
        dev_ = tack::Device(b);
        runtime::set_default_backend(b);
    }
    bool launched_source_has(std::string_view text) const {
        return !fake().launched_sources.empty() &&
               fake().launched_sources.back().find(text) != std::string::npos;
    }
};

void fail_on_fake(const char* name) {
    fake().fail_kernels = name ? name : "";
}

TEST_F(LevelZeroSuite, CapabilitiesMatchTheMatrix) {
    suite::capabilities_match_the_matrix(dev_, "level_zero", {"level_zero"});
}
TEST_F(LevelZeroSuite, SaxpyMatchesTheHostReference) {
    suite::saxpy_matches_the_host_reference(*this);
}
TEST_F(LevelZeroSuite, QueuedLaunchesFillsAndWritesRunInOrder) {
    suite::queued_launches_fills_and_writes_run_in_order(*this);
}
// SEED-AUDIT 'L0 · Locking': the list and the kernels' argument state are shared, so four
// threads' launches, uploads and reads must each hold the queue's lock.
TEST_F(LevelZeroSuite, FourThreadsKeepTheirOwnScalars) {
    suite::four_threads_keep_their_own_scalars(*this);
}
TEST_F(LevelZeroSuite, ReductionsOnTheDevice) {
    suite::reductions_on_the_device();
}
TEST_F(LevelZeroSuite, CollectivesNeedCompleteGroups) {
    suite::collectives_need_complete_groups(*this);
}
TEST_F(LevelZeroSuite, AQueuedLaunchsErrorSurfacesAtTheNextWait) {
    suite::a_queued_launchs_error_surfaces_at_the_next_wait(dev_, &fail_on_fake);
}

// SEED-AUDIT 'L0 · Textures' and 'L0 · Query': a device with samplers samples a texture of
// extents within maxImageDims3D from a 3-D float image (zeImageCreate), filled on the queue from
// the array's device memory; the image goes with the texture.
TEST_F(LevelZeroSuite, HardwareSamplesMatchTheTrilinearReference) {
    suite::hardware_samples_match_the_trilinear_reference(dev_, "level_zero", false);
    EXPECT_TRUE(launched_source_has("image3d_t")) << "the image form ran";
    EXPECT_NE(log_since(0).find("image-copy"), std::string::npos);
    EXPECT_EQ(fake().live_images, 0u) << "every texture's image is destroyed with it";
}

// SEED-AUDIT 'All · Textures out': a launch that samples a hardware texture completes before it
// returns (the image could otherwise go before a queued launch read it); one on linear memory
// only queues.
TEST_F(LevelZeroSuite, ALaunchThatSamplesAnImageCompletesBeforeReturning) {
    std::vector<float> vol(4 * 4 * 4, 0.5f), coords(8, 0.5f);
    tack::Array tex = tack::Array::from_host(vol, {4, 4, 4}).as_texture();
    auto u = tack::Array::from_host(coords, {8});
    auto out = tack::zeros(tack::f32, {8});
    tack::Kernel sample = kernel("sample");
    sample(tex, u, u, u, out);
    EXPECT_EQ(fake().log.back(), "sync");
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(8, 0.5f));
    kernel("saxpy")(u, out, 2.0f);
    EXPECT_NE(fake().log.back(), "sync");
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(8, 1.5f));
}

// Without samplers (Xe-HPC), or past maxImageDims3D, the same kernel samples in software.
TEST_F(LevelZeroSuite, WithoutSamplersOrPastTheLimitTexturesSampleInSoftware) {
    for (int past_limit = 0; past_limit < 2; ++past_limit) {
        reset_fake();
        (past_limit ? fake().max_image_dims_3d : fake().max_samplers) = past_limit ? 16 : 0;
        open();
        EXPECT_FALSE(dev_.backend()->texture_in_hardware({17, 9, 5}));
        std::vector<float> vol(17 * 9 * 5);
        for (std::size_t i = 0; i < vol.size(); ++i)
            vol[i] = float(i % 13) / 13.0f;
        tack::Array tex = tack::Array::from_host(vol, {5, 9, 17}).as_texture();
        std::vector<float> u{0.0f, 1.0f, 0.3f}, v{0.0f, 1.0f, 0.6f}, s{0.0f, 1.0f, 0.9f};
        auto out = tack::zeros(tack::f32, {3});
        kernel("sample")(tex, tack::Array::from_host(u, {3}), tack::Array::from_host(v, {3}),
                         tack::Array::from_host(s, {3}), out);
        auto got = out.to_host<float>();
        for (std::size_t i = 0; i < 3; ++i)
            EXPECT_NEAR(got[i], suite::trilinear(vol, 17, 9, 5, u[i], v[i], s[i]), 1e-5) << i;
        EXPECT_FALSE(launched_source_has("image3d_t"));
        EXPECT_EQ(log_since(0).find("image-copy"), std::string::npos);
        EXPECT_EQ(tex.to_host<float>(), vol) << "a software texture is a view of linear storage";
    }
}

// SEED-AUDIT 'L0 · Waits' and 'L0 · asyncio': a read waits on a marker outside the launch
// lock, so another thread launches while it waits (with the lock held, that launch would wait
// for the whole read: the check gives it 20 s).
TEST_F(LevelZeroSuite, AnotherThreadLaunchesWhileAReadWaits) {
    tack::Kernel k = kernel("step");
    auto x = tack::zeros(tack::i64, {4096});
    auto other = tack::zeros(tack::i64, {4096});
    k(x, std::int64_t(1));
    std::thread launcher;
    std::promise<void> launched;
    bool ran_during_the_wait = false;
    fake().on_event_wait = [&] {
        if (launcher.joinable()) return;
        launcher = std::thread([&] {
            k(other, std::int64_t(2));
            launched.set_value();
        });
        ran_during_the_wait =
            launched.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    };
    EXPECT_EQ(x.to_host<std::int64_t>()[4095], 1);
    fake().on_event_wait = nullptr;
    ASSERT_TRUE(launcher.joinable()) << "the read did not wait on an event";
    launcher.join();
    EXPECT_TRUE(ran_during_the_wait) << "the read held the launch lock while it waited";
    EXPECT_EQ(other.to_host<std::int64_t>()[4095], 2);
}

// SEED-AUDIT 'L0 · Workarounds' (B17): the source the runtime launches declares the narrow
// signed negation and abs helpers noinline, and they keep the values (two's complement wraps).
TEST_F(LevelZeroSuite, IntelWorkaroundsAreInTheLaunchedSourceAndKeepTheValues) {
    auto k = tack::Module::from_source(R"(import tack

@tack.kernel
def narrow(x, neg, mag):
    for i in range(x.shape[0]):
        neg[i] = -x[i]
        mag[i] = abs(x[i])
)",
                                       "narrow.py")
                 .kernel("narrow");
    std::vector<std::int8_t> x;
    for (int v = -128; v < 128; ++v)
        x.push_back(std::int8_t(v));
    const auto n = std::int64_t(x.size());
    auto neg = tack::zeros(tack::i8, {n});
    auto mag = tack::zeros(tack::i8, {n});
    k(tack::Array::from_host(x, {n}), neg, mag);
    auto got_neg = neg.to_host<std::int8_t>();
    auto got_mag = mag.to_host<std::int8_t>();
    for (std::size_t i = 0; i < x.size(); ++i) {
        int v = x[i];
        EXPECT_EQ(got_neg[i], std::int8_t(std::uint8_t(-v))) << v;
        EXPECT_EQ(got_mag[i], std::int8_t(std::uint8_t(v < 0 ? -v : v))) << v;
    }
    EXPECT_TRUE(launched_source_has("static __attribute__((noinline))"));
}

}  // namespace
}  // namespace tack::level_zero_test
