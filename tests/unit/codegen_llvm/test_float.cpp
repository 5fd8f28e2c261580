// Float semantics: CPython floor division and modulo (CONTRACT B18), saturating float->int
// casts with NaN -> 0, int->float and float->float casts, ordered compares except !=, NaN
// truthiness, min/max with one NaN, and the math builtins against the C library.

#include <cmath>
#include <limits>

#include "harness.hpp"

namespace tack::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class F>
constexpr DType float_type() {
    return std::is_same_v<F, float> ? f32 : f64;
}

/// out_fd[i] = a[i] // b[i], out_mod[i] = a[i] % b[i]
template <class F>
void run_floordiv_mod(const std::vector<F>& a, const std::vector<F>& b, std::vector<F>& fd,
                      std::vector<F>& mod) {
    constexpr DType t = float_type<F>();
    KernelBuilder kb(std::string("fdivmod_") + name(t));
    auto pa = kb.array_param("a", t);
    auto pb = kb.array_param("b", t);
    auto pfd = kb.array_param("fd", t);
    auto pmod = kb.array_param("mod", t);
    auto i = kb.dim(0, 0, 1);
    auto x = load(pa, use(i)), y = load(pb, use(i));
    kb.k.body.push_back(store(pfd, use(i), bin(BinaryOp::FloorDiv, x, y)));
    kb.k.body.push_back(store(pmod, use(i), bin(BinaryOp::Mod, x, y)));
    auto c = compile(kb.k);
    fd.assign(a.size(), 0);
    mod.assign(a.size(), 0);
    c.run({slot(a.data()), slot(b.data()), slot(fd.data()), slot(mod.data())}, 0, a.size());
}

// Same value, same sign of zero, or both NaN.
template <class F>
bool same(F got, F want) {
    if (std::isnan(want)) return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
}

struct DivModCase {
    double a, b, floordiv, mod;
};

TEST(LlvmFloat, FloorDivModHandComputedF64) {
    // Values from CPython (divmod) and CONTRACT B18.
    const DivModCase cases[] = {
        {0.5, 0.1, 4.0, 0.09999999999999998},
        {1.0, 0.1, 9.0, 0.09999999999999995},
        {-7.0, 2.0, -4.0, 1.0},
        {7.0, -3.0, -3.0, -2.0},
        {7.5, 2.0, 3.0, 1.5},
        {-0.0, 5.0, -0.0, 0.0},
        {0.0, -5.0, -0.0, -0.0},
        {6.0, 3.0, 2.0, 0.0},
        {-6.0, 3.0, -2.0, 0.0},
        {6.0, -3.0, -2.0, -0.0},
        {1.0, kInf, 0.0, 1.0},
        {-1.0, kInf, -1.0, kInf},
        {1.0, -kInf, -1.0, -kInf},
        {-1.0, -kInf, 0.0, -1.0},
        {kInf, 2.0, kNaN, kNaN},
        {-kInf, 2.0, kNaN, kNaN},
        {kNaN, 1.0, kNaN, kNaN},
        {1.0, kNaN, kNaN, kNaN},
        {1e308, 1e-308, kInf, 0.0},  // quotient overflow stays inf (remainder: fmod's)
    };
    std::vector<double> a, b, fd, mod;
    for (const auto& c : cases) {
        a.push_back(c.a);
        b.push_back(c.b);
    }
    run_floordiv_mod(a, b, fd, mod);
    for (size_t j = 0; j < std::size(cases); ++j) {
        EXPECT_TRUE(same(fd[j], cases[j].floordiv))
            << a[j] << " // " << b[j] << " = " << fd[j] << ", want " << cases[j].floordiv;
        if (j + 1 == std::size(cases)) continue;  // remainder of the overflow case not pinned
        EXPECT_TRUE(same(mod[j], cases[j].mod))
            << a[j] << " % " << b[j] << " = " << mod[j] << ", want " << cases[j].mod;
    }
}

TEST(LlvmFloat, FloorDivModByZeroDoesNotTrap) {
    std::vector<double> a = {5.0, 0.0, -1.0}, b = {0.0, 0.0, -0.0}, fd, mod;
    run_floordiv_mod(a, b, fd, mod);
    for (size_t j = 0; j < a.size(); ++j)
        EXPECT_TRUE(std::isnan(mod[j]));
}

// Independent reference: CPython's float_divmod, written out in type F.
template <class F>
void cpython_divmod(F vx, F wx, F& floordiv, F& mod) {
    mod = std::fmod(vx, wx);
    F div = (vx - mod) / wx;
    if (mod != 0) {
        if ((wx < 0) != (mod < 0)) {
            mod += wx;
            div -= 1;
        }
    } else {
        mod = std::copysign(F(0), wx);
    }
    if (div != 0) {
        floordiv = std::floor(div);
        if (div - floordiv > F(0.5)) floordiv += 1;
    } else {
        floordiv = std::copysign(F(0), vx / wx);
    }
}

