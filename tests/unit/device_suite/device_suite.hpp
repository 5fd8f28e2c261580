#pragma once
// The checks every GPU backend must pass on a device (real, or the emulated ones of
// tests/emulated): results against a host reference, queue order, per-launch scalars under four
// threads with no current context, device reductions, complete-group collectives, the disk
// cache, and hardware texture sampling. Each backend's suite runs them as one-line tests on its
// own fixture (tests/unit/cuda: `Cuda.*`, which scripts/gpu_check.sh runs on an NVIDIA GPU;
// tests/unit/hip: `Hip.*`), so HIP gets every check CUDA has. Header only: no test binary is
// built twice.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/gpu/device_backend.hpp"
#include "tack/tack.hpp"

namespace tack::device_suite {

inline constexpr const char* kKernels = R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]

@tack.kernel
def step(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3 + s

@tack.kernel
def group_sums(x, out):
    for i in range(x.shape[0]):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s

@tack.kernel
def histogram(x, bins):
    for i in range(x.shape[0]):
        tack.atomic_add(bins, int(x[i]) % 16, 1)

@tack.kernel
def smooth(x, y):
    for i in range(1, x.shape[0] - 1):
        y[i] = tack.sqrt(x[i - 1] * x[i - 1] + x[i + 1] * x[i + 1]) / 3.0

@tack.kernel
def sample(tex, u, v, w, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(u[i], v[i], w[i])

@tack.kernel
def doomed(x):
    for i in range(x.shape[0]):
        x[i] = 1.0
)";

/// Drops the test's default device: back to the CPU, or to a fresh `backend` device in a
/// TACK_LLVM=OFF build (scripts/gpu_check.sh), which has no CPU backend.
inline void leave_device(const char* backend) {
    try {
        tack::init("cpu");
    } catch (const tack::RuntimeError&) {
        try {
            tack::init(backend);
        } catch (const tack::RuntimeError&) {  // no device at all: nothing to leave
        }
    }
}

/// A fixture per backend (`class Cuda : DeviceTest { Cuda() : DeviceTest("cuda") {} }`): it
/// skips, with the backend's explanation, where the backend cannot open.
class DeviceTest : public ::testing::Test {
  protected:
    explicit DeviceTest(const char* backend) : backend_(backend) {}
    void SetUp() override {
        try {
            dev_ = tack::init(backend_);
        } catch (const tack::RuntimeError& e) {
            std::string what = e.what();
            // Without a driver the error explains what is missing.
            EXPECT_EQ(what.rfind("Cannot initialize '" + std::string(backend_) + "' backend: ", 0),
                      0u)
                << what;
            GTEST_SKIP() << what;
        }
    }
    void TearDown() override { leave_device(backend_); }

  public:
    tack::Kernel kernel(const char* name) {
        return tack::Module::from_source(kKernels, "k.py").kernel(name);
    }
    const char* backend_;
    tack::Device dev_;
};

inline void capabilities_match_the_matrix(const tack::Device& dev, const char* name,
                                          const std::vector<std::string>& spaces) {
    EXPECT_EQ(dev.name(), name);
    // CONTRACT E1: every dtype, but no f64 on Apple GPUs.
    tack::DTypeSet all = tack::DTypeSet::all();
    EXPECT_EQ(dev.supported_dtypes(), name == std::string("metal") ? all.without(tack::f64) : all);
    EXPECT_TRUE(dev.supports_workgroups());
    EXPECT_TRUE(dev.supports_device_reductions());
    EXPECT_EQ(dev.device_memory_spaces(), spaces);
}

inline void saxpy_matches_the_host_reference(DeviceTest& t) {
    const int n = 100003;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[size_t(i)] = 0.25f * float(i % 1000);
        y[size_t(i)] = 1.0f - float(i % 77);
    }
    auto X = tack::Array::from_host(x, {n});
    auto Y = tack::Array::from_host(y, {n});
    t.kernel("saxpy")(X, Y, 1.5f);
    auto got = Y.to_host<float>();
    // CONTRACT B20 lets a product inside a sum contract: either rounding is the reference.
    for (int i = 0; i < n; ++i) {
        float sep = 1.5f * x[size_t(i)] + y[size_t(i)];
        float fused = std::fma(1.5f, x[size_t(i)], y[size_t(i)]);
        ASSERT_TRUE(got[size_t(i)] == sep || got[size_t(i)] == fused) << i;
    }
}

