// Integer semantics of generated OpenCL C, bit-exact against hand-written C++ references
// (ir.hpp SEMANTICS; CONTRACT B9-B13, B16; DECISIONS: x // 0 == x % 0 == 0, MIN // -1 == MIN).
#include <functional>
#include <limits>
#include <type_traits>

#include "harness.hpp"

namespace tack::cfamily_test {
namespace {

template <class T>
constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, int8_t>) return DType::i8;
    if constexpr (std::is_same_v<T, uint8_t>) return DType::u8;
    if constexpr (std::is_same_v<T, int16_t>) return DType::i16;
    if constexpr (std::is_same_v<T, uint16_t>) return DType::u16;
    if constexpr (std::is_same_v<T, int32_t>) return DType::i32;
    if constexpr (std::is_same_v<T, uint32_t>) return DType::u32;
    if constexpr (std::is_same_v<T, int64_t>) return DType::i64;
    if constexpr (std::is_same_v<T, uint64_t>) return DType::u64;
    if constexpr (std::is_same_v<T, float>) return DType::f32;
    return DType::f64;
}

/// Interesting values of T: small, signs, extremes, and a few arbitrary patterns.
template <class T>
std::vector<T> samples() {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {T(0),
                        T(1),
                        T(2),
                        T(3),
                        T(7),
                        T(100),
                        L::max(),
                        T(L::max() - 1),
                        L::min(),
                        T(L::min() + 1),
                        T(0x5A5A5A5A5A5A5A5Aull),
                        T(0x123456789ull)};
    for (int64_t s : {-1, -2, -3, -7, -100})
        v.push_back(static_cast<T>(s));
    return v;
}

template <class T, class R>
struct OpCase {
    BinaryOp op;
    std::function<T(T, R)> reference;
};

/// out_k[i] = a[i] op_k b[i] over all pairs of samples and rhs values, one kernel for all ops
/// (each PoCL build costs about a second).
template <class T, class R>
void check_binary(std::vector<OpCase<T, R>> cases, std::vector<R> rhs_values) {
    TACK_REQUIRE_OPENCL();
    std::vector<T> a;
    std::vector<R> b;
    for (T x : samples<T>())
        for (R y : rhs_values) {
            a.push_back(x);
            b.push_back(y);
        }
    KernelBuilder kb("binary");
    auto pa = kb.array("a", dtype_of<T>());
    auto pb = kb.array("b", dtype_of<R>());
    auto i = kb.dim("i", 0, 0);
    std::vector<std::vector<T>> outs(cases.size(), std::vector<T>(a.size(), T(0)));
    std::vector<HostArg> args = {arr(a), arr(b)};
    for (size_t c = 0; c < cases.size(); ++c) {
        auto po = kb.array("out" + std::to_string(c), dtype_of<T>());
        kb.k.body.push_back(st(po, vr(i), bin(cases[c].op, ld(pa, vr(i)), ld(pb, vr(i)))));
        args.push_back(arr(outs[c]));
    }
    ASSERT_EQ(run_opencl(kb.k, args, a.size()), "");
    for (size_t c = 0; c < cases.size(); ++c) {
        std::vector<T> want;
        for (size_t j = 0; j < a.size(); ++j)
            want.push_back(cases[c].reference(a[j], b[j]));
        EXPECT_TRUE(same_bits(outs[c], want))
            << "op " << to_string(cases[c].op) << " on " << name(dtype_of<T>());
    }
}

// References, written from the definitions with wide or unsigned arithmetic.
template <class T>
using U64 = uint64_t;

template <class T>
T wrap(uint64_t v) {
    return static_cast<T>(v);  // C++20: conversion to a narrower integer is modulo 2^N
}

template <class T>
T ref_floordiv(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return wrap<T>(0 - static_cast<uint64_t>(a));
        // floor of the exact quotient, computed in 128 bits
        __int128 q = static_cast<__int128>(a) / b;
        if (static_cast<__int128>(q) * b != a && ((a < 0) != (b < 0))) --q;
        return static_cast<T>(q);
    }
    return a / b;
}
template <class T>
T ref_mod(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;
        return static_cast<T>(static_cast<__int128>(a) -
                              static_cast<__int128>(ref_floordiv(a, b)) * b);
    }
    return a % b;
}

