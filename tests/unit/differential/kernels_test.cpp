// Differential end-to-end kernels beyond plain arithmetic: control flow, ndrange, device
// functions with tuple returns, atomics, local arrays, aliasing, math builtins.
#include <algorithm>

#include "harness.hpp"

namespace tack::difftest {
namespace {

class DifferentialKernels : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        if (!opencl_available(&why)) GTEST_SKIP() << why;
    }
};

HostArray& arr(std::vector<HostArg>& x, std::size_t i) {
    return std::get<HostArray>(x[i]);
}

template <class T>
void control_flow_case(DType dt) {
    Kernel k = kernel(R"(
@tack.kernel
def flow(start, steps, label, limit):
    for i in range(start.shape[0]):
        n = start[i]
        count = 0
        while n != 1:
            if count >= limit:
                break
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        steps[i] = count
        if start[i] < 0:
            label[i] = -1
            continue
        elif start[i] == 0:
            label[i] = 0
        else:
            label[i] = 1
        j = 0
        while j < 5:
            j += 1
            if j == 2:
                continue
            if j == 4:
                break
            label[i] += 10
)",
                      "flow");
    std::vector<T> sv;
    for (int v = -20; v < 300; ++v)
        sv.push_back(T(v));
    for (T v : sample_values<T>(61, 10))
        sv.push_back(v);
    const auto n = static_cast<std::int64_t>(sv.size());
    const std::int32_t limit = 200;
    std::vector<HostArg> args = {HostArray::of(sv), HostArray::zeros(DType::i32, {n}),
                                 HostArray::zeros(DType::i32, {n}), Scalar::of(limit)};
    Reference ref = [&](std::vector<HostArg>& x) {
        for (std::size_t i = 0; i < sv.size(); ++i) {
            using U = std::make_unsigned_t<T>;
            T v = sv[i];
            std::int32_t count = 0;
            while (v != 1) {
                if (count >= limit) break;
                // Floor division and modulo by 2 (CONTRACT B11), wrapping 3n+1.
                T m = T(v % 2);
                if (m < 0) m = T(m + 2);
                if (m == 0) {
                    T q = T(v / 2);
                    if (v % 2 != 0 && v < 0) q = T(q - 1);
                    v = q;
                } else {
                    v = T(U(U(3) * U(v) + U(1)));
                }
                ++count;
            }
            arr(x, 1).at<std::int32_t>(i) = count;
            std::int32_t label = sv[i] < 0 ? -1 : sv[i] == 0 ? 0 : 1;
            if (sv[i] >= 0) label += 20;  // j == 1 and j == 3 add; 2 continues; 4 breaks
            arr(x, 2).at<std::int32_t>(i) = label;
        }
    };
    check_kernel(std::string("control flow ") + name(dt), k, args, ref);
}

TEST_F(DifferentialKernels, ControlFlow) {
    control_flow_case<std::int32_t>(DType::i32);
    control_flow_case<std::int64_t>(DType::i64);
}

TEST_F(DifferentialKernels, NdrangeWithStartEndPairs) {
    Kernel k2 = kernel(R"(
@tack.kernel
def grid(out):
    for i, j in tack.ndrange((1, out.shape[0] - 1), (2, out.shape[1])):
        out[i, j] = i * 100 + j
)",
                       "grid");
    const int rows = 37, cols = 300;
    std::vector<HostArg> args = {
        HostArray::of(std::vector<std::int32_t>(rows * cols, -1), {rows, cols})};
    check_kernel("ndrange 2d", k2, args, [&](std::vector<HostArg>& x) {
        for (int i = 1; i < rows - 1; ++i)
            for (int j = 2; j < cols; ++j)
                arr(x, 0).at<std::int32_t>(static_cast<std::size_t>(i * cols + j)) = i * 100 + j;
    });
    Kernel k3 = kernel(R"(
@tack.kernel
def cube(out, lo):
    for i, j, k in tack.ndrange(out.shape[0], (lo, out.shape[1]), (1, out.shape[2] - 1)):
        out[i, j, k] = i * 10000 + j * 100 + k
)",
                       "cube");
    const int a = 5, b = 20, c = 33;
    std::vector<HostArg> args3 = {HostArray::of(std::vector<std::int64_t>(a * b * c, 7), {a, b, c}),
                                  Scalar::of(std::int64_t(3))};
    check_kernel("ndrange 3d", k3, args3, [&](std::vector<HostArg>& x) {
        for (int i = 0; i < a; ++i)
            for (int j = 3; j < b; ++j)
                for (int l = 1; l < c - 1; ++l)
                    arr(x, 0).at<std::int64_t>(static_cast<std::size_t>((i * b + j) * c + l)) =
                        i * 10000 + j * 100 + l;
    });
}