inline void queued_launches_fills_and_writes_run_in_order(DeviceTest& t) {
    tack::Kernel k = t.kernel("step");
    const int n = 1 << 16;
    auto x = tack::zeros(tack::i64, {n});
    std::uint64_t want = 0;
    for (std::int64_t s = 0; s < 300; ++s) {
        if (s == 150) {
            x.fill(std::int64_t(7));
            want = 7;
        }
        if (s == 200) {  // a host write queued behind the launches before it
            x.copy_from_host(std::vector<std::int64_t>(std::size_t(n), 5));
            want = 5;
        }
        k(x, s % 5 == 0 ? std::int64_t(11) : s);
        want = want * 3 + std::uint64_t(s % 5 == 0 ? 11 : s);
    }
    auto got = x.to_host<std::int64_t>();
    EXPECT_EQ(std::uint64_t(got[0]), want);
    EXPECT_EQ(std::uint64_t(got[size_t(n - 1)]), want);
}

// A launch graph (runtime/graph) replays what the same launches and fills give one by one: as
// the vendor's graph where the runtime has graphs, through the core's loop where a node cannot
// be a vendor node (an 8-byte fill).
inline void a_graph_replays_like_its_launches(DeviceTest& t) {
    tack::Kernel k = t.kernel("step");
    auto* device = dynamic_cast<tack::runtime::gpu::DeviceBackend*>(t.dev_.backend().get());
    ASSERT_NE(device, nullptr);
    const int n = 1 << 15;
    for (tack::DType dtype : {tack::DType::i32, tack::DType::i64}) {
        std::size_t before = device->vendor_graphs();
        auto x = tack::zeros(dtype, {n});
        tack::Capture c;
        x.fill(2);
        auto s = c.param("s", 1);
        for (int j = 0; j < 4; ++j)
            k(x, j % 2 ? s : tack::GraphParam{-1, tack::Scalar::of(5)});
        tack::Graph g = c.finish();
        bool vendor = device->has_graphs() && dtype == tack::DType::i32;
        EXPECT_EQ(device->vendor_graphs(), before + (vendor ? 1 : 0));
        auto read = [&](std::size_t i) {
            return dtype == tack::DType::i32 ? std::int64_t(x.to_host<std::int32_t>()[i])
                                             : x.to_host<std::int64_t>()[i];
        };
        EXPECT_EQ(read(0), 0);  // capturing ran nothing
        std::uint64_t want = 0;
        for (int r = 0; r < 3; ++r) {
            g.set("s", r);
            g.replay(2);
            want = 2;
            for (int j = 0; j < 4; ++j)
                want = want * 3 + std::uint64_t(j % 2 ? r : 5);
        }
        EXPECT_EQ(read(0), std::int64_t(want));
        EXPECT_EQ(read(std::size_t(n - 1)), std::int64_t(want));
    }
}

