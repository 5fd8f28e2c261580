// Workgroup kernels on opencl against reference loops (the CPU refuses them, CONTRACT D11):
// shared-memory tree reduction with barriers, block_sum/min/max over complete 256-lane groups,
// shared memory with thread_id over a partial last group, and the D12/D13 rejections.
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "harness.hpp"

namespace tack::difftest {
namespace {

class Workgroups : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        if (!opencl_available(&why)) GTEST_SKIP() << why;
        dev_ = device("opencl");
    }
    void TearDown() override { device("cpu"); }
    Device dev_;
};

std::vector<float> integer_floats(std::size_t n, std::uint64_t seed) {
    Random rng(seed);
    std::vector<float> v(n);
    for (auto& x : v)
        x = static_cast<float>(static_cast<int>(rng.next() % 2001) - 1000);
    return v;
}

TEST_F(Workgroups, SharedMemoryTreeReductionWithBarriers) {
    Kernel k = kernel(R"(
@tack.kernel
def tree(x, out):
    for i in range(x.shape[0]):
        sh = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        sh[t] = x[i]
        tack.barrier()
        s = 128
        while s > 0:
            if t < s:
                sh[t] = sh[t] + sh[t + s]
            tack.barrier()
            s = s // 2
        if t == 0:
            out[i // 256] = sh[0]
)",
                      "tree");
    const std::size_t groups = 40, n = groups * 256;
    Random rng(7);
    std::vector<float> xv(n);
    for (auto& x : xv)
        x = static_cast<float>(rng.uniform(-1, 1));
    auto x = Array::from_host(xv, {static_cast<std::int64_t>(n)});
    auto out = zeros(DType::f32, {static_cast<std::int64_t>(groups)});
    k(x, out);
    std::vector<float> got = out.to_host<float>();
    for (std::size_t g = 0; g < groups; ++g) {
        float sh[256];
        std::copy_n(xv.begin() + static_cast<std::ptrdiff_t>(g * 256), 256, sh);
        for (int s = 128; s > 0; s /= 2)
            for (int t = 0; t < s; ++t)
                sh[t] = sh[t] + sh[t + s];
        ASSERT_EQ(got[g], sh[0]) << "group " << g;  // same association: bit-identical
    }
}

TEST_F(Workgroups, BlockReductions) {
    Kernel k = kernel(R"(
@tack.kernel
def blocks(x, sums, mins, maxs):
    for i in range(x.shape[0]):
        s = tack.block_sum(x[i])
        lo = tack.block_min(x[i])
        hi = tack.block_max(x[i])
        if tack.thread_id() == 0:
            sums[i // 256] = s
            mins[i // 256] = lo
            maxs[i // 256] = hi
)",
                      "blocks");
    const std::size_t groups = 33, n = groups * 256;
    std::vector<float> xv = integer_floats(n, 11);  // integer sums are exact in any order
    auto out = [&] { return zeros(DType::f32, {static_cast<std::int64_t>(groups)}); };
    auto sums = out(), mins = out(), maxs = out();
    k(Array::from_host(xv, {static_cast<std::int64_t>(n)}), sums, mins, maxs);
    auto s = sums.to_host<float>(), lo = mins.to_host<float>(), hi = maxs.to_host<float>();
    for (std::size_t g = 0; g < groups; ++g) {
        auto b = xv.begin() + static_cast<std::ptrdiff_t>(g * 256);
        float want = 0;
        for (int t = 0; t < 256; ++t)
            want += b[t];
        EXPECT_EQ(s[g], want) << g;
        EXPECT_EQ(lo[g], *std::min_element(b, b + 256)) << g;
        EXPECT_EQ(hi[g], *std::max_element(b, b + 256)) << g;
    }
}

TEST_F(Workgroups, SharedMemoryOverAPartialLastGroup) {
    // Shared memory and thread_id without collectives allow a partial group (CONTRACT D12).
    Kernel k = kernel(R"(
@tack.kernel
def lanes(x, out, lane):
    for i in range(x.shape[0]):
        sh = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        sh[t] = x[i] * 2.0
        out[i] = sh[t] + 1.0
        lane[i] = t
)",
                      "lanes");
    const std::int64_t n = 1000;
    std::vector<float> xv = integer_floats(static_cast<std::size_t>(n), 13);
    auto out = zeros(DType::f32, {n});
    auto lane = zeros(DType::i64, {n});
    k(Array::from_host(xv, {n}), out, lane);
    auto got = out.to_host<float>();
    auto lanes = lane.to_host<std::int64_t>();
    for (std::size_t i = 0; i < xv.size(); ++i) {
        ASSERT_EQ(got[i], xv[i] * 2.0f + 1.0f) << i;
        ASSERT_EQ(lanes[i], static_cast<std::int64_t>(i % 256)) << i;
    }
}

const char* kGroupSums = R"(
@tack.kernel
def group_sums(x, out, n):
    for i in range(n):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s
)";

