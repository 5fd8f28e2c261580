// Float semantics of generated OpenCL C: saturating float->int casts, CPython floor division and
// remainder, min/max NaN rule, comparisons and truthiness (ir.hpp SEMANTICS; CONTRACT B14,
// B18, B21, B22; DECISIONS: saturation, NaN -> 0).
#include <cmath>
#include <limits>

#include "harness.hpp"

namespace tack::cfamily_test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class F>
std::vector<F> cast_inputs() {
    std::vector<double> v = {0.0,
                             -0.0,
                             0.5,
                             -0.5,
                             2.7,
                             -2.7,
                             127.9,
                             128.0,
                             -128.9,
                             -129.0,
                             255.9,
                             256.0,
                             -1.0,
                             65535.5,
                             65536.0,
                             -32768.5,
                             2147483520.0,
                             2147483648.0,
                             -2147483648.0,
                             -2147483904.0,
                             4294967040.0,
                             4294967296.0,
                             9.2233715e18,
                             9.2233720368547758e18,
                             -9.2233720368547758e18,
                             1.8446743e19,
                             1.8446744073709552e19,
                             1e30,
                             -1e30,
                             kInf,
                             -kInf,
                             kNaN};
    std::vector<F> out;
    for (double d : v)
        out.push_back(static_cast<F>(d));
    return out;
}

/// Saturating truncation computed in long double (exact for every input here).
template <class T, class F>
T ref_cast(F x) {
    if (std::isnan(x)) return 0;
    long double t = std::trunc(static_cast<long double>(x));
    if (t <= static_cast<long double>(std::numeric_limits<T>::min()))
        return std::numeric_limits<T>::min();
    if (t >= static_cast<long double>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(t);
}

template <class F, class... Ts>
void check_casts(DType f) {
    TACK_REQUIRE_OPENCL();
    std::vector<F> in = cast_inputs<F>();
    KernelBuilder kb("casts");
    auto pin = kb.array("x", f);
    auto i = kb.dim("i", 0, 0);
    const DType targets[] = {DType::i8,  DType::u8,  DType::i16, DType::u16,
                             DType::i32, DType::u32, DType::i64, DType::u64};
    std::vector<std::vector<int64_t>> outs(8, std::vector<int64_t>(in.size()));
    std::vector<HostArg> args = {arr(in)};
    for (int t = 0; t < 8; ++t) {
        auto po = kb.array("out" + std::to_string(t), DType::i64);
        // Through the target type, then widened to i64 (u64 by bit pattern) for comparison.
        auto c = Cast::make(targets[t], ld(pin, vr(i)));
        kb.k.body.push_back(st(po, vr(i), Cast::make(DType::i64, c)));
        args.push_back(arr(outs[t]));
    }
    ASSERT_EQ(run_opencl(kb.k, args, in.size()), "");
    auto want = [&](int t, F x) -> int64_t {
        switch (t) {
            case 0:
                return ref_cast<int8_t>(x);
            case 1:
                return ref_cast<uint8_t>(x);
            case 2:
                return ref_cast<int16_t>(x);
            case 3:
                return ref_cast<uint16_t>(x);
            case 4:
                return ref_cast<int32_t>(x);
            case 5:
                return ref_cast<uint32_t>(x);
            case 6:
                return ref_cast<int64_t>(x);
            default:
                return static_cast<int64_t>(ref_cast<uint64_t>(x));
        }
    };
    for (int t = 0; t < 8; ++t) {
        std::vector<int64_t> w;
        for (F x : in)
            w.push_back(want(t, x));
        EXPECT_TRUE(same_bits(outs[t], w)) << "to " << name(targets[t]) << " from " << name(f);
    }
}

TEST(CFamilyFloat, SaturatingCastsFromF32) {
    check_casts<float>(DType::f32);
}
TEST(CFamilyFloat, SaturatingCastsFromF64) {
    check_casts<double>(DType::f64);
}

// CPython's float_divmod, transcribed from Objects/floatobject.c.
template <class F>
void py_divmod(F vx, F wx, F* floordiv, F* mod) {
    F m = std::fmod(vx, wx);
    F div = (vx - m) / wx;
    if (m != 0) {
        if ((wx < 0) != (m < 0)) {
            m += wx;
            div -= 1;
        }
    } else {
        m = std::copysign(F(0), wx);
    }
    F fd;
    if (div != 0) {
        fd = std::floor(div);
        if (div - fd > F(0.5)) fd += 1;
    } else {
        fd = std::copysign(F(0), vx / wx);
    }
    *floordiv = fd;
    *mod = m;
}

template <class F>
void check_float_divmod(DType f) {
    TACK_REQUIRE_OPENCL();
    std::vector<double> xs = {0.5,   1.0, -7.0, 7.0,  -0.0,  0.0,  5.5,   -5.5,
                              1e300, 3.0, -1.0, kInf, -kInf, kNaN, 1e-300};
    std::vector<double> ys = {0.1, 2.0, -2.0, 0.3, kInf, -kInf, 1e-300, 7.0, kNaN};
    std::vector<F> a, b;
    for (double x : xs)
        for (double y : ys) {
            a.push_back(static_cast<F>(x));
            b.push_back(static_cast<F>(y));
        }
    std::vector<F> q(a.size()), m(a.size());
    KernelBuilder kb("divmod");
    auto pa = kb.array("a", f), pb = kb.array("b", f), pq = kb.array("q", f), pm = kb.array("m", f);
    auto i = kb.dim("i", 0, 0);
    kb.k.body = {st(pq, vr(i), bin(BinaryOp::FloorDiv, ld(pa, vr(i)), ld(pb, vr(i)))),
                 st(pm, vr(i), bin(BinaryOp::Mod, ld(pa, vr(i)), ld(pb, vr(i))))};
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(b), arr(q), arr(m)}, a.size()), "");
    std::vector<F> wq(a.size()), wm(a.size());
    for (size_t j = 0; j < a.size(); ++j)
        py_divmod(a[j], b[j], &wq[j], &wm[j]);
    // NaN payloads are outside the API (B21): compare NaN-ness, then bits for the rest.
    for (size_t j = 0; j < a.size(); ++j) {
        if (std::isnan(wq[j])) wq[j] = q[j] = kNaN;
        if (std::isnan(wm[j])) wm[j] = m[j] = kNaN;
    }
    EXPECT_TRUE(same_bits(q, wq));
    EXPECT_TRUE(same_bits(m, wm));
}

