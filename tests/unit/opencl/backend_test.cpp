// The OpenCL backend on this machine's device (PoCL): capabilities, queued launches, waits,
// per-launch scalars, lifetimes, the disk cache and the workgroup checks. Each test skips when no
// OpenCL device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/opencl/cl_api.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/runner.hpp"
#include "tack/tack.hpp"

namespace {

// A private disk cache, set before the first kernel reads TACK_CACHE_DIR.
const std::string kCacheDir = [] {
    std::string dir =
        std::filesystem::temp_directory_path() / ("tack-opencl-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ::setenv("TACK_CACHE_DIR", dir.c_str(), 1);
    return dir;
}();

tack::Kernel kernel(const std::string& src, const char* name) {
    return tack::Module::from_source("import tack\n\n" + src, "k.py").kernel(name);
}

class OpenCl : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            dev_ = tack::device("opencl");
        } catch (const tack::RuntimeError& e) {
            GTEST_SKIP() << e.what();
        }
    }
    void TearDown() override { tack::device("cpu"); }
    tack::Device dev_;
};

TEST_F(OpenCl, SaxpyRunsThroughTheDefaultDevice) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def saxpy(x, y, a, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]
)",
                            "saxpy");
    const int n = 1000;
    std::vector<float> xv(n), yv(n);
    for (int i = 0; i < n; ++i) {
        xv[size_t(i)] = 0.5f * float(i);
        yv[size_t(i)] = 1.0f - float(i);
    }
    tack::Array x = tack::Array::from_host(xv, {n});
    tack::Array y = tack::Array::from_host(yv, {n});
    EXPECT_EQ(x.device().name(), "opencl");
    k(x, y, 2.0f, std::int64_t(n));
    std::vector<float> out = y.to_host<float>();
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(out[size_t(i)], 2.0f * xv[size_t(i)] + yv[size_t(i)]) << i;
    tack::sync();
}

TEST_F(OpenCl, CapabilitiesComeFromTheDevice) {
    std::string why;
    auto runner = tack::runtime::opencl::ClRunner::create(&why);
    ASSERT_TRUE(runner) << why;
    const auto& info = runner->device();
    EXPECT_EQ(dev_.name(), "opencl");
    EXPECT_EQ(dev_.display_name(), "OpenCL");
    EXPECT_EQ(dev_.supports_f64(), info.fp64);
    EXPECT_EQ(dev_.supported_dtypes(),
              info.fp64 ? tack::DTypeSet::all() : tack::DTypeSet::all().without(tack::f64));
    tack::DTypeSet atomics{tack::i32, tack::u32, tack::f32};
    if (info.int64_atomics) atomics = atomics | tack::DTypeSet{tack::i64, tack::u64};
    EXPECT_EQ(dev_.supported_atomic_dtypes(), atomics);
    EXPECT_EQ(dev_.supports_workgroups(), info.max_work_group_size >= 256);
    EXPECT_EQ(dev_.supports_device_reductions(), info.max_work_group_size >= 256);
    EXPECT_EQ(dev_.device_options(), (std::vector<std::string>{"platform", "device"}));
    auto target = dev_.backend()->cache_target();
    ASSERT_TRUE(target.has_value());
    EXPECT_EQ(target->rfind("opencl;platform=", 0), 0u) << *target;
    EXPECT_NE(target->find(info.name), std::string::npos) << *target;
}

TEST_F(OpenCl, DeviceOptionsAndEnvironment) {
    tack::Device d = tack::device("opencl", {{"platform", 0}, {"device", 0}});
    EXPECT_EQ(d.name(), "opencl");
    EXPECT_THROW(tack::device("opencl", {{"device", 4096}}), tack::RuntimeError);
    EXPECT_THROW(tack::device("opencl", {{"platform", 4096}}), tack::RuntimeError);
    EXPECT_THROW(tack::device("opencl", {{"device", "first"}}), tack::ValueError);
    EXPECT_THROW(tack::device("opencl", {{"devices", 0}}), tack::ValueError);
    ::setenv("TACK_OPENCL_DEVICE", "4096", 1);
    try {
        tack::init("opencl");
        ADD_FAILURE() << "device 4096 exists";
    } catch (const tack::RuntimeError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("Cannot initialize 'opencl' backend: ", 0), 0u)
            << e.what();
    }
    ::setenv("TACK_OPENCL_DEVICE", "one", 1);
    EXPECT_THROW(tack::init("opencl"), tack::ValueError);
    ::setenv("TACK_OPENCL_DEVICE", " 0 ", 1);
    EXPECT_EQ(tack::init("opencl").name(), "opencl");
    ::unsetenv("TACK_OPENCL_DEVICE");
}