template <class T>
void check_arithmetic() {
    check_binary<T, T>(
        {
            {BinaryOp::Add, [](T a, T b) { return wrap<T>(uint64_t(a) + uint64_t(b)); }},
            {BinaryOp::Sub, [](T a, T b) { return wrap<T>(uint64_t(a) - uint64_t(b)); }},
            {BinaryOp::Mul, [](T a, T b) { return wrap<T>(uint64_t(a) * uint64_t(b)); }},
            {BinaryOp::FloorDiv, ref_floordiv<T>},
            {BinaryOp::Mod, ref_mod<T>},
            {BinaryOp::Min, [](T a, T b) { return a < b ? a : b; }},
            {BinaryOp::Max, [](T a, T b) { return a > b ? a : b; }},
            {BinaryOp::BitAnd, [](T a, T b) { return T(a & b); }},
            {BinaryOp::BitOr, [](T a, T b) { return T(a | b); }},
            {BinaryOp::BitXor, [](T a, T b) { return T(a ^ b); }},
        },
        samples<T>());
}

TEST(CFamilyInteger, ArithmeticI8) {
    check_arithmetic<int8_t>();
}
TEST(CFamilyInteger, ArithmeticU8) {
    check_arithmetic<uint8_t>();
}
TEST(CFamilyInteger, ArithmeticI16) {
    check_arithmetic<int16_t>();
}
TEST(CFamilyInteger, ArithmeticU16) {
    check_arithmetic<uint16_t>();
}
TEST(CFamilyInteger, ArithmeticI32) {
    check_arithmetic<int32_t>();
}
TEST(CFamilyInteger, ArithmeticU32) {
    check_arithmetic<uint32_t>();
}
TEST(CFamilyInteger, ArithmeticI64) {
    check_arithmetic<int64_t>();
}
TEST(CFamilyInteger, ArithmeticU64) {
    check_arithmetic<uint64_t>();
}

// The contract's own examples (B9, B11), as hand-computed constants.
TEST(CFamilyInteger, ContractExamples) {
    EXPECT_EQ(ref_floordiv<int32_t>(-7, 3), -3);
    EXPECT_EQ(ref_mod<int32_t>(-7, 3), 2);
    EXPECT_EQ(ref_floordiv<int32_t>(7, -3), -3);
    EXPECT_EQ(ref_mod<int32_t>(7, -3), -2);
    TACK_REQUIRE_OPENCL();
    // One kernel computing the examples on the device: i8 127+1, u16 65535*65535, i8 -8>>1,
    // u8 200>>1, i32 -7//3, -7%3, 7//-3, 7%-3, i32 MIN//-1, MIN%-1, 5//0, 5%0.
    KernelBuilder kb("examples");
    auto out = kb.array("out", DType::i64);
    auto i = kb.dim("i", 0, 0);
    auto c = [](DType t, int64_t v) { return ic(t, static_cast<uint64_t>(v)); };
    auto as64 = [](ExprPtr e) { return Cast::make(DType::i64, std::move(e)); };
    std::vector<ExprPtr> values = {
        bin(BinaryOp::Add, c(DType::i8, 127), c(DType::i8, 1)),
        bin(BinaryOp::Mul, c(DType::u16, 65535), c(DType::u16, 65535)),
        bin(BinaryOp::Shr, c(DType::i8, -8), c(DType::i32, 1)),
        bin(BinaryOp::Shr, c(DType::u8, 200), c(DType::i32, 1)),
        bin(BinaryOp::FloorDiv, c(DType::i32, -7), c(DType::i32, 3)),
        bin(BinaryOp::Mod, c(DType::i32, -7), c(DType::i32, 3)),
        bin(BinaryOp::FloorDiv, c(DType::i32, 7), c(DType::i32, -3)),
        bin(BinaryOp::Mod, c(DType::i32, 7), c(DType::i32, -3)),
        bin(BinaryOp::FloorDiv, c(DType::i32, INT32_MIN), c(DType::i32, -1)),
        bin(BinaryOp::Mod, c(DType::i32, INT32_MIN), c(DType::i32, -1)),
        bin(BinaryOp::FloorDiv, c(DType::i32, 5), c(DType::i32, 0)),
        bin(BinaryOp::Mod, c(DType::i32, 5), c(DType::i32, 0)),
        Call::make(MathFn::Abs, {c(DType::i8, -128)}),
        bin(BinaryOp::Pow, c(DType::i8, 3), c(DType::i32, 5)),
        bin(BinaryOp::Pow, c(DType::u8, 20), c(DType::i32, 2)),
        bin(BinaryOp::Pow, c(DType::i32, 0), c(DType::i32, 0)),
        Unary::make(UnaryOp::Neg, c(DType::i8, -128)),
        Cast::make(DType::u64, c(DType::i8, -1)),
        Cast::make(DType::i8, c(DType::i32, 255)),
    };
    std::vector<int64_t> want = {-128, 1, -4,   100, -3,  2, -3,   -2, INT32_MIN, 0,
                                 0,    0, -128, -13, 144, 1, -128, -1, -1};
    Block body;
    for (size_t j = 0; j < values.size(); ++j)
        body.push_back(st(out, i64c(static_cast<int64_t>(j)), as64(values[j])));
    kb.k.body = {If::make(Compare::make(CompareOp::Eq, vr(i), i64c(0)), body, {})};
    std::vector<int64_t> got(values.size(), 99);
    ASSERT_EQ(run_opencl(kb.k, {arr(got)}, 1), "");
    EXPECT_TRUE(same_bits(got, want));
}

