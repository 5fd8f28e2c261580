// Hardening defects 4 and 6: arrays of an earlier OpenCL device, and re-initializing OpenCL
// while other threads launch. Skips when no OpenCL device is present.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tack/tack.hpp"

namespace {

tack::Kernel kernel(const std::string& src, const char* name) {
    return tack::Module::from_source("import tack\n\n" + src, "k.py").kernel(name);
}

const char* kCopy = R"(
@tack.kernel
def copy(src, dst):
    for i in range(dst.shape[0]):
        dst[i] = src[i] + 1.0
)";

bool has_opencl() {
    try {
        tack::init("opencl");
        return true;
    } catch (const tack::RuntimeError&) {
        return false;
    }
}

std::vector<float> iota(int n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        v[size_t(i)] = float(i);
    return v;
}

// Defect 4: an input of the earlier device read as zeros with no error.
TEST(OpenClLifetime, ArrayOfAnEarlierDeviceIsRefusedNamingTheParameter) {
    if (!has_opencl()) GTEST_SKIP() << "no OpenCL device";
    tack::Kernel k = kernel(kCopy, "copy");
    tack::Array old_src = tack::Array::from_host(std::span<const float>(iota(64)), {64});
    tack::init("opencl");
    tack::Array dst = tack::zeros(tack::f32, {64});
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            k(old_src, dst);
            ADD_FAILURE() << "an array of an earlier device was bound";
        } catch (const tack::RuntimeError& e) {
            std::string what = e.what();
            EXPECT_NE(what.find("parameter 'src'"), std::string::npos) << what;
            EXPECT_NE(what.find("another OpenCL device"), std::string::npos) << what;
        }
    }
    EXPECT_EQ(dst.to_host<float>(), std::vector<float>(64, 0.0f)) << "nothing ran";
    tack::device("opencl");  // the plain device is yet another one
    EXPECT_THROW(k(old_src, dst), tack::RuntimeError);
    tack::init("cpu");
}

TEST(OpenClLifetime, ThreadsNeverReadAnotherDevicesArray) {
    if (!has_opencl()) GTEST_SKIP() << "no OpenCL device";
    tack::Kernel k = kernel(kCopy, "copy");
    tack::Array old_src = tack::Array::from_host(std::span<const float>(iota(256)), {256});
    tack::init("opencl");
    std::atomic<int> refused = 0, wrong = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int j = 0; j < 5; ++j) {
                tack::Array dst = tack::zeros(tack::f32, {256});
                try {
                    k(old_src, dst);
                    ++wrong;
                } catch (const tack::RuntimeError&) {
                    ++refused;
                }
            }
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(refused.load(), 20);
    tack::init("cpu");
}

// Defect 6: re-initializing while other threads launch on the default device aborted ("pure
// virtual method called"): a launch held a bare reference to the backend being replaced.
TEST(OpenClLifetime, ReinitializingWhileThreadsLaunchIsSafe) {
    if (!has_opencl()) GTEST_SKIP() << "no OpenCL device";
    tack::Kernel k = kernel(R"(
@tack.kernel
def fill(x, v):
    for i in range(x.shape[0]):
        x[i] = v
)",
                            "fill");
    // A launch whose arguments hold no array: only the dispatching call keeps its backend alive.
    tack::Kernel spin = kernel(R"(
@tack.kernel
def spin(n, v):
    for i in range(n):
        w = v * 2.0
)",
                               "spin");
    std::atomic<bool> stop = false;
    std::atomic<int> ok = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&, t] {
            while (!stop.load()) {
                try {
                    spin(std::int64_t(4096), float(t));
                    tack::Array x = tack::zeros(tack::f32, {512});
                    k(x, float(t + 1));
                    std::vector<float> got = x.to_host<float>();
                    if (got[511] == float(t + 1)) ++ok;
                } catch (const tack::RuntimeError&) {
                    // the array may be of the device just replaced: a clean refusal
                }
            }
        });
    }
    for (int i = 0; i < 40; ++i) {
        tack::init("opencl");
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 4));
    }
    // Every thread gets to launch on the last device before stopping.
    for (int waited = 0; ok.load() < 3 && waited < 2000; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop = true;
    for (auto& t : threads)
        t.join();
    EXPECT_GT(ok.load(), 0);
    tack::init("cpu");
}

}  // namespace
