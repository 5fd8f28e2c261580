#include "harness.hpp"

namespace tack::cfamily_test {
namespace {

// y[i] = a * x[i] + y[i]
template <class T>
Kernel saxpy(DType t) {
    KernelBuilder b("saxpy");
    auto x = b.array("x", t);
    auto y = b.array("y", t);
    auto a = b.scalar("a", t);
    auto i = b.dim("i", 0, 0);  // the outer end is the host's __n__
    auto ax = bin(BinaryOp::Mul, vr(a), ld(x, vr(i)));
    b.k.body = {st(y, vr(i), bin(BinaryOp::Add, ax, ld(y, vr(i))))};
    return b.k;
}

template <class T>
void check_saxpy(DType t, size_t n) {
    TACK_REQUIRE_OPENCL();
    std::vector<T> x(n), y(n), want(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = static_cast<T>(i) * T(0.5);
        y[i] = T(3) - static_cast<T>(i % 7);
    }
    T a = T(2.25);
    // Products and sums of these values are exact in both precisions, so contraction (permitted
    // within one expression) cannot change the result.
    for (size_t i = 0; i < n; ++i)
        want[i] = a * x[i] + y[i];
    ASSERT_EQ(run_opencl(saxpy<T>(t), {arr(x), arr(y), val(a)}, n), "");
    EXPECT_TRUE(same_bits(y, want));
}

TEST(CFamilyOpenCL, SaxpyF32) {
    check_saxpy<float>(DType::f32, 1000);
}
TEST(CFamilyOpenCL, SaxpyF64) {
    check_saxpy<double>(DType::f64, 777);
}
TEST(CFamilyOpenCL, SaxpyExactGroups) {
    check_saxpy<float>(DType::f32, 512);
}

}  // namespace
}  // namespace tack::cfamily_test