const char* kStep = R"(
@tack.kernel
def step(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3 + s
)";

TEST_F(OpenCl, QueuedLaunchesKeepTheirOwnScalars) {
    // 200 launches queued with no wait between them; each must read its own `s`.
    tack::Kernel k = kernel(kStep, "step");
    const int n = 4096;
    auto x = tack::zeros(tack::i64, {n});
    std::uint64_t want = 0;  // the kernel's i64 arithmetic wraps; the reference does too
    for (std::int64_t s = 0; s < 200; ++s) {
        k(x, s % 7 == 3 ? std::int64_t(5) : s);  // repeated values reuse a pack buffer
        want = want * 3 + std::uint64_t(s % 7 == 3 ? 5 : s);
    }
    std::vector<std::int64_t> got = x.to_host<std::int64_t>();
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(std::uint64_t(got[size_t(i)]), want) << i;
}

TEST_F(OpenCl, HostWritesAndFillsStayInProgramOrder) {
    tack::Kernel k = kernel(kStep, "step");
    auto x = tack::zeros(tack::i32, {1000});
    k(x, 1);                                           // 1
    x.copy_from_host(std::vector<int32_t>(1000, 10));  // 10
    k(x, 2);                                           // 32
    x.fill(4);                                         // 4
    k(x, 1);                                           // 13
    EXPECT_EQ(x.to_host<int32_t>(), std::vector<int32_t>(1000, 13));
    // A host buffer reused right after copy_from_host returns must not change the copy.
    std::vector<int32_t> staging(1000, 7);
    x.copy_from_host(staging);
    staging.assign(1000, -1);
    k(x, 0);
    EXPECT_EQ(x.to_host<int32_t>(), std::vector<int32_t>(1000, 21));
}

TEST_F(OpenCl, ArraysDroppedWhileQueuedOutliveTheLaunch) {
    tack::Kernel add = kernel(R"(
@tack.kernel
def add(src, dst):
    for i in range(dst.shape[0]):
        dst[i] = dst[i] + src[i]
)",
                              "add");
    const int n = 1 << 16;
    auto acc = tack::zeros(tack::f32, {n});
    for (int r = 1; r <= 50; ++r) {
        auto tmp = tack::full(tack::f32, {n}, float(r));
        add(tmp, acc);
    }  // each tmp is dropped with its launch still queued
    EXPECT_EQ(acc.to_host<float>(), std::vector<float>(n, 1275.0f));
}

TEST_F(OpenCl, SyncWaitsAndWrappedMemoryCompletesItsLaunches) {
    tack::Kernel k = kernel(kStep, "step");
    std::vector<std::int32_t> host(512, 1);
    auto wrapped = tack::Array::from_ptr(host.data(), tack::i32, {512}, /*writable=*/true);
    EXPECT_EQ(wrapped.device().name(), "opencl");
    k(wrapped, 4);
    // Memory shared with the caller: the launch completed before the call returned.
    EXPECT_EQ(host, std::vector<std::int32_t>(512, 7));
    EXPECT_EQ(wrapped.host_data(), host.data());
    host[5] = 100;  // written outside Tack: the next launch sees it
    k(wrapped, 1);
    EXPECT_EQ(host[5], 301);
    EXPECT_EQ(host[6], 22);
    EXPECT_EQ(wrapped.get<std::int32_t>({5}), 301);
    auto x = tack::zeros(tack::i32, {512});
    for (int i = 0; i < 20; ++i)
        k(x, 1);
    tack::sync();
    dev_.synchronize();
    std::uint32_t want = 0;  // i32 arithmetic wraps
    for (int i = 0; i < 20; ++i)
        want = want * 3 + 1;
    EXPECT_EQ(x.get<std::int32_t>({511}), static_cast<std::int32_t>(want));
}

TEST_F(OpenCl, EmptyArraysAndLaunches) {
    tack::Kernel k = kernel(kStep, "step");
    auto empty = tack::zeros(tack::f32, {0});
    k(empty, 1.0f);
    EXPECT_TRUE(empty.to_host<float>().empty());
    auto one = tack::zeros(tack::f32, {1});
    k(one, 2.5f);
    EXPECT_EQ(one.get<float>({0}), 2.5f);
}

