// The OpenCL backend on this machine's device (PoCL): capabilities, queued launches, waits,
// per-launch scalars, lifetimes, the disk cache and the workgroup checks. Each test skips when no
// OpenCL device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

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

}  // namespace
