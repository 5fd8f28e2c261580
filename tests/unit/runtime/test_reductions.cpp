// Host reductions (CONTRACT C14-C18).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tack/tack.hpp"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Reductions, EmptyArrays) {
    tack::Array e = tack::zeros(tack::f32, {0});
    EXPECT_EQ(e.sum(), 0.0);
    EXPECT_FALSE(std::signbit(e.sum()));
    EXPECT_TRUE(std::isnan(e.mean()));
    try {
        e.min();
        FAIL();
    } catch (const tack::ValueError& err) {
        EXPECT_STREQ(err.what(), "min reduction requires a nonempty field");
    }
    EXPECT_THROW(e.max(), tack::ValueError);
}

TEST(Reductions, IntegerAccumulatorsWrapIn64Bits) {
    std::vector<int8_t> a = {100, 100};
    EXPECT_EQ(tack::Array::from_host(a, {2}).sum(), 200.0);
    std::vector<uint64_t> b = {UINT64_MAX, 2};
    EXPECT_EQ(tack::Array::from_host(b, {2}).sum(), 1.0);
    std::vector<int64_t> c = {INT64_MAX, 1};
    EXPECT_EQ(tack::Array::from_host(c, {2}).sum(), -9223372036854775808.0);
    std::vector<int32_t> d = {-5, 3, -7};
    auto da = tack::Array::from_host(d, {3});
    EXPECT_EQ(da.sum(), -9.0);
    EXPECT_EQ(da.mean(), -3.0);
    EXPECT_EQ(da.min(), -7.0);
    EXPECT_EQ(da.max(), 3.0);
    std::vector<uint32_t> e = {4000000000u, 4000000000u};
    EXPECT_EQ(tack::Array::from_host(e, {2}).sum(), 8000000000.0);
}

TEST(Reductions, FloatSumsWithinGammaN) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t n : {1u, 7u, 8u, 9u, 1000u, 4097u, 100003u}) {
        std::vector<float> v(n);
        long double exact = 0, abs_sum = 0;
        for (auto& x : v) {
            x = dist(rng);
            exact += x;
            abs_sum += std::fabs(x);
        }
        double u = std::ldexp(1.0, -24);
        double gamma = n * u / (1 - n * u);
        double got = tack::Array::from_host(v, {n}).sum();
        EXPECT_LE(std::fabs(got - static_cast<double>(exact)), gamma * static_cast<double>(abs_sum))
            << n;
    }
}

TEST(Reductions, F32SumsInF32) {
    // 2^24 + 1 + 1 ...: in f32 each +1 on 2^24 rounds back; a pairwise f32 sum still cannot
    // represent 2^24 + 1, so an f64 accumulator would give a different (exact) answer.
    std::vector<float> v = {16777216.0f, 1.0f};
    EXPECT_EQ(tack::Array::from_host(v, {2}).sum(), 16777216.0);
    std::vector<double> w = {16777216.0, 1.0};
    EXPECT_EQ(tack::Array::from_host(w, {2}).sum(), 16777217.0);
}

TEST(Reductions, NaNAndInfinities) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> v(100, 1.0);
    v[57] = kNaN;
    auto a = tack::Array::from_host(v, {100});
    EXPECT_TRUE(std::isnan(a.sum()));
    EXPECT_TRUE(std::isnan(a.min()));
    EXPECT_TRUE(std::isnan(a.max()));
    std::vector<float> first_nan = {static_cast<float>(kNaN), 1.0f, 2.0f};
    EXPECT_TRUE(std::isnan(tack::Array::from_host(first_nan, {3}).min()));
    EXPECT_TRUE(std::isnan(tack::Array::from_host(first_nan, {3}).max()));
    std::vector<double> infs = {inf, -inf};
    EXPECT_TRUE(std::isnan(tack::Array::from_host(infs, {2}).sum()));
    EXPECT_EQ(tack::Array::from_host(infs, {2}).max(), inf);
}

TEST(Reductions, SignedZeroTies) {
    std::vector<float> mixed = {0.0f, -0.0f, 0.0f};
    auto a = tack::Array::from_host(mixed, {3});
    EXPECT_TRUE(std::signbit(a.min()));
    EXPECT_FALSE(std::signbit(a.max()));
    std::vector<float> reversed = {-0.0f, 0.0f, -0.0f};
    auto b = tack::Array::from_host(reversed, {3});
    EXPECT_TRUE(std::signbit(b.min()));
    EXPECT_FALSE(std::signbit(b.max()));
    std::vector<double> all_neg(20, -0.0);
    EXPECT_TRUE(std::signbit(tack::Array::from_host(all_neg, {20}).max()));
    std::vector<double> all_pos(20, 0.0);
    EXPECT_FALSE(std::signbit(tack::Array::from_host(all_pos, {20}).min()));
}

TEST(Reductions, ExtremaAcrossLanesAndTails) {
    for (size_t n : {1u, 5u, 8u, 13u, 64u, 1001u}) {
        std::vector<int16_t> v(n);
        for (size_t i = 0; i < n; ++i)
            v[i] = static_cast<int16_t>((i * 7919) % 1000 - 500);
        int16_t lo = v[0], hi = v[0];
        for (auto x : v) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
        auto a = tack::Array::from_host(v, {n});
        EXPECT_EQ(a.min(), lo) << n;
        EXPECT_EQ(a.max(), hi) << n;
    }
}

TEST(Reductions, ReshapeIsIrrelevant) {
    auto a = tack::arange(24, tack::f64);
    EXPECT_EQ(a.sum(), 276.0);
    EXPECT_EQ(a.reshape({2, 3, 4}).sum(), 276.0);
    EXPECT_EQ(a.reshape({2, 3, 2, 2}).mean(), 11.5);
}

}  // namespace
