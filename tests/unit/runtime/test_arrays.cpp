// Arrays: allocation, views, host transfers, fills and conversions (CONTRACT C6-C12).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tack/tack.hpp"

namespace {

TEST(Arrays, AllocationIsZeroFilledAnd64ByteAligned) {
    for (int i = 0; i < tack::kNumDTypes; ++i) {
        auto t = static_cast<tack::DType>(i);
        tack::Array a = tack::zeros(t, {7, 3});
        EXPECT_EQ(a.size(), 21);
        EXPECT_EQ(a.nbytes(), 21u * tack::size_bytes(t));
        EXPECT_EQ(a.address() % 64, 0u) << tack::name(t);
        const auto* bytes = static_cast<const unsigned char*>(a.host_data());
        for (size_t b = 0; b < a.nbytes(); ++b)
            ASSERT_EQ(bytes[b], 0) << tack::name(t);
    }
}

TEST(Arrays, EmptyArraysHaveDistinctStorage) {
    tack::Array a = tack::zeros(tack::f32, {0});
    tack::Array b = tack::zeros(tack::f32, {0});
    EXPECT_EQ(a.size(), 0);
    EXPECT_NE(a.address(), b.address());
}

TEST(Arrays, ShapeChecks) {
    EXPECT_THROW(tack::zeros(tack::f32, tack::Shape()), tack::ValueError);
    EXPECT_THROW(tack::zeros(tack::f32, {-1}), tack::ValueError);
    EXPECT_EQ(tack::Shape(8).to_string(), "(8,)");
    EXPECT_EQ(tack::Shape(4, 8).to_string(), "(4, 8)");
    size_t n = 5;  // any integer type works in a braced shape
    EXPECT_EQ(tack::zeros(tack::i8, {n}).size(), 5);
}

TEST(Arrays, FromHostAndToHostRoundTrip) {
    std::vector<double> v = {1.5, -2.0, 3.25, 4.0, 5.0, 6.0};
    tack::Array a = tack::Array::from_host(std::span<const double>(v), {2, 3});
    EXPECT_EQ(a.dtype(), tack::f64);
    EXPECT_EQ(a.rank(), 2);
    EXPECT_EQ(a.to_host<double>(), v);
    EXPECT_THROW(a.to_host<float>(), tack::TypeError);
    try {
        tack::Array::from_host(v, {4});
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(), "Shape mismatch: array is (4,), got 6 elements");
    }
}

TEST(Arrays, ReshapeSharesStorageAndWritability) {
    tack::Array a = tack::zeros(tack::i32, {2, 6});
    tack::Array b = a.reshape({3, 4});
    EXPECT_EQ(a.address(), b.address());
    EXPECT_TRUE(a.same_storage(b));
    b.fill(7);
    EXPECT_EQ(a.get<int32_t>({1, 5}), 7);
    EXPECT_THROW(a.reshape({5}), tack::ValueError);
    std::vector<float> ext(6, 1.0f);
    tack::Array ro = tack::Array::from_ptr(ext.data(), tack::f32, {6});
    EXPECT_FALSE(ro.reshape({2, 3}).writable());
}

TEST(Arrays, FromPtrIsZeroCopyAndReadOnlyByDefault) {
    std::vector<int16_t> ext = {1, 2, 3, 4};
    tack::Array ro = tack::Array::from_ptr(ext.data(), tack::i16, {4});
    EXPECT_EQ(ro.host_data(), ext.data());
    EXPECT_THROW(ro.fill(3), tack::RuntimeError);
    EXPECT_THROW(ro.copy_from_host(ext), tack::RuntimeError);
    tack::Array rw = tack::Array::from_ptr(ext.data(), tack::i16, {4}, /*writable=*/true);
    rw.fill(9);
    EXPECT_EQ(ext[3], 9);
}