TEST_F(Workgroups, CollectivesOverAPartialGroupAreRefused) {
    Kernel k = kernel(kGroupSums, "group_sums");
    auto x = full(DType::f32, {1024}, 1.0f);
    auto out = full(DType::f32, {4}, -1.0f);
    try {
        k(x, out, 1000);
        FAIL() << "a partial group ran";
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'group_sums': workgroup collectives require complete 256-lane "
                     "groups; iteration count 1000 would create a partial workgroup.");
    }
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(4, -1.0f));  // nothing ran (D15)
    k(x, out, 0);  // counts <= 0 pass and run nothing
    k(x, out, 512);
    EXPECT_EQ(out.to_host<float>(), (std::vector<float>{256, 256, -1, -1}));
    // Stepped ranges and ndrange totals count normalized iterations.
    Kernel stepped = kernel(R"(
@tack.kernel
def stepped(x, out):
    for i in range(0, 1024, 2):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 512] = s
)",
                            "stepped");
    stepped(x, out);
    EXPECT_EQ(out.get<float>({0}), 256.0f);
    Kernel grid = kernel(R"(
@tack.kernel
def grid(x, out):
    for i, j in tack.ndrange(16, 16):
        s = tack.block_sum(x[i * 16 + j])
        if tack.thread_id() == 0:
            out[3] = s
)",
                         "grid");
    grid(x, out);
    EXPECT_EQ(out.get<float>({3}), 256.0f);
}

TEST_F(Workgroups, CollectivesOnLaneVaryingControlAreRefused) {
    const char* const kRejected[] = {
        // if i % 2 == 0: barrier()
        "    for i in range(x.shape[0]):\n        if i % 2 == 0:\n            tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        for j in range(i % 3):\n"
        "            tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        if x[0] > 0:\n            tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        flag = 0\n        if i > 3:\n"
        "            flag = 1\n        if flag == 1:\n            tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        if i % 2:\n            continue\n"
        "        tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        if (i // 256) % 2 == 0:\n"
        "            tack.barrier()\n",
        "    for i in range(x.shape[0]):\n        for j in range(4):\n            tack.barrier()\n"
        "            if x[i] > 0:\n                break\n",
        "    for i in range(x.shape[0]):\n        t = tack.thread_id()\n        while t < 4:\n"
        "            tack.barrier()\n            t += 1\n",
    };
    auto x = zeros(DType::f32, {512});
    for (const char* body : kRejected) {
        Kernel k = kernel(std::string("\n@tack.kernel\ndef k(x):\n") + body, "k");
        try {
            k(x);
            ADD_FAILURE() << "accepted:\n" << body;
        } catch (const ValueError& e) {
            std::string m = e.what();
            EXPECT_EQ(m.rfind("Kernel 'k': ", 0), 0u) << m;
            if (getenv("TACK_SHOW_MESSAGES")) std::cerr << m << "\n";
            EXPECT_NE(m.find(" requires uniform workgroup participation: "), std::string::npos)
                << m;
        }
    }
    // Uniform control: constants, scalar parameters, extents, collective results.
    Kernel ok = kernel(R"(
@tack.kernel
def ok(x, rounds):
    for i in range(x.shape[0]):
        for r in range(rounds):
            if x.shape[0] > 256:
                tack.barrier()
        s = tack.block_sum(x[i])
        if s > 0.0:
            tack.barrier()
        x[i] = s
)",
                       "ok");
    auto ones = full(DType::f32, {512}, 1.0f);
    ok(ones, 3);
    EXPECT_EQ(ones.to_host<float>(), std::vector<float>(512, 256.0f));
}

TEST_F(Workgroups, CpuRefusesWorkgroupKernels) {
    device("cpu");
    Kernel k = kernel(kGroupSums, "group_sums");
    auto x = zeros(DType::f32, {256}), out = zeros(DType::f32, {1});
    EXPECT_THROW(k(x, out, 256), NotImplementedError);
}

}  // namespace
}  // namespace tack::difftest
