// Integer semantics against hand-written C++ references: wrapping + - *, floor division and
// modulo (by zero -> 0, MIN // -1 -> MIN), shifts with counts taken modulo the width, pow,
// bit operations, min/max, abs, negation, and every int->int cast.

#include <limits>
#include <random>

#include "harness.hpp"

namespace tack::test {
namespace {

template <class T>
constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, int8_t>) return i8;
    if constexpr (std::is_same_v<T, uint8_t>) return u8;
    if constexpr (std::is_same_v<T, int16_t>) return i16;
    if constexpr (std::is_same_v<T, uint16_t>) return u16;
    if constexpr (std::is_same_v<T, int32_t>) return i32;
    if constexpr (std::is_same_v<T, uint32_t>) return u32;
    if constexpr (std::is_same_v<T, int64_t>) return i64;
    if constexpr (std::is_same_v<T, uint64_t>) return u64;
    if constexpr (std::is_same_v<T, float>) return f32;
    if constexpr (std::is_same_v<T, double>) return f64;
}

// ---- references (computed in 64-bit unsigned arithmetic, then reduced) ------------------------

template <class T>
T wrap(uint64_t v) {
    return static_cast<T>(v);  // modular since C++20
}

template <class T>
T ref_floordiv(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == -1) return a;
        int64_t q = int64_t{a} / b, r = int64_t{a} % b;
        if (r != 0 && ((r < 0) != (b < 0))) --q;
        return static_cast<T>(q);
    } else {
        return static_cast<T>(a / b);
    }
}

template <class T>
T ref_mod(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == -1) return 0;
        int64_t r = int64_t{a} % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return static_cast<T>(r);
    } else {
        return static_cast<T>(a % b);
    }
}

template <class T>
T ref_shl(T a, int64_t count) {
    unsigned n = static_cast<uint64_t>(count) % (sizeof(T) * 8);
    return wrap<T>(static_cast<uint64_t>(a) << n);
}

template <class T>
T ref_shr(T a, int64_t count) {
    unsigned n = static_cast<uint64_t>(count) % (sizeof(T) * 8);
    if constexpr (std::is_signed_v<T>) {
        return static_cast<T>(int64_t{a} >> n);  // arithmetic in C++20
    } else {
        return static_cast<T>(a >> n);
    }
}

template <class T>
T ref_pow(T base, uint64_t e) {
    uint64_t r = 1, b = static_cast<uint64_t>(base);
    for (uint64_t i = 0; i < e; ++i)
        r *= b;  // independent of square-and-multiply
    return wrap<T>(r);
}

template <class T>
std::vector<T> interesting_values() {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {0,        1,
                        2,        3,
                        7,        100,
                        L::max(), static_cast<T>(L::max() - 1),
                        L::min(), static_cast<T>(L::min() + 1)};
    if constexpr (std::is_signed_v<T>) {
        for (T x : {-1, -2, -3, -7, -100})
            v.push_back(x);
    }
    std::mt19937_64 rng(42);
    for (int i = 0; i < 6; ++i)
        v.push_back(wrap<T>(rng()));
    return v;
}

// ---- one kernel per type: out_k[i] = a[i] OP_k b[i] ------------------------------------------

const BinaryOp kOps[] = {BinaryOp::Add, BinaryOp::Sub,    BinaryOp::Mul,   BinaryOp::FloorDiv,
                         BinaryOp::Mod, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                         BinaryOp::Min, BinaryOp::Max};

template <class T>
T reference(BinaryOp op, T a, T b) {
    uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    switch (op) {
        case BinaryOp::Add:
            return wrap<T>(x + y);
        case BinaryOp::Sub:
            return wrap<T>(x - y);
        case BinaryOp::Mul:
            return wrap<T>(x * y);
        case BinaryOp::FloorDiv:
            return ref_floordiv(a, b);
        case BinaryOp::Mod:
            return ref_mod(a, b);
        case BinaryOp::BitAnd:
            return wrap<T>(x & y);
        case BinaryOp::BitOr:
            return wrap<T>(x | y);
        case BinaryOp::BitXor:
            return wrap<T>(x ^ y);
        case BinaryOp::Min:
            return a < b ? a : b;
        case BinaryOp::Max:
            return a < b ? b : a;
        default:
            ADD_FAILURE();
            return 0;
    }
}

