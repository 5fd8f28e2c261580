// Debug mode through the public C++ API (DECISIONS "Debug mode"): the `debug` device option,
// tack::DebugScope, and the located exceptions, on every backend that opens here.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

const char* const kSource = R"(import tack

@tack.kernel
def shift(x, y, d):
    for i in range(y.shape[0]):
        y[i] = x[i + d]

@tack.kernel
def grid(a, n, m, di, dj):
    for i, j in tack.ndrange(n, m):
        a[i + di, j + dj] = 1.0

@tack.kernel
def div(a, b, c):
    for i in range(a.shape[0]):
        a[i] = b[i] // c[i]

@tack.kernel
def local(y, d):
    for i in range(y.shape[0]):
        t = tack.local_array(tack.i32, 2)
        t[i + d] = 1
        y[i] = 7
)";

class DebugMode : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        try {
            tack::init(GetParam());
        } catch (const tack::Error& e) {
            GTEST_SKIP() << GetParam() << " does not open here: " << e.what();
        }
        module_ = tack::Module::from_source(kSource, "debug_k.py");
    }
    void TearDown() override { tack::init("cpu"); }
    tack::Kernel kernel(const char* name) { return module_.kernel(name); }

    tack::Module module_;
};

std::vector<std::string> backends() {
    std::vector<std::string> out;
    for (const auto& b : tack::available_backends())
        if (b == "cpu" || b == "opencl") out.push_back(b);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, DebugMode, ::testing::ValuesIn(backends()),
                         [](const auto& info) { return info.param; });

TEST_P(DebugMode, ReadPastTheEndIsALocatedIndexError) {
    tack::Array x = tack::zeros(tack::f32, {8}), y = tack::zeros(tack::f32, {8});
    tack::DebugScope on;
    try {
        kernel("shift")(x, y, std::int32_t(1));
        FAIL() << "no IndexError";
    } catch (const tack::KernelIndexError& e) {
        EXPECT_EQ(e.message(),
                  "Kernel 'shift': out-of-bounds read of 'x': index 8 is outside shape (8,)");
        EXPECT_EQ(e.file(), "debug_k.py");
        EXPECT_EQ(e.line(), 6);
        EXPECT_EQ(e.column(), 16);
        EXPECT_EQ(std::string(e.what()),
                  "debug_k.py:6:16: IndexError: Kernel 'shift': out-of-bounds read of 'x': index "
                  "8 is outside shape (8,)\n"
                  "            y[i] = x[i + d]\n"
                  "                   ^~~~~~~~\n");
        EXPECT_EQ(e.kind(), tack::ErrorKind::Index);
    }
    // The process goes on: the faulting read was skipped, the others stored.
    std::vector<float> out = y.to_host<float>();
    EXPECT_EQ(out[7], 0.0f);
    kernel("shift")(x, y, std::int32_t(0));
}

TEST_P(DebugMode, EveryAxisOfAWrite) {
    struct Case {
        int n, m, di, dj;
        const char* index;
        int axis, size;
    };
    const Case cases[] = {{4, 1, 1, 0, "(4, 0)", 0, 4},
                          {1, 1, -1, 0, "(-1, 0)", 0, 4},
                          {1, 8, 0, 1, "(0, 8)", 1, 8},
                          {1, 1, 0, -1, "(0, -1)", 1, 8}};
    tack::Array a = tack::zeros(tack::f32, {4, 8});
    tack::DebugScope on;
    for (const Case& c : cases) {
        try {
            kernel("grid")(a, c.n, c.m, c.di, c.dj);
            ADD_FAILURE() << "no IndexError for " << c.index;
        } catch (const std::out_of_range& e) {  // tack::IndexError is a std::out_of_range
            std::string want = std::string("Kernel 'grid': out-of-bounds write to 'a': index ") +
                               c.index + " is outside shape (4, 8) (axis " +
                               std::to_string(c.axis) + " has size " + std::to_string(c.size) + ")";
            const auto& fault = dynamic_cast<const tack::KernelIndexError&>(e);
            EXPECT_EQ(fault.message(), want);
            EXPECT_EQ(fault.line(), 11);
        }
    }
}

TEST_P(DebugMode, DivisionByZeroIsAZeroDivisionError) {
    std::vector<std::int64_t> b = {7, 100, 9}, c = {2, 0, 4};
    tack::Array a = tack::zeros(tack::i64, {3});
    tack::Array bv = tack::Array::from_host(b, {3}), cv = tack::Array::from_host(c, {3});
    tack::DebugScope on;
    try {
        kernel("div")(a, bv, cv);
        FAIL() << "no ZeroDivisionError";
    } catch (const tack::KernelZeroDivisionError& e) {
        EXPECT_EQ(e.message(), "Kernel 'div': integer division or modulo by zero: 100 // 0 (i64)");
        EXPECT_EQ(e.kind(), tack::ErrorKind::ZeroDivision);
        EXPECT_EQ(e.line(), 16);
    }
    EXPECT_EQ(a.to_host<std::int64_t>(), (std::vector<std::int64_t>{3, 0, 2}));
}

TEST_P(DebugMode, LocalArrayWrite) {
    tack::Array y = tack::zeros(tack::i32, {2});
    tack::DebugScope on;
    try {
        kernel("local")(y, std::int32_t(1));
        FAIL() << "no IndexError";
    } catch (const tack::KernelIndexError& e) {
        EXPECT_EQ(e.message(),
                  "Kernel 'local': out-of-bounds write to local array 't': index 2 is outside "
                  "shape (2,)");
    }
    EXPECT_EQ(y.to_host<std::int32_t>(), (std::vector<std::int32_t>{7, 7}));
}

// `7 // 0` is 0 outside debug mode and a ZeroDivisionError inside it.
bool debug_now(tack::Kernel div) {
    std::vector<std::int32_t> seven = {7};
    tack::Array a = tack::zeros(tack::i32, {1}), zero = tack::zeros(tack::i32, {1});
    try {
        div(a, tack::Array::from_host(seven, {1}), zero);
    } catch (const tack::ZeroDivisionError&) {
        return true;
    }
    EXPECT_EQ(a.to_host<std::int32_t>()[0], 0);
    return false;
}

TEST_P(DebugMode, ScopesNestAndTheDeviceOptionIsTheDefault) {
    tack::Kernel div = kernel("div");
    EXPECT_FALSE(debug_now(div));
    {
        tack::DebugScope on;
        EXPECT_TRUE(debug_now(div));
        {
            tack::DebugScope off(false);
            EXPECT_FALSE(debug_now(div));
        }
        EXPECT_TRUE(debug_now(div));
    }
    EXPECT_FALSE(debug_now(div));
    tack::Device d = tack::init(GetParam(), {{"debug", true}});
    EXPECT_TRUE(d.debug());
    EXPECT_TRUE(debug_now(div));
    {
        tack::DebugScope off(false);
        EXPECT_FALSE(debug_now(div));
    }
    EXPECT_FALSE(tack::init(GetParam()).debug());
    EXPECT_THROW(tack::init(GetParam(), {{"debug", 1}}), tack::ValueError);
}

}  // namespace