TEST(CFamilyFloat, FloorDivModF32) {
    check_float_divmod<float>(DType::f32);
}
TEST(CFamilyFloat, FloorDivModF64) {
    check_float_divmod<double>(DType::f64);
}

// The contract's examples (B18), hand-computed.
TEST(CFamilyFloat, FloorDivContractExamples) {
    TACK_REQUIRE_OPENCL();
    std::vector<double> a = {0.5, 1.0, 0.5, -1.0, -1.0, 1.0, -7.0, 7.0};
    std::vector<double> b = {0.1, 0.1, 0.1, kInf, kInf, kInf, 2.0, -2.0};
    std::vector<double> q(a.size()), m(a.size());
    KernelBuilder kb("divmod");
    auto pa = kb.array("a", DType::f64), pb = kb.array("b", DType::f64);
    auto pq = kb.array("q", DType::f64), pm = kb.array("m", DType::f64);
    auto i = kb.dim("i", 0, 0);
    kb.k.body = {st(pq, vr(i), bin(BinaryOp::FloorDiv, ld(pa, vr(i)), ld(pb, vr(i)))),
                 st(pm, vr(i), bin(BinaryOp::Mod, ld(pa, vr(i)), ld(pb, vr(i))))};
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(b), arr(q), arr(m)}, a.size()), "");
    EXPECT_EQ(q[0], 4.0);
    EXPECT_EQ(q[1], 9.0);
    EXPECT_EQ(m[2], 0.09999999999999998);
    EXPECT_EQ(q[3], -1.0);
    EXPECT_EQ(m[4], kInf);
    EXPECT_EQ(q[5], 0.0);
    EXPECT_FALSE(std::signbit(q[5]));
    EXPECT_EQ(m[5], 1.0);
    EXPECT_EQ(q[6], -4.0);
    EXPECT_EQ(m[6], 1.0);
    EXPECT_EQ(q[7], -4.0);
    EXPECT_EQ(m[7], -1.0);
}