template <class F>
void check_divmod_grid() {
    std::vector<F> values = {0.0f,   -0.0f, 0.1f,  -0.1f,  0.5f, 1.0f,  -1.0f, 2.5f,
                             -3.75f, 7.0f,  1e10f, -1e-3f, 3.0f, -7.0f, 1e30f};
    std::vector<F> a, b, fd, mod;
    for (F x : values) {
        for (F y : values) {
            if (y == 0) continue;
            a.push_back(x);
            b.push_back(y);
        }
    }
    run_floordiv_mod(a, b, fd, mod);
    for (size_t j = 0; j < a.size(); ++j) {
        F want_fd, want_mod;
        cpython_divmod(a[j], b[j], want_fd, want_mod);
        ASSERT_TRUE(same(fd[j], want_fd)) << a[j] << " // " << b[j] << " = " << fd[j];
        ASSERT_TRUE(same(mod[j], want_mod)) << a[j] << " % " << b[j] << " = " << mod[j];
    }
}

TEST(LlvmFloat, FloorDivModMatchesCPythonAlgorithm) {
    check_divmod_grid<float>();
    check_divmod_grid<double>();
}

// ---- casts -------------------------------------------------------------------------------------

template <class To, class From>
To ref_saturate(From x) {
    if (std::isnan(x)) return 0;
    long double t = std::trunc(static_cast<long double>(x));
    constexpr int n = std::numeric_limits<To>::digits;  // value bits
    long double hi = std::ldexp(1.0L, n);               // exclusive upper bound
    long double lo = std::is_signed_v<To> ? -hi : 0.0L;
    if (t >= hi) return std::numeric_limits<To>::max();
    if (t <= lo) return std::numeric_limits<To>::min();
    return static_cast<To>(t);
}

template <class F, class To>
void check_float_to_int() {
    constexpr DType ft = float_type<F>();
    constexpr DType tt = std::is_same_v<To, int8_t>     ? i8
                         : std::is_same_v<To, uint8_t>  ? u8
                         : std::is_same_v<To, int16_t>  ? i16
                         : std::is_same_v<To, uint16_t> ? u16
                         : std::is_same_v<To, int32_t>  ? i32
                         : std::is_same_v<To, uint32_t> ? u32
                         : std::is_same_v<To, int64_t>  ? i64
                                                        : u64;
    KernelBuilder kb(std::string("f2i_") + name(ft) + "_" + name(tt));
    auto a = kb.array_param("a", ft);
    auto out = kb.array_param("out", tt);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(out, use(i), Cast::make(tt, load(a, use(i)))));
    auto c = compile(kb.k);
    std::vector<F> xs = {F(kNaN),
                         F(kInf),
                         F(-kInf),
                         F(1e30),
                         F(-1e30),
                         F(2.7),
                         F(-2.7),
                         F(-0.5),
                         F(-0.0),
                         F(127.9),
                         F(128),
                         F(-129),
                         F(255.5),
                         F(256),
                         F(65535.9),
                         F(4e9),
                         F(-1),
                         F(3e19),
                         F(1.8446744073709552e19),
                         F(-9.3e18),
                         F(2147483647.0)};
    std::vector<To> got(xs.size());
    c.run({slot(xs.data()), slot(got.data())}, 0, xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
        ASSERT_EQ(got[j], ref_saturate<To>(xs[j])) << name(ft) << "->" << name(tt) << " " << xs[j];
    }
}

template <class F>
void check_float_to_all_ints() {
    check_float_to_int<F, int8_t>();
    check_float_to_int<F, uint8_t>();
    check_float_to_int<F, int16_t>();
    check_float_to_int<F, uint16_t>();
    check_float_to_int<F, int32_t>();
    check_float_to_int<F, uint32_t>();
    check_float_to_int<F, int64_t>();
    check_float_to_int<F, uint64_t>();
}

TEST(LlvmFloat, FloatToIntSaturatesAndNaNIsZero) {
    check_float_to_all_ints<float>();
    check_float_to_all_ints<double>();
    EXPECT_EQ(ref_saturate<int32_t>(-2.7), -2);  // CONTRACT B14: truncation toward zero
}

