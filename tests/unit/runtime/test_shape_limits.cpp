// Issue 12: element and byte counts that overflow int64 are a ValueError naming the shape,
// never a wrapped (small) allocation that kernels then write past.
#include <gtest/gtest.h>

#include <cstdint>
#include <new>

#include "tack/tack.hpp"

namespace {

constexpr std::int64_t k2_21 = std::int64_t{1} << 21, k2_31 = std::int64_t{1} << 31,
                       k2_32 = std::int64_t{1} << 32, k2_33 = std::int64_t{1} << 33;

TEST(ShapeLimits, ElementCountOverflowIsAValueError) {
    EXPECT_THROW((void)tack::Shape(k2_32, k2_32).size(), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::f32, {k2_32, k2_32}), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::u8, {k2_33, k2_31}), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::u8, {k2_31, k2_31, 4}), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::f64, {k2_21, k2_21, k2_21}), tack::ValueError);
    try {
        tack::zeros(tack::f32, {k2_32, k2_32});
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_NE(std::string(e.what()).find("(4294967296, 4294967296)"), std::string::npos)
            << e.what();
    }
}

TEST(ShapeLimits, ByteCountOverflowIsAValueError) {
    EXPECT_EQ(tack::Shape(std::int64_t{1} << 62).size(), std::int64_t{1} << 62);
    EXPECT_THROW(tack::zeros(tack::f32, {std::int64_t{1} << 62}), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::f64, {std::int64_t{1} << 61}), tack::ValueError);
}

TEST(ShapeLimits, ZeroExtentIsEmptyWhateverTheOthers) {
    EXPECT_EQ(tack::Shape(k2_32, k2_32, 0).size(), 0);
    tack::Array a = tack::zeros(tack::f32, {0, k2_32, k2_32});
    EXPECT_EQ(a.nbytes(), 0u);
}

TEST(ShapeLimits, UnallocatableIsBadAlloc) {
    EXPECT_THROW(tack::zeros(tack::f32, {std::int64_t{1} << 40}), std::bad_alloc);
}

TEST(ShapeLimits, ReshapeChecksTheCount) {
    tack::Array a = tack::zeros(tack::f32, {0});
    EXPECT_THROW(a.reshape({k2_32, k2_32}), tack::ValueError);
    EXPECT_EQ(a.reshape({k2_32, 0}).size(), 0);
}

TEST(ShapeLimits, FromPtrChecksTheCount) {
    float x = 0;
    EXPECT_THROW(tack::Array::from_ptr(&x, tack::f32, {k2_32, k2_32}, true), tack::ValueError);
}

}  // namespace