TEST(CFamilyFloat, MinMaxNaNRuleAndCompares) {
    TACK_REQUIRE_OPENCL();
    std::vector<float> a = {1.0f, NAN, 2.0f, NAN, -0.0f, -3.0f, INFINITY};
    std::vector<float> b = {NAN, 1.0f, 3.0f, NAN, 5.0f, -INFINITY, 1.0f};
    size_t n = a.size();
    std::vector<float> mn(n), mx(n);
    std::vector<int32_t> ne(n), lt(n), eq(n), tr(n), land(n), lor(n);
    KernelBuilder kb("minmax");
    auto pa = kb.array("a", DType::f32), pb = kb.array("b", DType::f32);
    auto pmn = kb.array("mn", DType::f32), pmx = kb.array("mx", DType::f32);
    auto pne = kb.array("ne", DType::i32), plt = kb.array("lt", DType::i32);
    auto peq = kb.array("eq", DType::i32), ptr = kb.array("tr", DType::i32);
    auto pand = kb.array("land", DType::i32), por = kb.array("lor", DType::i32);
    auto i = kb.dim("i", 0, 0);
    auto x = ld(pa, vr(i)), y = ld(pb, vr(i));
    auto one = ic(DType::i32, 1), zero = ic(DType::i32, 0);
    kb.k.body = {st(pmn, vr(i), bin(BinaryOp::Min, x, y)),
                 st(pmx, vr(i), bin(BinaryOp::Max, x, y)),
                 st(pne, vr(i), Compare::make(CompareOp::Ne, x, y)),
                 st(plt, vr(i), Compare::make(CompareOp::Lt, x, y)),
                 st(peq, vr(i), Compare::make(CompareOp::Eq, x, y)),
                 st(ptr, vr(i), Select::make(x, one, zero)),  // NaN is true
                 st(pand, vr(i), Logical::make(LogicalOp::And, x, y)),
                 st(por, vr(i), Logical::make(LogicalOp::Or, Unary::make(UnaryOp::Not, x), y))};
    ASSERT_EQ(run_opencl(kb.k,
                         {arr(a), arr(b), arr(mn), arr(mx), arr(ne), arr(lt), arr(eq), arr(tr),
                          arr(land), arr(lor)},
                         n),
              "");
    EXPECT_EQ(mn[0], 1.0f);
    EXPECT_EQ(mx[0], 1.0f);
    EXPECT_EQ(mn[1], 1.0f);
    EXPECT_EQ(mx[1], 1.0f);
    EXPECT_EQ(mn[2], 2.0f);
    EXPECT_EQ(mx[2], 3.0f);
    EXPECT_TRUE(std::isnan(mn[3]) && std::isnan(mx[3]));
    EXPECT_EQ(mn[5], -INFINITY);
    EXPECT_EQ(mx[5], -3.0f);
    EXPECT_EQ(ne, (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 1}));
    EXPECT_EQ(lt, (std::vector<int32_t>{0, 0, 1, 0, 1, 0, 0}));
    EXPECT_EQ(eq, (std::vector<int32_t>{0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(tr, (std::vector<int32_t>{1, 1, 1, 1, 0, 1, 1}));
    EXPECT_EQ(land, (std::vector<int32_t>{1, 1, 1, 1, 0, 1, 1}));
    EXPECT_EQ(lor, (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 1}));
}

// A product stored through a variable and a sum in a later statement: p - p must be exactly 0
// (one variable holds one value), and the exceptional values of B21 survive.
TEST(CFamilyFloat, NoContractionAcrossStatementsAndSpecials) {
    TACK_REQUIRE_OPENCL();
    std::vector<float> x = {0.1f, 1.0f / 3.0f, 1e-3f, 7.0f};
    std::vector<float> out(x.size() * 4);
    KernelBuilder kb("contract");
    auto px = kb.array("x", DType::f32), po = kb.array("out", DType::f32);
    auto i = kb.dim("i", 0, 0);
    auto p = kb.local("p", DType::f32);
    auto four = [&](int64_t k) {
        return bin(BinaryOp::Add, bin(BinaryOp::Mul, vr(i), i64c(4)), i64c(k));
    };
    auto inf = fc(DType::f32, kInf);
    kb.k.body = {Assign::make(p, bin(BinaryOp::Mul, ld(px, vr(i)), fc(DType::f32, 0.2))),
                 st(po, four(0), bin(BinaryOp::Sub, vr(p), vr(p))),
                 st(po, four(1), bin(BinaryOp::Mul, inf, fc(DType::f32, 0.0))),
                 st(po, four(2), Unary::make(UnaryOp::Neg, fc(DType::f32, 0.0))),
                 st(po, four(3), bin(BinaryOp::Div, fc(DType::f32, -1.0), fc(DType::f32, 0.0)))};
    ASSERT_EQ(run_opencl(kb.k, {arr(x), arr(out)}, x.size()), "");
    for (size_t j = 0; j < x.size(); ++j) {
        EXPECT_EQ(out[4 * j], 0.0f);
        EXPECT_TRUE(std::isnan(out[4 * j + 1]));
        EXPECT_TRUE(out[4 * j + 2] == 0.0f && std::signbit(out[4 * j + 2]));
        EXPECT_EQ(out[4 * j + 3], -INFINITY);
    }
}

TEST(CFamilyFloat, MathCallsF32AndF64) {
    TACK_REQUIRE_OPENCL();
    std::vector<float> x = {0.25f, 2.5f, -0.0f, 9.0f, -2.5f, 3.5f};
    std::vector<double> y = {0.25, 2.0, -0.0, 9.0, 0.5, -1.5};
    std::vector<float> fo(x.size() * 4);
    std::vector<double> dd(y.size() * 3);
    KernelBuilder kb("math");
    auto px = kb.array("x", DType::f32), py = kb.array("y", DType::f64);
    auto pf = kb.array("fo", DType::f32), pd = kb.array("dd", DType::f64);
    auto i = kb.dim("i", 0, 0);
    auto at = [&](int64_t k) {
        return bin(BinaryOp::Add, bin(BinaryOp::Mul, vr(i), i64c(3)), i64c(k));
    };
    auto at4 = [&](int64_t k) {
        return bin(BinaryOp::Add, bin(BinaryOp::Mul, vr(i), i64c(4)), i64c(k));
    };
    auto fx = ld(px, vr(i)), dy = ld(py, vr(i));
    kb.k.body = {st(pf, at4(0), Call::make(MathFn::Sqrt, {fx})),
                 st(pf, at4(1), Call::make(MathFn::Floor, {Unary::make(UnaryOp::Neg, fx)})),
                 st(pf, at4(2), Call::make(MathFn::Abs, {fx})),
                 st(pf, at4(3), Call::make(MathFn::Round, {fx})),
                 st(pd, at(0), Call::make(MathFn::Sqrt, {dy})),
                 st(pd, at(1), Call::make(MathFn::Pow, {dy, fc(DType::f64, 2.0)})),
                 st(pd, at(2), Call::make(MathFn::Copysign, {fc(DType::f64, 1.0), dy}))};
    ASSERT_EQ(run_opencl(kb.k, {arr(x), arr(y), arr(fo), arr(dd)}, x.size()), "");
    for (size_t j = 0; j < x.size(); ++j) {
        if (x[j] >= 0) {
            EXPECT_EQ(fo[4 * j], std::sqrt(x[j]));
        }
        EXPECT_EQ(fo[4 * j + 1], std::floor(-x[j]));
        EXPECT_EQ(std::signbit(fo[4 * j + 1]), std::signbit(-x[j]));
        EXPECT_EQ(fo[4 * j + 2], std::fabs(x[j]));
        EXPECT_FALSE(std::signbit(fo[4 * j + 2]));
        if (y[j] >= 0) {
            EXPECT_EQ(dd[3 * j], std::sqrt(y[j]));
        }
        EXPECT_EQ(dd[3 * j + 1], y[j] * y[j]);
        EXPECT_EQ(dd[3 * j + 2], std::copysign(1.0, y[j]));
    }
    // round() halves to even, like Python (hand-computed)
    EXPECT_EQ(fo[4 * 1 + 3], 2.0f);   // 2.5
    EXPECT_EQ(fo[4 * 4 + 3], -2.0f);  // -2.5
    EXPECT_EQ(fo[4 * 5 + 3], 4.0f);   // 3.5
    EXPECT_EQ(fo[4 * 0 + 3], 0.0f);   // 0.25
}

// CONTRACT B17, B21: the Level Zero dialect's Intel workarounds (signed negation below 32 bits
// and abs below 64 bits as noinline helpers; f64 floor/ceil through copysign, keeping a zero's
// sign) in the source, and the same values as the OpenCL dialect's when PoCL runs both.
TEST(CFamilyLevelZero, IntelWorkaroundsKeepTheValues) {
    KernelBuilder kb("intel");
    auto px = kb.array("x", DType::f64), pf = kb.array("f", DType::f64),
         pc = kb.array("c", DType::f64);
    auto pn = kb.array("n", DType::i8), pa = kb.array("a", DType::i16),
         pb = kb.array("b", DType::i32);
    auto i = kb.dim("i", 0, 0);
    kb.k.body = {st(pf, vr(i), Call::make(MathFn::Floor, {ld(px, vr(i))})),
                 st(pc, vr(i), Call::make(MathFn::Ceil, {ld(px, vr(i))})),
                 st(pn, vr(i), Unary::make(UnaryOp::Neg, ld(pn, vr(i)))),
                 st(pa, vr(i), Call::make(MathFn::Abs, {ld(pa, vr(i))})),
                 st(pb, vr(i), Call::make(MathFn::Abs, {ld(pb, vr(i))}))};
    std::string src = cf::emit(kb.k, cf::level_zero_dialect());
    EXPECT_NE(src.find("static __attribute__((noinline)) char tack_neg_i8"), std::string::npos)
        << src;
    EXPECT_NE(src.find("static __attribute__((noinline)) short tack_abs_i16"), std::string::npos);
    EXPECT_NE(src.find("static __attribute__((noinline)) int tack_abs_i32"), std::string::npos);
    EXPECT_NE(src.find("copysign(floor("), std::string::npos) << src;
    EXPECT_NE(src.find("copysign(ceil("), std::string::npos) << src;
    EXPECT_EQ(cf::emit(kb.k, cf::opencl_dialect()).find("noinline"), std::string::npos);
    TACK_REQUIRE_OPENCL();
    const std::vector<double> x0 = {-0.0, 0.0, -0.5, 0.5, -2.5, 2.5, -kInf, kInf, kNaN};
    const std::vector<int8_t> n0 = {-128, -1, 0, 1, 127, 5, -5, 100, -100};
    const std::vector<int16_t> a0 = {-32768, -1, 0, 1, 32767, 7, -7, 300, -300};
    const std::vector<int32_t> b0 = {INT32_MIN, -1, 0, 1, INT32_MAX, 9, -9, 70000, -70000};
    std::vector<std::vector<double>> floors, ceils;
    std::vector<std::vector<int8_t>> negs;
    std::vector<std::vector<int16_t>> abs16;
    std::vector<std::vector<int32_t>> abs32;
    for (const char* dialect : {"opencl", "level_zero"}) {
        std::vector<double> x = x0, f(x.size()), c(x.size());
        std::vector<int8_t> n = n0;
        std::vector<int16_t> a = a0;
        std::vector<int32_t> b = b0;
        ASSERT_EQ(
            run_opencl(kb.k, {arr(x), arr(f), arr(c), arr(n), arr(a), arr(b)}, x.size(), dialect),
            "");
        floors.push_back(f), ceils.push_back(c), negs.push_back(n), abs16.push_back(a),
            abs32.push_back(b);
    }
    for (std::size_t k = 0; k < x0.size(); ++k) {
        for (const auto* v : {&floors, &ceils}) {
            double want = v == &floors ? std::floor(x0[k]) : std::ceil(x0[k]);
            double got = (*v)[1][k];
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << k;
            } else {
                EXPECT_EQ(got, want) << k;
                EXPECT_EQ(std::signbit(got), std::signbit(want)) << "the sign of zero, input " << k;
            }
        }
    }
    EXPECT_EQ(negs[0], negs[1]);
    EXPECT_EQ(negs[1][0], int8_t(-128)) << "-(-128) wraps in 8 bits";
    EXPECT_EQ(abs16[0], abs16[1]);
    EXPECT_EQ(abs16[1][0], int16_t(-32768));
    EXPECT_EQ(abs32[0], abs32[1]);
    EXPECT_EQ(abs32[1][8], 70000);
}

}  // namespace
}  // namespace tack::cfamily_test