template <class T>
void check_binary_ops() {
    constexpr DType t = dtype_of<T>();
    KernelBuilder kb(std::string("binops_") + name(t));
    auto a = kb.array_param("a", t);
    auto b = kb.array_param("b", t);
    std::vector<BufferPtr> outs;
    for (BinaryOp op : kOps)
        outs.push_back(kb.array_param("out_" + to_string(op), t));
    auto i = kb.dim(0, 0, 1);
    for (size_t k = 0; k < outs.size(); ++k) {
        kb.k.body.push_back(store(outs[k], use(i), bin(kOps[k], load(a, use(i)), load(b, use(i)))));
    }
    auto c = compile(kb.k);

    std::vector<T> values = interesting_values<T>(), xs, ys;
    for (T x : values) {
        for (T y : values) {
            xs.push_back(x);
            ys.push_back(y);
        }
    }
    size_t n = xs.size();
    std::vector<std::vector<T>> results(outs.size(), std::vector<T>(n));
    std::vector<uint64_t> slots = {slot(xs.data()), slot(ys.data())};
    for (auto& r : results)
        slots.push_back(slot(r.data()));
    c.run(slots, 0, static_cast<int64_t>(n));
    for (size_t k = 0; k < outs.size(); ++k) {
        for (size_t j = 0; j < n; ++j) {
            ASSERT_EQ(results[k][j], reference(kOps[k], xs[j], ys[j]))
                << name(t) << " " << to_string(kOps[k]) << " a=" << +xs[j] << " b=" << +ys[j];
        }
    }
}

TEST(LlvmInteger, BinaryOpsAllTypes) {
    check_binary_ops<int8_t>();
    check_binary_ops<uint8_t>();
    check_binary_ops<int16_t>();
    check_binary_ops<uint16_t>();
    check_binary_ops<int32_t>();
    check_binary_ops<uint32_t>();
    check_binary_ops<int64_t>();
    check_binary_ops<uint64_t>();
}

TEST(LlvmInteger, HandComputedFloorDivMod) {
    EXPECT_EQ(ref_floordiv<int32_t>(-7, 3), -3);  // the references themselves (CONTRACT B11)
    EXPECT_EQ(ref_mod<int32_t>(-7, 3), 2);
    EXPECT_EQ(ref_floordiv<int32_t>(7, -3), -3);
    EXPECT_EQ(ref_mod<int32_t>(7, -3), -2);
    EXPECT_EQ(ref_floordiv<int8_t>(-128, -1), -128);
    EXPECT_EQ(ref_mod<int8_t>(-128, -1), 0);
    EXPECT_EQ(ref_pow<int8_t>(3, 5), -13);
    EXPECT_EQ(ref_pow<uint8_t>(20, 2), 144);
}

// ---- shifts: left type T, count type C --------------------------------------------------------

template <class T, class C>
void check_shifts(std::vector<C> counts) {
    constexpr DType t = dtype_of<T>(), ct = dtype_of<C>();
    KernelBuilder kb(std::string("shift_") + name(t) + "_" + name(ct));
    auto a = kb.array_param("a", t);
    auto s = kb.array_param("s", ct);
    auto shl = kb.array_param("shl", t);
    auto shr = kb.array_param("shr", t);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(shl, use(i), bin(BinaryOp::Shl, load(a, use(i)), load(s, use(i)))));
    kb.k.body.push_back(store(shr, use(i), bin(BinaryOp::Shr, load(a, use(i)), load(s, use(i)))));
    auto c = compile(kb.k);
    std::vector<T> xs;
    std::vector<C> cs;
    for (T x : interesting_values<T>()) {
        for (C n : counts) {
            xs.push_back(x);
            cs.push_back(n);
        }
    }
    std::vector<T> l(xs.size()), r(xs.size());
    c.run({slot(xs.data()), slot(cs.data()), slot(l.data()), slot(r.data())}, 0, xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
        int64_t count = static_cast<int64_t>(cs[j]);
        ASSERT_EQ(l[j], ref_shl(xs[j], count)) << name(t) << " << " << +cs[j] << " a=" << +xs[j];
        ASSERT_EQ(r[j], ref_shr(xs[j], count)) << name(t) << " >> " << +cs[j] << " a=" << +xs[j];
    }
}