template <class T>
T ref_shl(T a, int64_t c) {
    int n = sizeof(T) * 8;
    return wrap<T>(uint64_t(a) << (uint64_t(c) & uint64_t(n - 1)));
}
template <class T>
T ref_shr(T a, int64_t c) {
    int n = sizeof(T) * 8;
    return static_cast<T>(a >> (uint64_t(c) & uint64_t(n - 1)));  // arithmetic for signed (C++20)
}

template <class T>
void check_shifts() {
    std::vector<int32_t> counts = {0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, -1, -8, 1000};
    check_binary<T, int32_t>({{BinaryOp::Shl, [](T a, int32_t c) { return ref_shl(a, c); }},
                              {BinaryOp::Shr, [](T a, int32_t c) { return ref_shr(a, c); }}},
                             counts);
    std::vector<int64_t> wide = {2, 70, -3, INT64_MIN, INT64_MAX};
    check_binary<T, int64_t>({{BinaryOp::Shl, [](T a, int64_t c) { return ref_shl(a, c); }},
                              {BinaryOp::Shr, [](T a, int64_t c) { return ref_shr(a, c); }}},
                             wide);
}

TEST(CFamilyInteger, ShiftsI8) {
    check_shifts<int8_t>();
}
TEST(CFamilyInteger, ShiftsU16) {
    check_shifts<uint16_t>();
}
TEST(CFamilyInteger, ShiftsI32) {
    check_shifts<int32_t>();
}
TEST(CFamilyInteger, ShiftsU32) {
    check_shifts<uint32_t>();
}
TEST(CFamilyInteger, ShiftsI64) {
    check_shifts<int64_t>();
}
TEST(CFamilyInteger, ShiftsU64) {
    check_shifts<uint64_t>();
}

/// Exact power modulo 2^N by repeated squaring over the exponent's bits (its own width).
template <class T, class E>
T ref_pow(T a, E e) {
    using UE = std::make_unsigned_t<E>;
    uint64_t bits = static_cast<UE>(e);
    uint64_t base = static_cast<uint64_t>(a), r = 1;
    for (; bits; bits >>= 1) {
        if (bits & 1) r *= base;
        base *= base;
    }
    return wrap<T>(r);
}

template <class T>
void check_pow() {
    std::vector<int32_t> e32 = {0, 1, 2, 3, 5, 10, 31, 63, 64, 1000000007, -1, -2};
    check_binary<T, int32_t>({{BinaryOp::Pow, ref_pow<T, int32_t>}}, e32);
    std::vector<uint64_t> e64 = {0, 7, UINT64_MAX, 1ull << 63, 12345678901234567ull};
    check_binary<T, uint64_t>({{BinaryOp::Pow, ref_pow<T, uint64_t>}}, e64);
}

