// Host reductions large enough to be split across the CPU pool's threads (CONTRACT C16-C18):
// the chunked path must give the same rules as the serial one. References are plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tack/tack.hpp"

namespace {

constexpr size_t kN = 1 << 20;  // far above the chunking threshold

// Arrays on a CPU device with 3 threads (chunks of unequal luck at the edges).
tack::Device three_threads() {
    return tack::device("cpu", {{"num_threads", 3}});
}

template <class T>
tack::Array on_device(const std::vector<T>& v, const tack::Device& dev) {
    return tack::Array::from_host(v, {static_cast<int64_t>(v.size())}, dev);
}

TEST(ChunkedReductions, IntegerSumsWrapLikeASerialLoop) {
    tack::Device dev = three_threads();
    std::vector<int64_t> v(kN);
    std::mt19937_64 rng(7);
    for (auto& x : v)
        x = static_cast<int64_t>(rng());
    uint64_t ref = 0;
    for (int64_t x : v)
        ref += static_cast<uint64_t>(x);
    EXPECT_EQ(on_device(v, dev).sum(), static_cast<double>(static_cast<int64_t>(ref)));

    std::vector<uint32_t> u(kN, 4000000000u);
    EXPECT_EQ(on_device(u, dev).sum(), static_cast<double>(uint64_t(4000000000u) * kN));
}

TEST(ChunkedReductions, FloatSumWithinGammaNAndDeterministic) {
    tack::Device dev = three_threads();
    std::vector<float> v(kN);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    double exact = 0, abs_sum = 0;
    for (auto& x : v) {
        x = dist(rng);
        exact += x;
        abs_sum += std::fabs(x);
    }
    tack::Array a = on_device(v, dev);
    double u = std::ldexp(1.0, -24), n = static_cast<double>(kN);
    EXPECT_LE(std::fabs(a.sum() - exact), n * u / (1 - n * u) * abs_sum);
    EXPECT_EQ(a.sum(), a.sum());  // same thread count, same chunks, same bits
}

TEST(ChunkedReductions, NaNInTheLastChunkPropagates) {
    tack::Device dev = three_threads();
    std::vector<float> v(kN, 1.0f);
    v[kN - 2] = std::numeric_limits<float>::quiet_NaN();
    tack::Array a = on_device(v, dev);
    EXPECT_TRUE(std::isnan(a.sum()));
    EXPECT_TRUE(std::isnan(a.min()));
    EXPECT_TRUE(std::isnan(a.max()));
}

TEST(ChunkedReductions, SignedZeroTiesAcrossChunks) {
    tack::Device dev = three_threads();
    std::vector<double> v(kN, 0.0);
    v[5] = -0.0;  // in the first chunk only
    tack::Array a = on_device(v, dev);
    EXPECT_TRUE(std::signbit(a.min()));   // min prefers -0.0
    EXPECT_FALSE(std::signbit(a.max()));  // max prefers +0.0
    std::vector<double> neg(kN, -0.0);
    EXPECT_TRUE(std::signbit(on_device(neg, dev).max()));  // all -0.0 stays -0.0
}

TEST(ChunkedReductions, ExtremaAtChunkEdges) {
    tack::Device dev = three_threads();
    for (size_t at : {size_t(0), kN / 3, kN / 3 + 1, 2 * (kN / 3), kN - 1}) {
        std::vector<int16_t> v(kN, 7);
        v[at] = -300;
        v[(at + 1) % kN] = 900;
        tack::Array a = on_device(v, dev);
        EXPECT_EQ(a.min(), -300.0) << at;
        EXPECT_EQ(a.max(), 900.0) << at;
    }
}

}  // namespace