TEST(LlvmFloat, IntToFloatAndFloatToFloat) {
    KernelBuilder kb("casts_to_float");
    auto a64 = kb.array_param("a64", i64);
    auto u = kb.array_param("u", u64);
    auto s8 = kb.array_param("s8", i8);
    auto d = kb.array_param("d", f64);
    auto o1 = kb.array_param("o1", f32);
    auto o2 = kb.array_param("o2", f64);
    auto o3 = kb.array_param("o3", f32);
    auto o4 = kb.array_param("o4", f32);
    auto o5 = kb.array_param("o5", f64);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(o1, use(i), Cast::make(f32, load(a64, use(i)))));
    kb.k.body.push_back(store(o2, use(i), Cast::make(f64, load(u, use(i)))));
    kb.k.body.push_back(store(o3, use(i), Cast::make(f32, load(s8, use(i)))));
    kb.k.body.push_back(store(o4, use(i), Cast::make(f32, load(d, use(i)))));
    kb.k.body.push_back(store(o5, use(i), Cast::make(f64, Cast::make(f32, load(d, use(i))))));
    auto c = compile(kb.k);
    std::vector<int64_t> va = {std::numeric_limits<int64_t>::max(), -3, (int64_t{1} << 24) + 1};
    std::vector<uint64_t> vu = {~uint64_t{0}, 1, uint64_t{1} << 63};
    std::vector<int8_t> v8 = {-1, -128, 127};
    std::vector<double> vd = {0.1, 1e300, -kNaN};
    std::vector<float> g1(3), g3(3), g4(3);
    std::vector<double> g2(3), g5(3);
    c.run({slot(va.data()), slot(vu.data()), slot(v8.data()), slot(vd.data()), slot(g1.data()),
           slot(g2.data()), slot(g3.data()), slot(g4.data()), slot(g5.data())},
          0, 3);
    for (int j = 0; j < 3; ++j) {
        EXPECT_EQ(g1[j], static_cast<float>(va[j]));
        EXPECT_EQ(g2[j], static_cast<double>(vu[j]));
        EXPECT_EQ(g3[j], static_cast<float>(v8[j]));
    }
    EXPECT_EQ(g1[2], 16777216.0f);  // round to nearest even
    EXPECT_EQ(g4[0], 0.1f);
    EXPECT_EQ(g4[1], std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(g4[2]));
    EXPECT_EQ(g5[0], static_cast<double>(0.1f));
}

// ---- compares, truthiness, min/max, division ---------------------------------------------------

TEST(LlvmFloat, ComparesTruthinessMinMax) {
    KernelBuilder kb("fcmp");
    auto a = kb.array_param("a", f64);
    auto b = kb.array_param("b", f64);
    std::vector<BufferPtr> cmp;
    for (const char* n : {"eq", "ne", "lt", "le", "gt", "ge", "not_a"}) {
        cmp.push_back(kb.array_param(n, i32));
    }
    auto mn = kb.array_param("mn", f64);
    auto mx = kb.array_param("mx", f64);
    auto dv = kb.array_param("dv", f64);
    auto i = kb.dim(0, 0, 1);
    auto x = load(a, use(i)), y = load(b, use(i));
    for (int op = 0; op < 6; ++op) {
        kb.k.body.push_back(
            store(cmp[op], use(i), Compare::make(static_cast<CompareOp>(op), x, y)));
    }
    kb.k.body.push_back(store(cmp[6], use(i), Unary::make(UnaryOp::Not, x)));
    kb.k.body.push_back(store(mn, use(i), bin(BinaryOp::Min, x, y)));
    kb.k.body.push_back(store(mx, use(i), bin(BinaryOp::Max, x, y)));
    kb.k.body.push_back(store(dv, use(i), bin(BinaryOp::Div, x, y)));
    auto c = compile(kb.k);
    std::vector<double> va = {kNaN, kNaN, 1.0, -0.0, 2.0, 1.0, -1.0, 0.0};
    std::vector<double> vb = {1.0, kNaN, kNaN, 0.0, 1.0, 0.0, 0.0, 0.0};
    size_t n = va.size();
    std::vector<std::vector<int32_t>> got(7, std::vector<int32_t>(n));
    std::vector<double> g_mn(n), g_mx(n), g_dv(n);
    std::vector<uint64_t> slots = {slot(va.data()), slot(vb.data())};
    for (auto& g : got)
        slots.push_back(slot(g.data()));
    slots.push_back(slot(g_mn.data()));
    slots.push_back(slot(g_mx.data()));
    slots.push_back(slot(g_dv.data()));
    c.run(slots, 0, n);
    for (size_t j = 0; j < n; ++j) {
        double x = va[j], y = vb[j];
        EXPECT_EQ(got[0][j], x == y) << x << " " << y;
        EXPECT_EQ(got[1][j], x != y) << x << " " << y;  // C++ != is unordered too
        EXPECT_EQ(got[2][j], x < y);
        EXPECT_EQ(got[3][j], x <= y);
        EXPECT_EQ(got[4][j], x > y);
        EXPECT_EQ(got[5][j], x >= y);
        EXPECT_EQ(got[6][j], x == 0.0 ? 1 : 0) << x;  // NaN is true, so `not NaN` is 0
        if (std::isnan(x) && std::isnan(y)) {
            EXPECT_TRUE(std::isnan(g_mn[j]) && std::isnan(g_mx[j]));
        } else if (std::isnan(x) || std::isnan(y)) {
            double other = std::isnan(x) ? y : x;
            EXPECT_EQ(g_mn[j], other);
            EXPECT_EQ(g_mx[j], other);
        } else if (x != y) {
            EXPECT_EQ(g_mn[j], std::min(x, y));
            EXPECT_EQ(g_mx[j], std::max(x, y));
        }
    }
    EXPECT_EQ(g_dv[5], kInf);          // 1 / 0
    EXPECT_EQ(g_dv[6], -kInf);         // -1 / 0
    EXPECT_TRUE(std::isnan(g_dv[7]));  // 0 / 0
}