TEST_F(DifferentialKernels, DeviceFunctionsWithTupleReturns) {
    Kernel k = kernel(R"(
@tack.func
def divmod2(a, b):
    return a // b, a % b

@tack.func
def clamp(h, limit):
    if h > limit:
        return limit
    return h

@tack.func
def both(a, b):
    q, r = divmod2(a, b)
    return clamp(q, 100), r * 2

@tack.kernel
def funcs(a, b, q, r, c, d):
    for i in range(a.shape[0]):
        q[i], r[i] = divmod2(a[i], b[i])
        c[i], d[i] = both(a[i], b[i])
)",
                      "funcs");
    std::vector<std::int32_t> av, bv;
    for (std::int32_t x : sample_values<std::int32_t>(71, 8))
        for (std::int32_t y : {1, -1, 3, -7, 1000, 0}) {
            av.push_back(x);
            bv.push_back(y);
        }
    const auto n = static_cast<std::int64_t>(av.size());
    std::vector<HostArg> args = {HostArray::of(av), HostArray::of(bv)};
    for (int i = 0; i < 4; ++i)
        args.push_back(HostArray::zeros(DType::i32, {n}));
    check_kernel("device functions", k, args, [&](std::vector<HostArg>& x) {
        for (std::size_t i = 0; i < av.size(); ++i) {
            std::int32_t a = av[i], b = bv[i], q = 0, m = 0;
            if (b != 0 && !(a == INT32_MIN && b == -1)) {
                q = a / b;
                m = a % b;
                if (m != 0 && ((m < 0) != (b < 0))) {
                    --q;
                    m += b;
                }
            } else if (b == -1) {
                q = a;
            }
            arr(x, 2).at<std::int32_t>(i) = q;
            arr(x, 3).at<std::int32_t>(i) = m;
            arr(x, 4).at<std::int32_t>(i) = std::min(q, 100);
            arr(x, 5).at<std::int32_t>(i) = static_cast<std::int32_t>(std::uint32_t(m) * 2u);
        }
    });
}

template <class T>
void atomics_case(DType dt) {
    Kernel k = kernel(R"(
@tack.kernel
def atoms(idx, v, acc, lo, hi):
    for i in range(idx.shape[0]):
        tack.atomic_add(acc, idx[i], v[i])
        tack.atomic_min(lo, idx[i], v[i])
        tack.atomic_max(hi, idx[i], v[i])
)",
                      "atoms");
    constexpr int kBins = 7, kN = 4096;
    Random rng(static_cast<std::uint64_t>(dt) + 81);
    std::vector<std::int64_t> idx(kN);
    std::vector<T> v(kN);
    for (int i = 0; i < kN; ++i) {
        idx[std::size_t(i)] = static_cast<std::int64_t>(rng.next() % kBins);
        // Integers only: float sums then stay exact in any order.
        v[std::size_t(i)] = static_cast<T>(static_cast<std::int64_t>(rng.next() % 2001) - 1000);
    }
    using L = std::numeric_limits<T>;
    std::vector<T> lo0(kBins, L::max()), hi0(kBins, L::lowest());
    std::vector<HostArg> args = {HostArray::of(idx), HostArray::of(v),
                                 HostArray::zeros(dt, {kBins}), HostArray::of(lo0),
                                 HostArray::of(hi0)};
    check_kernel(std::string("atomics ") + name(dt), k, args, [&](std::vector<HostArg>& x) {
        for (int i = 0; i < kN; ++i) {
            auto b = static_cast<std::size_t>(idx[std::size_t(i)]);
            T val = v[std::size_t(i)];
            T& acc = arr(x, 2).at<T>(b);
            if constexpr (std::is_floating_point_v<T>)
                acc += val;
            else
                acc = T(std::make_unsigned_t<T>(acc) + std::make_unsigned_t<T>(val));
            arr(x, 3).at<T>(b) = std::min(arr(x, 3).at<T>(b), val);
            arr(x, 4).at<T>(b) = std::max(arr(x, 4).at<T>(b), val);
        }
    });
}