inline void four_threads_keep_their_own_scalars(DeviceTest& t) {
    tack::Kernel k = t.kernel("step");
    std::atomic<int> wrong = 0;
    std::vector<std::thread> threads;
    for (int th = 0; th < 4; ++th) {
        threads.emplace_back([&, th] {
            // A thread that never made the context current: the backend makes it current.
            for (int j = 0; j < 100; ++j) {
                auto x = tack::zeros(tack::i64, {4096});
                k(x, std::int64_t(th * 1000 + j));
                if (x.to_host<std::int64_t>()[4095] != th * 1000 + j) ++wrong;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(wrong.load(), 0);
}

inline void reductions_on_the_device() {
    const int n = 1 << 20;
    std::vector<float> v(n);
    double want = 0;
    for (int i = 0; i < n; ++i) {
        v[size_t(i)] = float(i % 1024) - 511.5f;
        want += v[size_t(i)];
    }
    auto a = tack::Array::from_host(v, {n});
    EXPECT_NEAR(a.sum(), want, 1e-3 * n);
    EXPECT_EQ(a.max(), 511.5);
    EXPECT_EQ(a.min(), -511.5);
}

inline void collectives_need_complete_groups(DeviceTest& t) {
    auto x = tack::zeros(tack::f32, {1000});
    auto out = tack::zeros(tack::f32, {4});
    EXPECT_THROW(t.kernel("group_sums")(x, out), tack::ValueError);
}

// A new backend (empty in-memory caches) loads the code, entry and layout from the disk cache;
// scripts/gpu_check.sh runs CUDA's in a second process over the first one's cache too.
inline void disk_cache_loads_code_with_its_layout(DeviceTest& t, const char* backend) {
    tack::Kernel k = t.kernel("saxpy");
    auto run = [&] {
        auto x = tack::Array::from_host(std::vector<float>(4096, 2.0f), {4096});
        auto y = tack::Array::from_host(std::vector<float>(4096, 1.0f), {4096});
        k(x, y, 3.0f);
        return y.to_host<float>()[4095];
    };
    EXPECT_EQ(run(), 7.0f);
    tack::Device second = tack::init(backend);
    EXPECT_EQ(run(), 7.0f);
    auto* b = static_cast<tack::runtime::gpu::DeviceBackend*>(second.backend().get());
    std::printf("%s disk cache: built %zu, loaded %zu\n", backend, b->programs_built(),
                b->binaries_loaded());
    EXPECT_EQ(b->programs_built(), 0u);
    EXPECT_EQ(b->binaries_loaded(), 1u);
}

// Texel centres at 0 and 1, clamped (NaN to 0), x along the last storage axis, in double: the
// same reference as tests/python/test_textures.py's NumPy one.
inline double trilinear(const std::vector<float>& vol, std::int64_t w, std::int64_t h,
                        std::int64_t d, double u, double v, double s) {
    auto axis = [](double c, std::int64_t n, std::int64_t* i0, std::int64_t* i1) {
        double x = std::min(std::max(std::isnan(c) ? 0.0 : c, 0.0), 1.0) * double(n - 1);
        *i0 = std::min(std::int64_t(x), std::max<std::int64_t>(n - 2, 0));
        *i1 = std::min(*i0 + 1, n - 1);
        return x - double(*i0);
    };
    std::int64_t x0, x1, y0, y1, z0, z1;
    double tx = axis(u, w, &x0, &x1), ty = axis(v, h, &y0, &y1), tz = axis(s, d, &z0, &z1);
    auto at = [&](std::int64_t k, std::int64_t j, std::int64_t i) {
        return double(vol[std::size_t((k * h + j) * w + i)]);
    };
    auto lerp = [](double a, double b, double t) { return a * (1 - t) + b * t; };
    auto plane = [&](std::int64_t k) {
        return lerp(lerp(at(k, y0, x0), at(k, y0, x1), tx), lerp(at(k, y1, x0), at(k, y1, x1), tx),
                    ty);
    };
    return lerp(plane(z0), plane(z1), tz);
}

/// Where the device has no texture hardware (HIP without image support: TACK_EMU_IMAGES=0 on
/// the emulated device) the same samples come from the inline software form, to float rounding.
/// `weights8` says the sampler weighs with 8-bit fractions, as NVIDIA's and AMD's do (PoCL,
/// behind the simulated Level Zero driver, filters in float).
inline void hardware_samples_match_the_trilinear_reference(const tack::Device& dev,
                                                           const char* backend,
                                                           bool weights8 = true) {
    const std::int64_t w = 17, h = 9, d = 5, n = 20000;
    const bool hardware = dev.backend()->texture_in_hardware({w, h, d});
    // Only the emulated HIP device told to have no images (ctest HipWithoutImages) samples in
    // software here; anywhere else a silent fall-back would pass the comparison unnoticed.
    if (!std::getenv("TACK_EMU_IMAGES")) {
        ASSERT_TRUE(hardware) << backend << " samples in software";
    }
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), wide(-0.25f, 1.25f);
    std::vector<float> vol(std::size_t(w * h * d)), u(n), v(n), s(n);
    for (float& x : vol)
        x = unit(rng);
    for (auto* c : {&u, &v, &s})
        for (float& x : *c)
            x = wide(rng);
    // The first and last texel centres, and NaN (clamped to 0 as in the software form).
    u[0] = v[0] = s[0] = 0.0f;
    u[1] = v[1] = s[1] = 1.0f;
    u[2] = NAN, v[2] = s[2] = 0.0f;
    tack::Array tex = tack::Array::from_host(vol, {d, h, w}).as_texture();
    auto out = tack::zeros(tack::f32, {n});
    tack::Kernel k = tack::Module::from_source(kKernels, "k.py").kernel("sample");
    k(tex, tack::Array::from_host(u, {n}), tack::Array::from_host(v, {n}),
      tack::Array::from_host(s, {n}), out);
    auto got = out.to_host<float>();
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        double want =
            trilinear(vol, w, h, d, u[std::size_t(i)], v[std::size_t(i)], s[std::size_t(i)]);
        worst = std::max(worst, std::abs(got[std::size_t(i)] - want));
    }
    std::printf("%s %s texture: worst |error| %.3g over %lld samples\n", backend,
                hardware ? "hardware" : "software", worst, static_cast<long long>(n));
    if (!hardware) {
        EXPECT_LT(worst, 1e-5);
        EXPECT_EQ(tex.to_host<float>(), vol) << "a software texture is a view of linear storage";
        return;
    }
    // The sampler weighs each axis with an 8-bit fraction (the CUDA Programming Guide's 9-bit
    // fixed point with 8 fractional bits), off by under 1/256; three axes over texels in [0, 1)
    // stay within 3/256. A centre has weight exactly 0 or 1, so it reads the texel exactly.
    if (weights8) {
        EXPECT_LT(worst, 3.0 / 256);
        EXPECT_GT(worst, 1e-5) << "the software form agrees to float rounding (about 1e-7): "
                                  "this close, the texture object was not what ran";
    } else {
        EXPECT_LT(worst, 1e-5);
    }
    EXPECT_EQ(got[0], vol.front());
    EXPECT_EQ(got[1], vol.back());
    EXPECT_EQ(got[2], vol.front());
    // One copy (SEED-AUDIT "Textures"): the texture is the image alone, with no linear storage
    // to read back, and a snapshot: writes to the array it was made from never reach it.
    EXPECT_THROW(tex.to_host<float>(), tack::RuntimeError);
    tack::Array source = tack::Array::from_host(vol, {d, h, w});
    tack::Array snap = source.texture_snapshot();
    source.fill(7.0f);
    k(snap, tack::Array::from_host(u, {n}), tack::Array::from_host(v, {n}),
      tack::Array::from_host(s, {n}), out);
    EXPECT_EQ(out.to_host<float>(), got);
    // A second texture's storage gets its own texture object; the first one's is destroyed
    // with it.
    std::vector<float> twos(vol.size(), 2.0f);
    tack::Array tex2 = tack::Array::from_host(twos, {d, h, w}).as_texture();
    k(tex2, tack::Array::from_host(u, {n}), tack::Array::from_host(v, {n}),
      tack::Array::from_host(s, {n}), out);
    tex = tack::Array();
    auto twice = out.to_host<float>();
    // Fixed-point weights sum to exactly 1; float ones to within rounding.
    const float slack = weights8 ? 0.0f : 1e-6f;
    EXPECT_NEAR(*std::min_element(twice.begin(), twice.end()), 2.0f, slack);
    EXPECT_NEAR(*std::max_element(twice.begin(), twice.end()), 2.0f, slack);
}

/// The emulated device's fault injection (tests/emulated/engine.cpp: launches of kernels whose
/// entry contains the name fail on their stream), or nullptr on a real device.
using FailKernels = void (*)(const char* name);
inline FailKernels fail_kernels_of(const std::string& library) {
    void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    return lib ? reinterpret_cast<FailKernels>(dlsym(lib, "tack_emu_fail_kernels")) : nullptr;
}

/// SEED-AUDIT 'All · Waits': a queued launch's error surfaces at the next wait, as a RuntimeError
/// naming a queued launch, and the device works on after it.
inline void a_queued_launchs_error_surfaces_at_the_next_wait(const tack::Device& dev,
                                                             FailKernels fail) {
    auto x = tack::zeros(tack::f32, {1024});
    tack::Kernel doomed = tack::Module::from_source(kKernels, "k.py").kernel("doomed");
    fail("doomed");
    EXPECT_NO_THROW(doomed(x)) << "the launch is queued; its failure is not known yet";
    fail(nullptr);
    try {
        dev.synchronize();
        ADD_FAILURE() << "the failed launch was not reported at the wait";
    } catch (const tack::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("a queued launch"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(dev.synchronize()) << "reported once";
    doomed(x);
    EXPECT_EQ(x.to_host<float>()[1023], 1.0f);
    // The seed's DeviceBuffer.synchronize(): an array's wait is its device's.
    fail("doomed");
    doomed(x);
    fail(nullptr);
    EXPECT_THROW(x.synchronize(), tack::RuntimeError);
    EXPECT_NO_THROW(x.synchronize());
}

}  // namespace tack::device_suite

/// The suite's tests on `Fixture` (a DeviceTest for `backend`), one line each.
#define TACK_DEVICE_SUITE(Fixture, backend, ...)                                           \
    TEST_F(Fixture, CapabilitiesMatchTheMatrix) {                                          \
        tack::device_suite::capabilities_match_the_matrix(dev_, backend, {__VA_ARGS__});   \
    }                                                                                      \
    TEST_F(Fixture, SaxpyMatchesTheHostReference) {                                        \
        tack::device_suite::saxpy_matches_the_host_reference(*this);                       \
    }                                                                                      \
    TEST_F(Fixture, QueuedLaunchesFillsAndWritesRunInOrder) {                              \
        tack::device_suite::queued_launches_fills_and_writes_run_in_order(*this);          \
    }                                                                                      \
    TEST_F(Fixture, AGraphReplaysLikeItsLaunches) {                                        \
        tack::device_suite::a_graph_replays_like_its_launches(*this);                      \
    }                                                                                      \
    TEST_F(Fixture, FourThreadsKeepTheirOwnScalars) {                                      \
        tack::device_suite::four_threads_keep_their_own_scalars(*this);                    \
    }                                                                                      \
    TEST_F(Fixture, ReductionsOnTheDevice) {                                               \
        tack::device_suite::reductions_on_the_device();                                    \
    }                                                                                      \
    TEST_F(Fixture, CollectivesNeedCompleteGroups) {                                       \
        tack::device_suite::collectives_need_complete_groups(*this);                       \
    }                                                                                      \
    TEST_F(Fixture, DiskCacheLoadsCodeWithItsLayout) {                                     \
        tack::device_suite::disk_cache_loads_code_with_its_layout(*this, backend);         \
    }                                                                                      \
    TEST_F(Fixture, HardwareSamplesMatchTheTrilinearReference) {                           \
        tack::device_suite::hardware_samples_match_the_trilinear_reference(dev_, backend); \
    }