TEST(LlvmInteger, ShiftCountsModuloWidth) {
    std::vector<int64_t> big = {0,
                                1,
                                7,
                                8,
                                9,
                                15,
                                16,
                                31,
                                32,
                                33,
                                63,
                                64,
                                65,
                                (int64_t{1} << 40) + 3,
                                -1,
                                -8,
                                std::numeric_limits<int64_t>::min()};
    check_shifts<int8_t, int64_t>(big);
    check_shifts<uint8_t, int64_t>(big);
    check_shifts<int16_t, int64_t>(big);
    check_shifts<int32_t, int64_t>(big);
    check_shifts<uint32_t, int64_t>(big);
    check_shifts<int64_t, int64_t>(big);
    check_shifts<uint64_t, int64_t>(big);
    check_shifts<int64_t, int8_t>({0, 1, 63, 64, 127, -1, -128});
    check_shifts<uint64_t, uint8_t>({0, 1, 63, 64, 200, 255});
    check_shifts<int8_t, uint32_t>({0, 7, 8, 4000000000u});
    // Hand-computed (CONTRACT B9): i8 -8 >> 1 == -4, u8 200 >> 1 == 100.
    EXPECT_EQ(ref_shr<int8_t>(-8, 1), -4);
    EXPECT_EQ(ref_shr<uint8_t>(200, 1), 100);
}

// ---- pow ----------------------------------------------------------------------------------------

template <class T, class E>
void check_pow(std::vector<T> bases, std::vector<E> exps) {
    constexpr DType t = dtype_of<T>(), et = dtype_of<E>();
    KernelBuilder kb(std::string("pow_") + name(t) + "_" + name(et));
    auto a = kb.array_param("a", t);
    auto e = kb.array_param("e", et);
    auto out = kb.array_param("out", t);
    auto sq = kb.array_param("sq", t);  // constant exponent path
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(out, use(i), bin(BinaryOp::Pow, load(a, use(i)), load(e, use(i)))));
    kb.k.body.push_back(store(sq, use(i), bin(BinaryOp::Pow, load(a, use(i)), cint(et, 13))));
    auto c = compile(kb.k);
    std::vector<T> xs;
    std::vector<E> es;
    for (T x : bases) {
        for (E n : exps) {
            xs.push_back(x);
            es.push_back(n);
        }
    }
    std::vector<T> out_v(xs.size()), sq_v(xs.size());
    c.run({slot(xs.data()), slot(es.data()), slot(out_v.data()), slot(sq_v.data())}, 0, xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
        ASSERT_EQ(out_v[j], ref_pow(xs[j], static_cast<uint64_t>(es[j])))
            << name(t) << " " << +xs[j] << " ** " << +es[j];
        ASSERT_EQ(sq_v[j], ref_pow(xs[j], 13)) << name(t) << " " << +xs[j] << " ** 13";
    }
}

TEST(LlvmInteger, PowSquareAndMultiply) {
    check_pow<int8_t, int32_t>({0, 1, -1, 2, 3, -3, 127, -128}, {0, 1, 2, 5, 7, 8, 100});
    check_pow<uint8_t, uint64_t>({0, 1, 2, 20, 255}, {0, 1, 2, 3, 9, 1000});
    check_pow<int32_t, int64_t>({0, 1, -1, 3, -7, 65537}, {0, 1, 2, 31, 32, 1001});
    check_pow<uint64_t, uint16_t>({0, 1, 3, 0xDEADBEEFull}, {0, 1, 63, 64, 65535});
    check_pow<int64_t, uint8_t>({2, -2, 3}, {0, 62, 63, 64, 255});
}

TEST(LlvmInteger, PowHugeExponentStaysBounded) {
    // A negative dynamic exponent uses its own type's bit pattern: at most 64 steps, no hang.
    KernelBuilder kb("pow_negative");
    auto a = kb.array_param("a", i32);
    auto e = kb.array_param("e", i64);
    auto out = kb.array_param("out", i32);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(out, use(i), bin(BinaryOp::Pow, load(a, use(i)), load(e, use(i)))));
    auto c = compile(kb.k);
    std::vector<int32_t> xs = {1, -1, 3, 2, 0};
    std::vector<int64_t> es = {-1, -1, -1, -1, std::numeric_limits<int64_t>::min()};
    std::vector<int32_t> got(xs.size());
    c.run({slot(xs.data()), slot(es.data()), slot(got.data())}, 0, xs.size());
    EXPECT_EQ(got[0], 1);
    EXPECT_EQ(got[1], -1);  // odd exponent 2^64-1
    // 3 has order 2^30 modulo 2^32, so 3^(2^64-1) * 3 = 3^(2^64) = 1 (mod 2^32).
    EXPECT_EQ(static_cast<uint32_t>(got[2]) * 3u, 1u);
    EXPECT_EQ(got[3], 0);
    EXPECT_EQ(got[4], 0);
}