TEST_F(DifferentialKernels, AtomicsAddMinMax) {
    atomics_case<std::int32_t>(DType::i32);
    atomics_case<std::uint32_t>(DType::u32);
    atomics_case<float>(DType::f32);
    if (device("opencl").supported_atomic_dtypes().contains(DType::i64)) {
        atomics_case<std::int64_t>(DType::i64);
        atomics_case<std::uint64_t>(DType::u64);
    }
    device("cpu");
}

TEST_F(DifferentialKernels, LocalArrays) {
    Kernel k = kernel(R"(
@tack.kernel
def prefix(x, out):
    for i in range(x.shape[0]):
        tmp = tack.local_array(tack.f32, 8)
        for j in range(8):
            tmp[j] = x[i] * (j + 1)
        s = 0.0
        for j in range(8):
            s += tmp[7 - j]
        out[i] = s
)",
                      "prefix");
    std::vector<float> xv;
    Random rng(91);
    for (int i = 0; i < 1000; ++i)
        xv.push_back(static_cast<float>(rng.uniform(-100, 100)));
    std::vector<HostArg> args = {HostArray::of(xv), HostArray::zeros(DType::f32, {1000})};
    check_kernel("local arrays", k, args, [&](std::vector<HostArg>& x) {
        for (std::size_t i = 0; i < xv.size(); ++i) {
            float tmp[8], s = 0.0f;
            for (int j = 0; j < 8; ++j)
                tmp[j] = xv[i] * float(j + 1);
            for (int j = 0; j < 8; ++j)
                s += tmp[7 - j];
            arr(x, 1).at<float>(i) = s;
        }
    });
}

TEST_F(DifferentialKernels, AliasingSameArrayTwice) {
    Kernel k = kernel(R"(
@tack.kernel
def alias(a, b, out):
    for i in range(out.shape[0]):
        a[i] = 1.0
        b[i] = a[i] + 2.0
        out[i] = a[i]
)",
                      "alias");
    for (const std::string dev : {"cpu", "opencl"}) {
        Device d = device(dev);
        auto a = zeros(DType::f32, {300}), out = zeros(DType::f32, {300});
        k(a, a, out);  // b aliases a: a[i] reads 3.0 back
        EXPECT_EQ(out.to_host<float>(), std::vector<float>(300, 3.0f)) << dev;
        auto b = zeros(DType::f32, {300});
        k(a, b, out);
        EXPECT_EQ(out.to_host<float>(), std::vector<float>(300, 1.0f)) << dev;
        EXPECT_EQ(b.to_host<float>(), std::vector<float>(300, 3.0f)) << dev;
    }
    device("cpu");
}

