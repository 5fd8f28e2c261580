// f32 device reductions on the OpenCL backend (PoCL here) against double-precision loops
// written in this file: CONTRACT C15 (empty arrays), C17 (NaN, zero signs, exact extrema) and
// C18 (the gamma_n error budget of sums). Each test skips when no OpenCL device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/opencl/opencl_backend.hpp"
#include "tack/tack.hpp"

namespace {

using tack::runtime::opencl::OpenClBackend;
using tack::runtime::opencl::ReduceOp;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

class OpenClReduce : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            dev_ = tack::device("opencl");
        } catch (const tack::RuntimeError& e) {
            GTEST_SKIP() << e.what();
        }
    }
    void TearDown() override { tack::device("cpu"); }

    OpenClBackend& backend() { return static_cast<OpenClBackend&>(*dev_.backend()); }

    double reduce(const std::vector<float>& v, ReduceOp op,
                  std::uint64_t max_groups = std::numeric_limits<std::uint64_t>::max()) {
        auto n = static_cast<std::int64_t>(v.size());
        tack::Array a = tack::Array::from_host(v, {n});
        std::optional<double> r = backend().reduce_f32(*a.buffer(), n, op, max_groups);
        EXPECT_TRUE(r.has_value()) << "PoCL admits 256-lane groups";
        return r.value_or(kNaN);
    }

    tack::Device dev_;
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(gen);
    return v;
}

// CONTRACT C18: |computed - exact| <= gamma_n * sum|x|, gamma_n = n*u / (1 - n*u), u = 2^-24.
double sum_budget(const std::vector<float>& v) {
    double abs_sum = 0;
    for (float x : v)
        abs_sum += std::fabs(double(x));
    double nu = double(v.size()) * std::ldexp(1.0, -24);
    return nu / (1.0 - nu) * abs_sum;
}

double exact_sum(const std::vector<float>& v) {
    double s = 0;  // exact enough: 10^6 terms of |x| <= 1 lose < 2^-30 in double
    for (float x : v)
        s += double(x);
    return s;
}

float exact_min(const std::vector<float>& v) {
    float m = v[0];
    for (float x : v)
        if (x < m) m = x;
    return m;
}

float exact_max(const std::vector<float>& v) {
    float m = v[0];
    for (float x : v)
        if (x > m) m = x;
    return m;
}

bool same_bits(double a, float b) {
    return std::signbit(a) == std::signbit(b) && float(a) == b;
}

class OpenClReduceSizes : public OpenClReduce, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(OpenClReduceSizes, SumMeanMinMaxMatchDoubleReferences) {
    const std::size_t n = GetParam();
    std::vector<float> v = random_floats(n, static_cast<unsigned>(n));
    double exact = exact_sum(v), budget = sum_budget(v);
    double sum = reduce(v, ReduceOp::Sum);
    EXPECT_LE(std::fabs(sum - exact), budget) << "n=" << n;
    EXPECT_EQ(double(float(sum)), sum) << "an f32 accumulation";
    // Mean: the sum's error over n plus one rounding of the host division.
    double mean = sum / double(n), exact_mean = exact / double(n);
    EXPECT_LE(std::fabs(mean - exact_mean),
              budget / double(n) + std::fabs(exact_mean) * std::ldexp(1.0, -52))
        << "n=" << n;
    EXPECT_EQ(reduce(v, ReduceOp::Min), double(exact_min(v))) << "n=" << n;
    EXPECT_EQ(reduce(v, ReduceOp::Max), double(exact_max(v))) << "n=" << n;
}

INSTANTIATE_TEST_SUITE_P(Sizes, OpenClReduceSizes,
                         ::testing::Values(std::size_t(1), std::size_t(255), std::size_t(256),
                                           std::size_t(257), std::size_t(1000000)));

// Fewer groups than ceil(n / 256): each lane strides over the array.
TEST_F(OpenClReduce, CappedGridStridesOverTheArray) {
    std::vector<float> v = random_floats(1000000, 7);
    for (std::uint64_t groups : {1u, 3u, 1000u}) {
        EXPECT_LE(std::fabs(reduce(v, ReduceOp::Sum, groups) - exact_sum(v)), sum_budget(v))
            << groups;
        EXPECT_EQ(reduce(v, ReduceOp::Min, groups), double(exact_min(v))) << groups;
        EXPECT_EQ(reduce(v, ReduceOp::Max, groups), double(exact_max(v))) << groups;
    }
}

// Positive integers sum exactly in f32 below 2^24 whatever the grouping.
TEST_F(OpenClReduce, IntegerValuedSumIsExact) {
    std::vector<float> v(100000);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = float(i % 100);
    double expected = 0;
    for (float x : v)
        expected += x;
    ASSERT_LT(expected, 16777216.0);
    EXPECT_EQ(reduce(v, ReduceOp::Sum), expected);
}

TEST_F(OpenClReduce, NanPropagatesFromAnyPosition) {
    for (std::size_t pos :
         {std::size_t(0), std::size_t(300), std::size_t(4095), std::size_t(70000)}) {
        std::vector<float> v = random_floats(70001, 11);
        v[pos] = kNaN;
        EXPECT_TRUE(std::isnan(reduce(v, ReduceOp::Sum))) << pos;
        EXPECT_TRUE(std::isnan(reduce(v, ReduceOp::Min))) << pos;
        EXPECT_TRUE(std::isnan(reduce(v, ReduceOp::Max))) << pos;
    }
    // Beside infinities the extrema would otherwise pick.
    std::vector<float> w = {-kInf, kNaN, kInf};
    EXPECT_TRUE(std::isnan(reduce(w, ReduceOp::Min)));
    EXPECT_TRUE(std::isnan(reduce(w, ReduceOp::Max)));
}