TEST(Arrays, FillConvertsWithCastRules) {
    tack::Array a = tack::zeros(tack::i32, {3});
    a.fill(2.5);  // CONTRACT C34: 2.5 into i32 -> 2
    EXPECT_EQ(a.to_host<int32_t>(), (std::vector<int32_t>{2, 2, 2}));
    tack::Array u = tack::zeros(tack::u8, {2});
    u.fill(300);  // 300 into u8 -> 44
    EXPECT_EQ(u.to_host<uint8_t>(), (std::vector<uint8_t>{44, 44}));
    tack::Array f = tack::full(tack::f32, {2}, -1.25);
    EXPECT_EQ(f.to_host<float>(), (std::vector<float>{-1.25f, -1.25f}));
    EXPECT_EQ(tack::ones(tack::u64, {1}).get<uint64_t>({0}), 1u);
}

TEST(Arrays, LongFillsSpreadOverThreadsCoverEveryElement) {
    // Long enough to be split over the CPU pool (64 Ki-element chunks), with a count that is
    // not a multiple of the chunks' 16-element alignment.
    for (tack::DType t : {tack::u8, tack::i16, tack::f32, tack::f64}) {
        const int64_t n = (int64_t{1} << 20) + 37;
        tack::Array a = tack::full(t, {n}, 3.0);
        a.fill(7.0);
        std::vector<double> v = a.astype(tack::f64).to_host<double>();
        for (int64_t i = 0; i < n; ++i)
            ASSERT_EQ(v[size_t(i)], 7.0) << tack::name(t) << " at " << i;
    }
}

TEST(Arrays, StreamingFillsOfWrappedMemoryKeepTheirNeighbours) {
    // Past 8 MiB a fill uses streaming stores from the first 16-byte boundary on: wrapped memory
    // that starts elsewhere gets its head and tail through ordinary stores, and nothing outside
    // the array is written.
    const size_t n = (size_t{9} << 20) / 2 + 13;  // u16 elements: 9 MiB and a ragged tail
    for (size_t shift : {0, 1, 3, 7}) {
        std::vector<uint16_t> storage(n + 16, 0xBEEF);
        uint16_t* first = storage.data() + 1 + shift;
        tack::Array a = tack::Array::from_ptr(first, tack::u16, {int64_t(n)}, true);
        a.fill(0x1234);
        for (size_t i = 0; i < storage.size(); ++i) {
            bool inside = i >= 1 + shift && i < 1 + shift + n;
            ASSERT_EQ(storage[i], inside ? 0x1234 : 0xBEEF) << "shift " << shift << " at " << i;
        }
    }
}