// Exact functions take every edge value; transcendentals only their finite domain (CONTRACT
// B24: exceptional inputs promise nothing beyond B21) within 8 ulp.
template <class T>
void math_case(DType dt) {
    Kernel exact = kernel(R"(
@tack.kernel
def exact(x, y, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9):
    for i in range(x.shape[0]):
        o0[i] = sqrt(x[i])
        o1[i] = floor(x[i])
        o2[i] = ceil(x[i])
        o3[i] = trunc(x[i])
        o4[i] = round(x[i])
        o5[i] = abs(x[i])
        o6[i] = copysign(x[i], y[i])
        o7[i] = fmod(x[i], y[i])
        o8[i] = min(x[i], y[i])
        o9[i] = max(x[i], y[i])
)",
                          "exact");
    std::vector<T> s = sample_values<T>(static_cast<std::uint64_t>(dt) + 101, 8);
    for (T v : {T(2.5), T(-2.5), T(3.5), T(0.49999997), T(-0.5), T(1e7 + 0.5)})
        s.push_back(v);
    std::vector<T> xv, yv;
    for (T a : s)
        for (T b : s) {
            xv.push_back(a);
            yv.push_back(b);
        }
    const auto n = static_cast<std::int64_t>(xv.size());
    std::vector<HostArg> args = {HostArray::of(xv), HostArray::of(yv)};
    for (int i = 0; i < 10; ++i)
        args.push_back(HostArray::zeros(dt, {n}));
    auto fmin_py = [](T a, T b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b); };
    auto fmax_py = [](T a, T b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b); };
    Reference ref = [&](std::vector<HostArg>& x) {
        for (std::size_t i = 0; i < xv.size(); ++i) {
            T a = xv[i], b = yv[i];
            const T r[] = {std::sqrt(a),      std::floor(a), std::ceil(a),        std::trunc(a),
                           std::nearbyint(a), std::fabs(a),  std::copysign(a, b), std::fmod(a, b),
                           fmin_py(a, b),     fmax_py(a, b)};
            for (std::size_t k = 0; k < 10; ++k)
                arr(x, 2 + k).at<T>(i) = r[k];
        }
    };
    // A 0.0/-0.0 tie in min/max may return either sign (CONTRACT B22).
    const Tolerance any_zero{.ulp = 0, .zero_sign = false};
    check_kernel(std::string("exact math ") + name(dt), exact, args, ref, {},
                 {{10, any_zero}, {11, any_zero}});

    Kernel trans = kernel(R"(
@tack.kernel
def trans(x, u, p, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15, o16):
    for i in range(x.shape[0]):
        o0[i] = sin(x[i])
        o1[i] = cos(x[i])
        o2[i] = tan(x[i])
        o3[i] = asin(u[i])
        o4[i] = acos(u[i])
        o5[i] = atan(x[i])
        o6[i] = atan2(x[i], u[i])
        o7[i] = sinh(u[i] * 20)
        o8[i] = cosh(u[i] * 20)
        o9[i] = tanh(x[i])
        o10[i] = exp(u[i] * 80)
        o11[i] = exp2(u[i] * 100)
        o12[i] = log(p[i])
        o13[i] = log2(p[i])
        o14[i] = log10(p[i])
        o15[i] = pow(p[i], u[i] * 4)
        o16[i] = sqrt(p[i])
)",
                          "trans");
    Random rng(static_cast<std::uint64_t>(dt) + 111);
    std::vector<T> tx, tu, tp;
    for (int i = 0; i < 512; ++i) {
        tx.push_back(static_cast<T>(rng.uniform(-30, 30)));
        tu.push_back(static_cast<T>(rng.uniform(-1, 1)));
        tp.push_back(static_cast<T>(std::exp(rng.uniform(-20, 20))));
    }
    tu[0] = T(0);
    tu[1] = T(1);
    tu[2] = T(-1);
    tp[0] = T(1);
    const auto m = static_cast<std::int64_t>(tx.size());
    std::vector<HostArg> targs = {HostArray::of(tx), HostArray::of(tu), HostArray::of(tp)};
    for (int i = 0; i < 17; ++i)
        targs.push_back(HostArray::zeros(dt, {m}));
    check_kernel(
        std::string("transcendental math ") + name(dt), trans, targs,
        [&](std::vector<HostArg>& x) {
            for (std::size_t i = 0; i < tx.size(); ++i) {
                T a = tx[i], u = tu[i], p = tp[i];
                const T r[] = {std::sin(a),           std::cos(a),          std::tan(a),
                               std::asin(u),          std::acos(u),         std::atan(a),
                               std::atan2(a, u),      std::sinh(T(u * 20)), std::cosh(T(u * 20)),
                               std::tanh(a),          std::exp(T(u * 80)),  std::exp2(T(u * 100)),
                               std::log(p),           std::log2(p),         std::log10(p),
                               std::pow(p, T(u * 4)), std::sqrt(p)};
                for (std::size_t k = 0; k < 17; ++k)
                    arr(x, 3 + k).at<T>(i) = r[k];
            }
        },
        Tolerance{.ulp = 8, .zero_sign = false});
}

TEST_F(DifferentialKernels, MathBuiltins) {
    math_case<float>(DType::f32);
    math_case<double>(DType::f64);
}

}  // namespace
}  // namespace tack::difftest