TEST_F(OpenClReduce, InfinityPlusMinusInfinityIsNan) {
    std::vector<float> v(1000, 1.0f);
    v[10] = kInf;
    v[900] = -kInf;
    EXPECT_TRUE(std::isnan(reduce(v, ReduceOp::Sum)));
    v[900] = 2.0f;
    EXPECT_EQ(reduce(v, ReduceOp::Sum), double(kInf));
}

TEST_F(OpenClReduce, ZeroTiesPreferMinusZeroForMinAndPlusZeroForMax) {
    for (std::size_t n : {std::size_t(2), std::size_t(256), std::size_t(5000)}) {
        std::vector<float> mixed(n, 0.0f);
        for (std::size_t i = 0; i < n; i += 3)
            mixed[i] = -0.0f;
        mixed[n - 1] = -0.0f;
        mixed[0] = 0.0f;
        EXPECT_TRUE(same_bits(reduce(mixed, ReduceOp::Min), -0.0f)) << n;
        EXPECT_TRUE(same_bits(reduce(mixed, ReduceOp::Max), 0.0f)) << n;
        std::vector<float> negative(n, -0.0f), positive(n, 0.0f);
        EXPECT_TRUE(same_bits(reduce(negative, ReduceOp::Max), -0.0f)) << n;
        EXPECT_TRUE(same_bits(reduce(negative, ReduceOp::Min), -0.0f)) << n;
        EXPECT_TRUE(same_bits(reduce(positive, ReduceOp::Min), 0.0f)) << n;
        EXPECT_TRUE(same_bits(reduce(positive, ReduceOp::Max), 0.0f)) << n;
    }
}

TEST_F(OpenClReduce, ExtremaAreExactAtTheEnds) {
    std::vector<float> v = random_floats(100000, 3);
    v[99999] = 1.5f;
    v[0] = -1.25f;
    EXPECT_EQ(reduce(v, ReduceOp::Max), 1.5);
    EXPECT_EQ(reduce(v, ReduceOp::Min), -1.25);
    std::vector<float> inf = {kInf, kInf};
    EXPECT_EQ(reduce(inf, ReduceOp::Min), double(kInf));
    EXPECT_EQ(reduce(std::vector<float>{-kInf}, ReduceOp::Max), -double(kInf));
}

// CONTRACT C15: sum 0.0 (positive), min/max ValueError, decided before any launch or read.
TEST_F(OpenClReduce, EmptyArrayRules) {
    tack::Array a = tack::Array::from_host(std::vector<float>{}, {0});
    std::optional<double> sum = backend().reduce_f32(*a.buffer(), 0, ReduceOp::Sum);
    ASSERT_TRUE(sum.has_value());
    EXPECT_EQ(*sum, 0.0);
    EXPECT_FALSE(std::signbit(*sum));
    EXPECT_TRUE(std::isnan(*sum / 0.0)) << "mean = sum / size";
    for (auto [op, word] : {std::pair{ReduceOp::Min, "min"}, std::pair{ReduceOp::Max, "max"}}) {
        try {
            backend().reduce_f32(*a.buffer(), 0, op);
            ADD_FAILURE() << "expected ValueError";
        } catch (const tack::ValueError& e) {
            EXPECT_EQ(std::string(e.what()),
                      std::string(word) + " reduction requires a nonempty field");
        }
    }
}

// E4: a device whose groups hold fewer than 256 lanes leaves nonempty reductions to the host
// (nullopt); the empty-array rules still hold without a launch.
TEST_F(OpenClReduce, NarrowDeviceDeclinesNonemptyReductions) {
    namespace ocl = tack::runtime::opencl;
    std::string why;
    const ocl::ClApi* api = ocl::cl_api(&why);
    ASSERT_TRUE(api) << why;
    ocl::DeviceDesc desc = ocl::open_device(*api, ocl::choose_device({}));
    desc.max_work_group_size = 128;
    auto narrow = std::make_shared<OpenClBackend>(*api, desc);
    EXPECT_FALSE(narrow->supports_device_reductions());
    auto buffer = narrow->allocate_array(4 * sizeof(float));
    const float data[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    buffer->write(0, data, sizeof data);
    EXPECT_FALSE(narrow->reduce_f32(*buffer, 4, ReduceOp::Sum).has_value());
    EXPECT_FALSE(narrow->reduce_f32(*buffer, 4, ReduceOp::Max).has_value());
    EXPECT_EQ(narrow->reduce_f32(*buffer, 0, ReduceOp::Sum).value(), 0.0);
    EXPECT_THROW(narrow->reduce_f32(*buffer, 0, ReduceOp::Min), tack::ValueError);
}

// Wrapped host memory is the storage: a reduction sees writes made through the pointer.
TEST_F(OpenClReduce, WrappedMemoryIsReadWhereItLives) {
    std::vector<float> host(1000, 1.0f);
    tack::Array a = tack::Array::from_ptr(host.data(), tack::DType::f32, {1000}, true);
    EXPECT_EQ(backend().reduce_f32(*a.buffer(), 1000, ReduceOp::Sum).value(), 1000.0);
    host[5] = -7.0f;
    EXPECT_EQ(backend().reduce_f32(*a.buffer(), 1000, ReduceOp::Sum).value(), 992.0);
    EXPECT_EQ(backend().reduce_f32(*a.buffer(), 1000, ReduceOp::Min).value(), -7.0);
}

}  // namespace