// ---- unary: neg, bitnot, not, abs ---------------------------------------------------------------

template <class T>
void check_unary() {
    constexpr DType t = dtype_of<T>();
    KernelBuilder kb(std::string("unary_") + name(t));
    auto a = kb.array_param("a", t);
    auto neg = kb.array_param("neg", t);
    auto inv = kb.array_param("inv", t);
    auto abs = kb.array_param("abs", t);
    auto lnot = kb.array_param("lnot", i32);
    auto i = kb.dim(0, 0, 1);
    auto x = load(a, use(i));
    kb.k.body.push_back(store(neg, use(i), Unary::make(UnaryOp::Neg, x)));
    kb.k.body.push_back(store(inv, use(i), Unary::make(UnaryOp::BitNot, x)));
    kb.k.body.push_back(store(abs, use(i), Call::make(MathFn::Abs, {x})));
    kb.k.body.push_back(store(lnot, use(i), Unary::make(UnaryOp::Not, x)));
    auto c = compile(kb.k);
    std::vector<T> xs = interesting_values<T>();
    size_t n = xs.size();
    std::vector<T> g_neg(n), g_inv(n), g_abs(n);
    std::vector<int32_t> g_not(n);
    c.run({slot(xs.data()), slot(g_neg.data()), slot(g_inv.data()), slot(g_abs.data()),
           slot(g_not.data())},
          0, n);
    for (size_t j = 0; j < n; ++j) {
        uint64_t u = static_cast<uint64_t>(xs[j]);
        ASSERT_EQ(g_neg[j], wrap<T>(0 - u)) << +xs[j];
        ASSERT_EQ(g_inv[j], wrap<T>(~u)) << +xs[j];
        T want_abs = xs[j];
        if constexpr (std::is_signed_v<T>) want_abs = xs[j] < 0 ? wrap<T>(0 - u) : xs[j];
        ASSERT_EQ(g_abs[j], want_abs) << +xs[j];
        ASSERT_EQ(g_not[j], xs[j] == 0 ? 1 : 0) << +xs[j];
    }
}

TEST(LlvmInteger, UnaryOps) {
    check_unary<int8_t>();
    check_unary<uint8_t>();
    check_unary<int16_t>();
    check_unary<uint32_t>();
    check_unary<int64_t>();
    check_unary<uint64_t>();
}

// ---- int -> int casts: narrowing reduces, widening follows the source's signedness ------------

template <class From, class To>
void check_int_cast() {
    constexpr DType ft = dtype_of<From>(), tt = dtype_of<To>();
    KernelBuilder kb(std::string("cast_") + name(ft) + "_" + name(tt));
    auto a = kb.array_param("a", ft);
    auto out = kb.array_param("out", tt);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(store(out, use(i), Cast::make(tt, load(a, use(i)))));
    auto c = compile(kb.k);
    std::vector<From> xs = interesting_values<From>();
    std::vector<To> got(xs.size());
    c.run({slot(xs.data()), slot(got.data())}, 0, xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
        // Widening by the source's signedness is what C++ conversion does; narrowing is modular.
        ASSERT_EQ(got[j], static_cast<To>(xs[j])) << name(ft) << "->" << name(tt) << " " << +xs[j];
    }
}

template <class From>
void check_int_casts_from() {
    check_int_cast<From, int8_t>();
    check_int_cast<From, uint8_t>();
    check_int_cast<From, int16_t>();
    check_int_cast<From, uint16_t>();
    check_int_cast<From, int32_t>();
    check_int_cast<From, uint32_t>();
    check_int_cast<From, int64_t>();
    check_int_cast<From, uint64_t>();
}

TEST(LlvmInteger, IntToIntCasts) {
    check_int_casts_from<int8_t>();
    check_int_casts_from<uint8_t>();
    check_int_casts_from<int32_t>();
    check_int_casts_from<uint64_t>();
    // Hand-computed (CONTRACT B10).
    EXPECT_EQ(static_cast<uint64_t>(int8_t{-1}), 18446744073709551615ull);
    EXPECT_EQ(static_cast<int64_t>(uint8_t{255}), 255);
}

}  // namespace
}  // namespace tack::test