// ---- math builtins -----------------------------------------------------------------------------

template <class F>
F libc(MathFn fn, F x, F y) {
    switch (fn) {
        case MathFn::Sqrt:
            return std::sqrt(x);
        case MathFn::Sin:
            return std::sin(x);
        case MathFn::Cos:
            return std::cos(x);
        case MathFn::Tan:
            return std::tan(x);
        case MathFn::Asin:
            return std::asin(x);
        case MathFn::Acos:
            return std::acos(x);
        case MathFn::Atan:
            return std::atan(x);
        case MathFn::Atan2:
            return std::atan2(x, y);
        case MathFn::Sinh:
            return std::sinh(x);
        case MathFn::Cosh:
            return std::cosh(x);
        case MathFn::Tanh:
            return std::tanh(x);
        case MathFn::Exp:
            return std::exp(x);
        case MathFn::Exp2:
            return std::exp2(x);
        case MathFn::Log:
            return std::log(x);
        case MathFn::Log2:
            return std::log2(x);
        case MathFn::Log10:
            return std::log10(x);
        case MathFn::Floor:
            return std::floor(x);
        case MathFn::Ceil:
            return std::ceil(x);
        case MathFn::Trunc:
            return std::trunc(x);
        case MathFn::Round:
            return std::nearbyint(x);
        case MathFn::Abs:
            return std::fabs(x);
        case MathFn::Pow:
            return std::pow(x, y);
        case MathFn::Fmod:
            return std::fmod(x, y);
        case MathFn::Copysign:
            return std::copysign(x, y);
    }
    return 0;
}

template <class F>
void check_math() {
    constexpr DType t = float_type<F>();
    constexpr int kNumFns = static_cast<int>(MathFn::Copysign) + 1;
    KernelBuilder kb(std::string("math_") + name(t));
    auto a = kb.array_param("a", t);
    auto b = kb.array_param("b", t);
    std::vector<BufferPtr> outs;
    for (int f = 0; f < kNumFns; ++f)
        outs.push_back(kb.array_param(to_string(MathFn(f)), t));
    auto i = kb.dim(0, 0, 1);
    for (int f = 0; f < kNumFns; ++f) {
        std::vector<ExprPtr> args = {load(a, use(i))};
        if (arity(MathFn(f)) == 2) args.push_back(load(b, use(i)));
        kb.k.body.push_back(store(outs[f], use(i), Call::make(MathFn(f), args)));
    }
    auto c = compile(kb.k);
    std::vector<F> xs = {F(0.3), F(-0.8), F(2.5), F(-2.5), F(0.5), F(-0.0)};
    std::vector<F> ys = {F(1.7), F(0.25), F(-3.0), F(2.0), F(-1.5), F(1.0)};
    size_t n = xs.size();
    std::vector<std::vector<F>> got(kNumFns, std::vector<F>(n));
    std::vector<uint64_t> slots = {slot(xs.data()), slot(ys.data())};
    for (auto& g : got)
        slots.push_back(slot(g.data()));
    c.run(slots, 0, n);
    F tolerance = std::is_same_v<F, float> ? F(2e-7) : F(4e-16);
    for (int f = 0; f < kNumFns; ++f) {
        for (size_t j = 0; j < n; ++j) {
            F want = libc(MathFn(f), xs[j], ys[j]);
            F g = got[f][j];
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(g)) << to_string(MathFn(f)) << "(" << xs[j] << ")";
            } else if (std::isinf(want)) {
                EXPECT_EQ(g, want) << to_string(MathFn(f)) << "(" << xs[j] << ")";
            } else {
                EXPECT_LE(std::fabs(g - want), tolerance * std::fmax(F(1), std::fabs(want)))
                    << name(t) << " " << to_string(MathFn(f)) << "(" << xs[j] << ", " << ys[j]
                    << ") = " << g << ", libc " << want;
                EXPECT_EQ(std::signbit(g), std::signbit(want)) << to_string(MathFn(f));
            }
        }
    }
}

TEST(LlvmFloat, MathBuiltinsMatchLibm) {
    check_math<float>();
    check_math<double>();
}

}  // namespace
}  // namespace tack::test
