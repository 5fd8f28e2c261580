// Launch graphs through the C++ API (tack::Capture, tack::Graph) on the CPU and OpenCL devices:
// replays against the same launches run one by one, parameters, the CPU's phased replay over
// every thread count, and the refusals. The GPU backends run the device suite's graph check.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
namespace {

constexpr const char* kSource = R"(import tack

@tack.kernel
def step(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3 + s

@tack.kernel
def shift(x, y):
    for i in range(x.shape[0]):
        y[i] = x[(i + 1) % x.shape[0]] + 1
)";

Kernel kernel(const char* name) {
    return Module::from_source(kSource, "graphs.py").kernel(name);
}

// A sequence whose result depends on every launch's order: rotations interleaved with
// multiply-adds, so a phase run before the one it follows changes the numbers.
std::vector<std::int64_t> run_loop(int n, int reps) {
    auto x = Array::from_host(std::vector<std::int64_t>(size_t(n), 1), {n});
    auto y = zeros(DType::i64, {n});
    for (int r = 0; r < reps; ++r) {
        kernel("step")(x, std::int64_t(r % 3));
        kernel("shift")(x, y);
        kernel("shift")(y, x);
    }
    return x.to_host<std::int64_t>();
}

class Graphs : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        try {
            init(GetParam() == "cpu1" ? "cpu" : GetParam(),
                 GetParam() == "cpu1" ? DeviceOptions{{"num_threads", 1}} : DeviceOptions{});
        } catch (const RuntimeError& e) {
            GTEST_SKIP() << e.what();
        }
    }
    void TearDown() override { init("cpu"); }
};

TEST_P(Graphs, ReplaysEqualTheLaunchesRunOneByOne) {
    for (int n : {1, 3, 4097, 100003}) {
        auto x = Array::from_host(std::vector<std::int64_t>(size_t(n), 1), {n});
        auto y = zeros(DType::i64, {n});
        Capture c;
        auto s = c.param("s", std::int64_t(0));
        kernel("step")(x, s);
        kernel("shift")(x, y);
        kernel("shift")(y, x);
        Graph g = c.finish();
        EXPECT_EQ(g.size(), 3u);
        for (int r = 0; r < 7; ++r) {
            g.set("s", std::int64_t(r % 3));
            g.replay();
        }
        EXPECT_EQ(x.to_host<std::int64_t>(), run_loop(n, 7)) << n;
    }
}

TEST_P(Graphs, ManyRepetitionsOfOneReplayKeepTheirOrder) {
    const int n = 50000;
    auto x = Array::from_host(std::vector<std::int64_t>(size_t(n), 1), {n});
    auto y = zeros(DType::i64, {n});
    Capture c;
    kernel("step")(x, std::int64_t(1));
    kernel("shift")(x, y);
    kernel("shift")(y, x);
    Graph g = c.finish();
    g.replay(40);
    auto x2 = Array::from_host(std::vector<std::int64_t>(size_t(n), 1), {n});
    for (int r = 0; r < 40; ++r) {
        kernel("step")(x2, std::int64_t(1));
        kernel("shift")(x2, y);
        kernel("shift")(y, x2);
    }
    EXPECT_EQ(x.to_host<std::int64_t>(), x2.to_host<std::int64_t>());
}

TEST_P(Graphs, FillsReplayWithTheirParameter) {
    auto x = zeros(DType::f32, {1 << 18});
    Capture c;
    x.fill(c.param("v", 2.5f));
    kernel("step")(x, 1.0f);
    Graph g = c.finish();
    g.replay();
    EXPECT_EQ(x.to_host<float>()[12345], 8.5f);
    g.set("v", 1);  // an integer into a float parameter converts
    g.replay();
    EXPECT_EQ(x.to_host<float>()[(1 << 18) - 1], 4.0f);
    EXPECT_EQ(g.get("v").as<float>(), 1.0f);
    EXPECT_EQ(g.param_names(), std::vector<std::string>{"v"});
}

TEST_P(Graphs, WhatCannotBeReplayedIsRefusedWhereItIsAsked) {
    auto x = zeros(DType::f32, {16});
    {
        Capture c;
        EXPECT_THROW(zeros(DType::f32, {4}), RuntimeError);
        EXPECT_THROW(x.to_host<float>(), RuntimeError);
        EXPECT_THROW(x.sum(), RuntimeError);
        EXPECT_THROW(x.copy_from_host(std::vector<float>(16)), RuntimeError);
        EXPECT_THROW(Capture{}, RuntimeError);  // no nesting
        kernel("step")(x, 1.0f);
    }  // abandoned: nothing ran, nothing is left capturing
    EXPECT_EQ(x.to_host<float>()[0], 0.0f);
    kernel("step")(x, 1.0f);
    EXPECT_EQ(x.to_host<float>()[0], 1.0f);
    Graph empty;
    EXPECT_THROW(empty.replay(), ValueError);
}

TEST_P(Graphs, ParameterErrorsNameTheGraphsParameters) {
    auto x = zeros(DType::i32, {16});
    Capture c;
    kernel("step")(x, c.param("k", 1));
    Graph g = c.finish();
    try {
        g.set("kk", 1);
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_NE(std::string(e.what()).find("no parameter 'kk' (it has 'k')"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(g.set("k", 0.5), TypeError);
}

INSTANTIATE_TEST_SUITE_P(Devices, Graphs, ::testing::Values("cpu", "cpu1", "opencl"));

}  // namespace
}  // namespace tack