TEST(CFamilyInteger, PowI8) {
    check_pow<int8_t>();
}
TEST(CFamilyInteger, PowU8) {
    check_pow<uint8_t>();
}
TEST(CFamilyInteger, PowI16) {
    check_pow<int16_t>();
}

TEST(CFamilyInteger, PowNarrowExponent) {
    std::vector<int8_t> e8 = {0, 3, -1, -128, 127};
    check_binary<int64_t, int8_t>({{BinaryOp::Pow, ref_pow<int64_t, int8_t>}}, e8);
    check_binary<uint16_t, int8_t>({{BinaryOp::Pow, ref_pow<uint16_t, int8_t>}}, e8);
}
TEST(CFamilyInteger, PowI32) {
    check_pow<int32_t>();
}
TEST(CFamilyInteger, PowU32) {
    check_pow<uint32_t>();
}
TEST(CFamilyInteger, PowI64) {
    check_pow<int64_t>();
}
TEST(CFamilyInteger, PowU64) {
    check_pow<uint64_t>();
}

/// Unary ops and int->int casts: out[i] = op(a[i]).
template <class T, class To>
void check_unary_and_casts() {
    TACK_REQUIRE_OPENCL();
    std::vector<T> a = samples<T>();
    size_t n = a.size();
    std::vector<T> neg(n), inv(n), abs_(n);
    std::vector<To> cast(n);
    std::vector<int32_t> notv(n);
    KernelBuilder kb("unary");
    auto pa = kb.array("a", dtype_of<T>());
    auto pn = kb.array("neg", dtype_of<T>());
    auto pi = kb.array("inv", dtype_of<T>());
    auto pb = kb.array("abs", dtype_of<T>());
    auto pc = kb.array("cast", dtype_of<To>());
    auto pt = kb.array("not", DType::i32);
    auto i = kb.dim("i", 0, 0);
    auto x = ld(pa, vr(i));
    kb.k.body = {
        st(pn, vr(i), Unary::make(UnaryOp::Neg, x)), st(pi, vr(i), Unary::make(UnaryOp::BitNot, x)),
        st(pb, vr(i), Call::make(MathFn::Abs, {x})), st(pc, vr(i), Cast::make(dtype_of<To>(), x)),
        st(pt, vr(i), Unary::make(UnaryOp::Not, x))};
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(neg), arr(inv), arr(abs_), arr(cast), arr(notv)}, n),
              "");
    std::vector<T> wneg(n), winv(n), wabs(n);
    std::vector<To> wcast(n);
    std::vector<int32_t> wnot(n);
    for (size_t j = 0; j < n; ++j) {
        wneg[j] = wrap<T>(0 - uint64_t(a[j]));
        winv[j] = wrap<T>(~uint64_t(a[j]));
        wabs[j] = std::is_signed_v<T> && a[j] < 0 ? wneg[j] : a[j];
        wcast[j] = static_cast<To>(a[j]);  // C++20: modulo 2^N, widening by the source's sign
        wnot[j] = a[j] == 0;
    }
    EXPECT_TRUE(same_bits(neg, wneg));
    EXPECT_TRUE(same_bits(inv, winv));
    EXPECT_TRUE(same_bits(abs_, wabs));
    EXPECT_TRUE(same_bits(cast, wcast));
    EXPECT_TRUE(same_bits(notv, wnot));
}

TEST(CFamilyInteger, UnaryI8ToU64) {
    check_unary_and_casts<int8_t, uint64_t>();
}
TEST(CFamilyInteger, UnaryU8ToI64) {
    check_unary_and_casts<uint8_t, int64_t>();
}
TEST(CFamilyInteger, UnaryI16ToU8) {
    check_unary_and_casts<int16_t, uint8_t>();
}
TEST(CFamilyInteger, UnaryI32ToI8) {
    check_unary_and_casts<int32_t, int8_t>();
}
TEST(CFamilyInteger, UnaryU32ToI16) {
    check_unary_and_casts<uint32_t, int16_t>();
}
TEST(CFamilyInteger, UnaryI64ToU32) {
    check_unary_and_casts<int64_t, uint32_t>();
}
TEST(CFamilyInteger, UnaryU64ToI32) {
    check_unary_and_casts<uint64_t, int32_t>();
}

}  // namespace
}  // namespace tack::cfamily_test
