// Vector and matrix kernels through the public C++ API (Array::with_elements), each checked
// against a hand-written C++ loop; shape errors keep their location.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

tack::Kernel kernel(const std::string& src, const char* name) {
    return tack::Module::from_source("import tack\n\n" + src, "vec.py").kernel(name);
}

TEST(E2EVectors, CrossProductOfVectorFields) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def cross(a, b, out, lengths):
    for i in range(len(a)):
        c = a[i].cross(b[i])
        out[i] = c
        lengths[i] = c.norm()
)",
                            "cross");
    const int n = 17;
    std::vector<float> av(3 * n), bv(3 * n);
    for (int k = 0; k < 3 * n; ++k) {
        av[k] = 0.25f * static_cast<float>(k % 7) - 0.5f;
        bv[k] = 1.0f - 0.125f * static_cast<float>(k % 5);
    }
    const std::int64_t elems[] = {n}, three[] = {3};
    tack::Array a = tack::Array::from_host(av, {n, 3}).with_elements(elems, three);
    tack::Array b = tack::Array::from_host(bv, {n, 3}).with_elements(elems, three);
    tack::Array out2 = tack::zeros(tack::f32, {n, 3});
    tack::Array out = out2.with_elements(elems, three);
    tack::Array lengths = tack::zeros(tack::f32, {n});
    EXPECT_EQ(out.elem_rank(), 1);
    k(a, b, out, lengths);
    std::vector<float> got = out2.to_host<float>(), len = lengths.to_host<float>();
    for (int i = 0; i < n; ++i) {
        const float* x = &av[3 * i];
        const float* y = &bv[3 * i];
        float c[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                      x[0] * y[1] - x[1] * y[0]};
        for (int d = 0; d < 3; ++d)
            ASSERT_EQ(got[3 * i + d], c[d]) << i << " " << d;
        ASSERT_EQ(len[i], std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2])) << i;
    }
}

// A copy or a converted copy of a field of vectors is still one: kernels see its elements.
TEST(E2EVectors, CopiesKeepTheElementShape) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def norms(a, out):
    for i in range(len(a)):
        out[i] = a[i].norm_sqr()
)",
                            "norms");
    const int n = 5;
    std::vector<double> av(3 * n);
    for (int j = 0; j < 3 * n; ++j)
        av[j] = 0.5 * j;
    const std::int64_t elems[] = {n}, three[] = {3};
    tack::Array a = tack::Array::from_host(av, {n, 3}).with_elements(elems, three);
    for (const tack::Array& c : {a.copy(), a.astype(tack::f32)}) {
        ASSERT_EQ(c.elem_rank(), 1);
        tack::Array out = tack::zeros(tack::f64, {n});
        k(c, out);
        std::vector<double> got = out.to_host<double>();
        for (int i = 0; i < n; ++i) {
            double want = 0;
            for (int d = 0; d < 3; ++d)
                want += av[3 * i + d] * av[3 * i + d];
            ASSERT_EQ(got[i], want) << i;
        }
    }
}

TEST(E2EVectors, MatrixVectorProductAndInverse) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def solve(m, v, x, n):
    for i in range(n):
        x[i] = m[i].inverse() @ v[i]
)",
                            "solve");
    const int n = 8;
    std::vector<double> mv(4 * n), vv(2 * n);
    for (int i = 0; i < n; ++i) {
        mv[4 * i] = 2.0 + i;
        mv[4 * i + 1] = 1.0;
        mv[4 * i + 2] = -1.0;
        mv[4 * i + 3] = 3.0;
        vv[2 * i] = 1.0 * i;
        vv[2 * i + 1] = 2.0;
    }
    const std::int64_t elems[] = {n}, two[] = {2}, two_two[] = {2, 2};
    tack::Array m = tack::Array::from_host(mv, {n, 2, 2}).with_elements(elems, two_two);
    tack::Array v = tack::Array::from_host(vv, {n, 2}).with_elements(elems, two);
    tack::Array x2 = tack::zeros(tack::f64, {n, 2});
    k(m, v, x2.with_elements(elems, two), std::int64_t(n));
    std::vector<double> x = x2.to_host<double>();
    for (int i = 0; i < n; ++i) {
        const double* a = &mv[4 * i];
        double det = a[0] * a[3] - a[1] * a[2];
        double inv[4] = {a[3] / det, -a[1] / det, -a[2] / det, a[0] / det};
        double want0 = inv[0] * vv[2 * i] + inv[1] * vv[2 * i + 1];
        double want1 = inv[2] * vv[2 * i] + inv[3] * vv[2 * i + 1];
        ASSERT_EQ(x[2 * i], want0) << i;
        ASSERT_EQ(x[2 * i + 1], want1) << i;
    }
}

TEST(E2EVectors, AShapeMismatchNamesBothShapesAndTheLine) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def bad(a, out):
    for i in range(len(a)):
        out[i] = a[i] + [1.0, 2.0]
)",
                            "bad");
    const std::int64_t elems[] = {4}, three[] = {3};
    tack::Array a = tack::zeros(tack::f32, {4, 3}).with_elements(elems, three);
    tack::Array out = tack::zeros(tack::f32, {4, 3}).with_elements(elems, three);
    try {
        k(a, out);
        FAIL() << "accepted a 3-vector plus a 2-vector";
    } catch (const tack::CompileError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("combines a 2-vector and 3-vector"), std::string::npos) << what;
        EXPECT_NE(what.find("line 7, column 18"), std::string::npos) << what;
    }
}

// tack.random from C++: the compiled-in python/tack/random.py, checked against PCG's 32-bit
// RXS-M-XS step written out here.
TEST(E2EVectors, TackRandomDrawsThePythonPackagesNumbers) {
    tack::Kernel k = tack::Module::from_source(R"(import tack
from tack import random

@tack.kernel
def draws(bits, unit, stream):
    for i in range(bits.shape[0]):
        state = random.seed(i, stream)
        bits[i] = state
        u, state = random.uniform(state)
        unit[i] = u
)",
                                               "rand.py")
                         .kernel("draws");
    auto advance = [](std::uint32_t s) {
        std::uint32_t x = s * 747796405u + 2891336453u;
        std::uint32_t word = ((x >> ((x >> 28u) + 4u)) ^ x) * 277803737u;
        return (word >> 22u) ^ word;
    };
    const int n = 100;
    const std::uint32_t stream = 7;
    tack::Array bits = tack::zeros(tack::u32, {n});
    tack::Array unit = tack::zeros(tack::f32, {n});
    k(bits, unit, stream);
    std::vector<std::uint32_t> b = bits.to_host<std::uint32_t>();
    std::vector<float> u = unit.to_host<float>();
    for (int i = 0; i < n; ++i) {
        std::uint32_t state = advance(static_cast<std::uint32_t>(i) ^ advance(stream));
        ASSERT_EQ(b[i], state) << i;
        ASSERT_EQ(u[i], static_cast<float>(state >> 8u) * 0x1p-24f) << i;
    }
}

}  // namespace