TEST(Arrays, CopyIsIndependent) {
    tack::Array a = tack::arange(5, tack::i64);
    tack::Array b = a.copy();
    EXPECT_NE(a.address(), b.address());
    a.fill(0);
    EXPECT_EQ(b.to_host<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(Arrays, AstypeIntegerWrapAndSignExtension) {
    std::vector<int8_t> v = {-1, 127, -128};
    tack::Array a = tack::Array::from_host(v, {3});
    EXPECT_EQ(a.astype(tack::u64).to_host<uint64_t>(),
              (std::vector<uint64_t>{UINT64_MAX, 127, UINT64_MAX - 127}));
    std::vector<uint8_t> u = {255};
    EXPECT_EQ(tack::Array::from_host(u, {1}).astype(tack::i64).get<int64_t>({0}), 255);
    std::vector<int32_t> w = {300, -1, 65536 + 5};
    EXPECT_EQ(tack::Array::from_host(w, {3}).astype(tack::u8).to_host<uint8_t>(),
              (std::vector<uint8_t>{44, 255, 5}));
    EXPECT_EQ(tack::Array::from_host(w, {3}).astype(tack::i16).to_host<int16_t>(),
              (std::vector<int16_t>{300, -1, 5}));
}

TEST(Arrays, AstypeFloatToIntTruncatesAndSaturates) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> v = {2.7, -2.7, 1e10, -1e10, inf, -inf, nan, -0.5, 127.9, 128.0};
    tack::Array a = tack::Array::from_host(v, {10});
    EXPECT_EQ(
        a.astype(tack::i32).to_host<int32_t>(),
        (std::vector<int32_t>{2, -2, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 0, 0, 127, 128}));
    EXPECT_EQ(a.astype(tack::i8).to_host<int8_t>(),
              (std::vector<int8_t>{2, -2, 127, -128, 127, -128, 0, 0, 127, 127}));
    EXPECT_EQ(a.astype(tack::u16).to_host<uint16_t>(),
              (std::vector<uint16_t>{2, 0, 65535, 0, 65535, 0, 0, 0, 127, 128}));
    std::vector<double> big = {9.3e18, 1.8e19, 2e19};
    EXPECT_EQ(tack::Array::from_host(big, {3}).astype(tack::i64).to_host<int64_t>(),
              (std::vector<int64_t>{INT64_MAX, INT64_MAX, INT64_MAX}));
    EXPECT_EQ(tack::Array::from_host(big, {3}).astype(tack::u64).to_host<uint64_t>(),
              (std::vector<uint64_t>{9300000000000000000ull, 18000000000000000000ull, UINT64_MAX}));
}

TEST(Arrays, AstypeToFloatRoundsToNearest) {
    std::vector<int64_t> v = {16777217, -3};  // 2^24 + 1 is not an f32
    auto f = tack::Array::from_host(v, {2}).astype(tack::f32).to_host<float>();
    EXPECT_EQ(f, (std::vector<float>{16777216.0f, -3.0f}));
    std::vector<double> d = {0.1, 1e300};
    auto g = tack::Array::from_host(d, {2}).astype(tack::f32).to_host<float>();
    EXPECT_EQ(g[0], 0.1f);
    EXPECT_TRUE(std::isinf(g[1]));
}

TEST(Arrays, ElementReadNegativeIndicesAndBounds) {
    tack::Array a = tack::arange(12, tack::f32).reshape({3, 4});
    EXPECT_EQ(a.get<float>({0, 0}), 0.0f);
    EXPECT_EQ(a.get<float>({-1, -1}), 11.0f);
    EXPECT_EQ(a.get<float>({1, -4}), 4.0f);
    EXPECT_EQ(a.at({2, 1}).to_double(), 9.0);
    EXPECT_THROW(a.at({3, 0}), tack::IndexError);
    EXPECT_THROW(a.at({0, -5}), tack::IndexError);
    EXPECT_THROW(a.at({0}), tack::IndexError);
}

TEST(Arrays, ErrorsAreCatchableBothWays) {
    try {
        tack::zeros(tack::f32, {-3});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(dynamic_cast<const tack::Error*>(&e), nullptr);
    }
    try {
        tack::zeros(tack::f32, {-3});
        FAIL();
    } catch (const tack::Error& e) {
        EXPECT_EQ(e.kind(), tack::ErrorKind::ValueError);
    }
}

TEST(Scalars, CppTypesMapToTackTypes) {
    EXPECT_EQ(tack::Scalar::of(1.5f).dtype, tack::f32);
    EXPECT_EQ(tack::Scalar::of(1.5).dtype, tack::f64);
    EXPECT_EQ(tack::Scalar::of(true).dtype, tack::i32);
    EXPECT_EQ(tack::Scalar::of(true).bits, 1u);
    EXPECT_EQ(tack::Scalar::of(std::int8_t(-1)).dtype, tack::i32);
    EXPECT_EQ(tack::Scalar::of(std::int8_t(-1)).bits, 0xFFFFFFFFu);  // zero-extended i32 bits
    EXPECT_EQ(tack::Scalar::of(std::uint16_t(7)).dtype, tack::i32);
    EXPECT_EQ(tack::Scalar::of(-2).dtype, tack::i32);
    EXPECT_EQ(tack::Scalar::of(3u).dtype, tack::u32);
    EXPECT_EQ(tack::Scalar::of(std::int64_t(-1)).dtype, tack::i64);
    EXPECT_EQ(tack::Scalar::of(std::int64_t(-1)).bits, UINT64_MAX);
    EXPECT_EQ(tack::Scalar::of(std::uint64_t(5)).dtype, tack::u64);
    EXPECT_EQ(tack::Scalar::of(-2.5f).as<float>(), -2.5f);
    EXPECT_EQ(tack::Scalar::of(-2.5f).to_double(), -2.5);
    EXPECT_EQ(tack::Scalar::of(-7).to_double(), -7.0);
    EXPECT_THROW(tack::Scalar::of(1.0).as<float>(), tack::TypeError);
    static_assert(tack::dtype_of<long long>() == tack::i64);
    static_assert(tack::dtype_of<unsigned char>() == tack::u8);
}

}  // namespace