TEST_F(OpenCl, ConcurrentDispatchOfOneKernel) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def affine(x, out, a, b):
    for i in range(x.shape[0]):
        out[i] = x[i] * a + b
)",
                            "affine");
    constexpr int kThreads = 4, kCalls = 300, kN = 16;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    tack::Device dev = dev_;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            auto x = tack::arange(kN, tack::i64, dev);
            auto out = tack::zeros(tack::i64, {kN}, dev);
            for (int c = 0; c < kCalls; ++c) {
                std::int64_t a = t * 100000 + c, b = -c;
                k(x, out, a, b);
                auto got = out.to_host<std::int64_t>();
                for (int i = 0; i < kN; ++i)
                    if (got[size_t(i)] != i * a + b) ++failures[size_t(t)];
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

TEST_F(OpenCl, ProgramBinariesComeBackFromTheDiskCache) {
    const std::string src = R"(
@tack.kernel
def cached(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] + s * 0.5
)";
    auto count = [] {
        std::size_t n = 0;
        if (std::filesystem::exists(kCacheDir))
            for (auto& e : std::filesystem::recursive_directory_iterator(kCacheDir))
                n += e.is_regular_file();
        return n;
    };
    auto& cl = static_cast<tack::runtime::opencl::OpenClBackend&>(*dev_.backend());
    auto x = tack::zeros(tack::f32, {300});
    std::size_t before = count(), built = cl.programs_built(), loaded = cl.binaries_loaded();
    kernel(src, "cached")(x, 2.0f);
    std::size_t after_first = count();
    EXPECT_GT(after_first, before);  // the program binary was stored
    EXPECT_EQ(cl.programs_built(), built + 1);
    // A new module has no in-memory variant: it loads the binary (clCreateProgramWithBinary).
    kernel(src, "cached")(x, 4.0f);
    EXPECT_EQ(count(), after_first);
    EXPECT_EQ(cl.programs_built(), built + 1);
    EXPECT_EQ(cl.binaries_loaded(), loaded + 1);
    EXPECT_EQ(x.to_host<float>(), std::vector<float>(300, 3.0f));
    // A damaged entry is refused or rejected by the cache, and the source is compiled again.
    for (auto& e : std::filesystem::recursive_directory_iterator(kCacheDir))
        if (e.is_regular_file()) std::filesystem::resize_file(e.path(), 16);
    kernel(src, "cached")(x, 2.0f);
    EXPECT_EQ(cl.programs_built(), built + 2);
    EXPECT_EQ(x.to_host<float>(), std::vector<float>(300, 4.0f));
}

}  // namespace

namespace {

TEST_F(OpenCl, HostOperationsOnDeviceArrays) {
    std::vector<float> v = {3.0f, -1.5f, 8.0f, 0.5f};
    auto a = tack::Array::from_host(v, {4});
    EXPECT_EQ(a.host_data(), nullptr);  // device memory: reads queue behind launches
    EXPECT_EQ(a.sum(), 10.0);
    EXPECT_EQ(a.min(), -1.5);
    EXPECT_EQ(a.max(), 8.0);
    EXPECT_EQ(a.get<float>({2}), 8.0f);
    EXPECT_EQ(a.at({-1}).as<float>(), 0.5f);
    auto c = a.copy();
    EXPECT_EQ(c.device().name(), "opencl");
    EXPECT_EQ(c.to_host<float>(), v);
    auto i = a.astype(tack::i32);
    EXPECT_EQ(i.to_host<std::int32_t>(), (std::vector<std::int32_t>{3, -1, 8, 0}));
    EXPECT_EQ(a.reshape({2, 2}).to_host<float>(), v);
}

TEST_F(OpenCl, KernelReturnValue) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def total(x, acc) -> tack.f32:
    for i in range(x.shape[0]):
        tack.atomic_add(acc, 0, x[i])
    return acc[0] * 2.0
)",
                            "total");
    std::vector<float> xv = {1.5f, 2.5f, 4.0f};
    auto acc = tack::zeros(tack::f32, {1});
    auto r = k(tack::Array::from_host(xv, {3}), acc);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->as<float>(), 16.0f);
}

}  // namespace
