// Scalar semantics (ir.hpp SEMANTICS) checked against hand-computed values.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "diag/diagnostic.hpp"
#include "ir/eval.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::ir {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Value I(DType t, int64_t v) {
    return Value::of_int(t, static_cast<uint64_t>(v));
}
Value F32(double v) {
    return Value::of_float(DType::f32, v);
}
Value F64(double v) {
    return Value::of_float(DType::f64, v);
}

int64_t bin_s(BinaryOp op, DType t, int64_t a, int64_t b) {
    return eval_binary(op, I(t, a), I(t, b))->as_signed();
}
double bin_f(BinaryOp op, Value a, Value b) {
    return eval_binary(op, a, b)->f;
}

TEST(IrEval, WrappingPerWidth) {
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::i8, 127, 1), -128);
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::u8, 255, 1), 0);
    EXPECT_EQ(bin_s(BinaryOp::Sub, DType::u8, 0, 1), 255);
    EXPECT_EQ(bin_s(BinaryOp::Mul, DType::u16, 65535, 65535), 1);
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::i16, 32767, 1), -32768);
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::i32, INT32_MAX, 1), INT32_MIN);
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::u32, 4294967295LL, 2), 1);
    EXPECT_EQ(bin_s(BinaryOp::Add, DType::i64, INT64_MAX, 1), INT64_MIN);
    EXPECT_EQ(eval_binary(BinaryOp::Mul, I(DType::u64, -1), I(DType::u64, -1))->bits, 1u);
    EXPECT_EQ(eval_unary(UnaryOp::Neg, I(DType::i8, -128)).as_signed(), -128);
    EXPECT_EQ(eval_unary(UnaryOp::BitNot, I(DType::u8, 0)).bits, 255u);
    EXPECT_EQ(eval_unary(UnaryOp::BitNot, I(DType::i16, 0)).as_signed(), -1);
}

TEST(IrEval, FloorDivisionAndModulo) {
    for (DType t : {DType::i8, DType::i16, DType::i32, DType::i64}) {
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, -7, 3), -3);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, -7, 3), 2);
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, 7, -3), -3);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, 7, -3), -2);
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, -7, -3), 2);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, -7, -3), -1);
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, 6, -3), -2);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, 6, -3), 0);
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, 5, 0), 0);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, 5, 0), 0);
    }
    EXPECT_EQ(bin_s(BinaryOp::FloorDiv, DType::i8, -128, -1), -128);
    EXPECT_EQ(bin_s(BinaryOp::Mod, DType::i8, -128, -1), 0);
    EXPECT_EQ(bin_s(BinaryOp::FloorDiv, DType::i32, INT32_MIN, -1), INT32_MIN);
    EXPECT_EQ(bin_s(BinaryOp::FloorDiv, DType::i64, INT64_MIN, -1), INT64_MIN);
    EXPECT_EQ(bin_s(BinaryOp::Mod, DType::i64, INT64_MIN, -1), 0);
    for (DType t : {DType::u8, DType::u16, DType::u32, DType::u64}) {
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, 7, 2), 3);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, 7, 2), 1);
        EXPECT_EQ(bin_s(BinaryOp::FloorDiv, t, 7, 0), 0);
        EXPECT_EQ(bin_s(BinaryOp::Mod, t, 7, 0), 0);
    }
    // u8 250 // 7 is unsigned (35), not -6 // 7.
    EXPECT_EQ(bin_s(BinaryOp::FloorDiv, DType::u8, 250, 7), 35);
    EXPECT_EQ(eval_binary(BinaryOp::FloorDiv, I(DType::u64, -1), I(DType::u64, 2))->bits,
              0x7FFFFFFFFFFFFFFFull);
}

TEST(IrEval, Shifts) {
    EXPECT_EQ(bin_s(BinaryOp::Shr, DType::i8, -8, 1), -4);
    EXPECT_EQ(bin_s(BinaryOp::Shr, DType::u8, 200, 1), 100);
    EXPECT_EQ(bin_s(BinaryOp::Shl, DType::i8, 1, 7), -128);
    EXPECT_EQ(bin_s(BinaryOp::Shl, DType::u8, 3, 7), 128);
    // Count modulo the left width: 33 on i32 shifts by 1, 9 on u8 by 1, -1 on i64 by 63.
    EXPECT_EQ(bin_s(BinaryOp::Shl, DType::i32, 5, 33), 10);
    EXPECT_EQ(eval_binary(BinaryOp::Shl, I(DType::u8, 3), I(DType::i64, 9))->bits, 6u);
    EXPECT_EQ(eval_binary(BinaryOp::Shr, I(DType::i64, INT64_MIN), I(DType::i8, -1))->as_signed(),
              -1);
    EXPECT_EQ(eval_binary(BinaryOp::Shr, I(DType::u64, -1), I(DType::i32, 63))->bits, 1u);
    EXPECT_EQ(eval_binary(BinaryOp::Shr, I(DType::u16, 0x8000), I(DType::u8, 15))->bits, 1u);
    EXPECT_EQ(eval_binary(BinaryOp::Shr, I(DType::i16, -32768), I(DType::u8, 15))->as_signed(), -1);
}

TEST(IrEval, IntegerPower) {
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i8, 3), I(DType::i64, 5))->as_signed(), -13);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::u8, 20), I(DType::i32, 2))->bits, 144u);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i32, 0), I(DType::i32, 0))->bits, 1u);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i64, 2), I(DType::i64, 62))->as_signed(),
              int64_t{1} << 62);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i64, 2), I(DType::i64, 64))->bits, 0u);
    // The odd residues mod 2**64 form a group of exponent 2**62, so 3**(2**64) == 1 and
    // 3**(2**64-1) is the inverse of 3: all 64 exponent bits must be used.
    uint64_t inv3 = eval_binary(BinaryOp::Pow, I(DType::u64, 3), I(DType::u64, -1))->bits;
    EXPECT_EQ(inv3 * 3u, 1u);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i16, -1), I(DType::u8, 255))->as_signed(), -1);
    EXPECT_EQ(eval_binary(BinaryOp::Pow, I(DType::i32, 7), I(DType::i32, 1))->as_signed(), 7);
}

TEST(IrEval, MinMaxCompare) {
    EXPECT_EQ(bin_s(BinaryOp::Min, DType::i8, -1, 1), -1);
    EXPECT_EQ(bin_s(BinaryOp::Min, DType::u8, 255, 1), 1);
    EXPECT_EQ(bin_s(BinaryOp::Max, DType::i64, INT64_MIN, 0), 0);
    EXPECT_EQ(eval_compare(CompareOp::Lt, I(DType::i32, -1), I(DType::i32, 0)).bits, 1u);
    EXPECT_EQ(eval_compare(CompareOp::Lt, I(DType::u32, -1), I(DType::u32, 0)).bits, 0u);
    EXPECT_EQ(eval_compare(CompareOp::Ne, F64(kNaN), F64(kNaN)).bits, 1u);
    EXPECT_EQ(eval_compare(CompareOp::Eq, F64(kNaN), F64(kNaN)).bits, 0u);
    EXPECT_EQ(eval_compare(CompareOp::Ge, F32(kNaN), F32(1)).bits, 0u);
    EXPECT_EQ(eval_compare(CompareOp::Le, F32(-0.0), F32(0.0)).bits, 1u);
    EXPECT_EQ(eval_compare(CompareOp::Eq, F32(0.1), F32(0.1)).type, DType::i32);
    EXPECT_EQ(bin_f(BinaryOp::Min, F64(kNaN), F64(2)), 2.0);
    EXPECT_EQ(bin_f(BinaryOp::Max, F64(3), F64(kNaN)), 3.0);
    EXPECT_TRUE(std::isnan(bin_f(BinaryOp::Max, F64(kNaN), F64(kNaN))));
    EXPECT_EQ(bin_f(BinaryOp::Min, F32(-1), F32(2)), -1.0);
}

TEST(IrEval, Casts) {
    auto c = [](DType to, Value v) { return eval_cast(to, v); };
    EXPECT_EQ(c(DType::i8, F32(300.0)).as_signed(), 127);
    EXPECT_EQ(c(DType::i8, F32(-300.0)).as_signed(), -128);
    EXPECT_EQ(c(DType::i8, F32(kNaN)).as_signed(), 0);
    EXPECT_EQ(c(DType::i32, F32(-2.7)).as_signed(), -2);
    EXPECT_EQ(c(DType::u8, F64(-5.0)).bits, 0u);
    EXPECT_EQ(c(DType::u8, F64(255.9)).bits, 255u);
    EXPECT_EQ(c(DType::u16, F64(kInf)).bits, 65535u);
    EXPECT_EQ(c(DType::i64, F64(1e19)).as_signed(), INT64_MAX);
    EXPECT_EQ(c(DType::i64, F64(-1e19)).as_signed(), INT64_MIN);
    EXPECT_EQ(c(DType::i64, F64(-kInf)).as_signed(), INT64_MIN);
    EXPECT_EQ(c(DType::u64, F64(1e20)).bits, ~uint64_t{0});
    EXPECT_EQ(c(DType::u64, F64(9223372036854775808.0)).bits, uint64_t{1} << 63);
    EXPECT_EQ(c(DType::i32, F64(2147483647.5)).as_signed(), INT32_MAX);
    EXPECT_EQ(c(DType::i32, F64(-2147483648.9)).as_signed(), INT32_MIN);
    // int -> int: destination width, source signedness (B10).
    EXPECT_EQ(c(DType::u64, I(DType::i8, -1)).bits, ~uint64_t{0});
    EXPECT_EQ(c(DType::i64, I(DType::u8, 255)).as_signed(), 255);
    EXPECT_EQ(c(DType::u8, I(DType::i32, -1)).bits, 255u);
    EXPECT_EQ(c(DType::i8, I(DType::i32, 255)).as_signed(), -1);
    EXPECT_EQ(c(DType::i16, I(DType::u32, 70000)).as_signed(), 70000 - 65536);
    // int -> float rounds once to the destination: 2**24 + 1 is not an f32.
    EXPECT_EQ(c(DType::f32, I(DType::i32, 16777217)).f, 16777216.0);
    // 2**53 + 2**29 + 1 rounds up in f32 directly, but would tie to even through double.
    int64_t tricky = (int64_t{1} << 53) + (int64_t{1} << 29) + 1;
    EXPECT_EQ(c(DType::f32, I(DType::i64, tricky)).f, 9007200328482816.0);
    EXPECT_EQ(c(DType::f64, I(DType::u64, -1)).f, 18446744073709551616.0);
    EXPECT_EQ(c(DType::f32, F64(0.1)).f, static_cast<double>(0.1f));
    EXPECT_EQ(c(DType::f64, F32(0.1)).f, static_cast<double>(0.1f));
}

TEST(IrEval, FloatArithmeticInItsOwnPrecision) {
    float sum = 0.1f + 0.2f;
    EXPECT_EQ(bin_f(BinaryOp::Add, F32(0.1), F32(0.2)), static_cast<double>(sum));
    EXPECT_NE(bin_f(BinaryOp::Add, F32(0.1), F32(0.2)),
              static_cast<double>(0.1f) + static_cast<double>(0.2f));
    EXPECT_EQ(bin_f(BinaryOp::Add, F64(0.1), F64(0.2)), 0.30000000000000004);
    EXPECT_EQ(bin_f(BinaryOp::Div, F32(1), F32(3)), static_cast<double>(1.0f / 3.0f));
    EXPECT_TRUE(std::isnan(bin_f(BinaryOp::Mul, F64(kInf), F64(0))));
    EXPECT_EQ(eval_binary(BinaryOp::Pow, F64(2), F64(3)), std::nullopt);
}

TEST(IrEval, PythonFloatFloorDivision) {
    EXPECT_EQ(bin_f(BinaryOp::FloorDiv, F64(0.5), F64(0.1)), 4.0);
    EXPECT_EQ(bin_f(BinaryOp::FloorDiv, F64(1.0), F64(0.1)), 9.0);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F64(0.5), F64(0.1)), 0.09999999999999998);
    EXPECT_EQ(bin_f(BinaryOp::FloorDiv, F64(-1.0), F64(kInf)), -1.0);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F64(-1.0), F64(kInf)), kInf);
    EXPECT_EQ(bin_f(BinaryOp::FloorDiv, F64(-7.0), F64(2.0)), -4.0);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F64(-7.0), F64(2.0)), 1.0);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F64(7.0), F64(-2.0)), -1.0);
    // Same-sign infinite divisor: signed-zero quotient, dividend as remainder.
    double q = bin_f(BinaryOp::FloorDiv, F64(1.0), F64(kInf));
    EXPECT_EQ(q, 0.0);
    EXPECT_FALSE(std::signbit(q));
    EXPECT_EQ(bin_f(BinaryOp::Mod, F64(1.0), F64(kInf)), 1.0);
    // Zero remainder takes the divisor's sign; zero quotient the true quotient's sign.
    EXPECT_TRUE(std::signbit(bin_f(BinaryOp::Mod, F64(4.0), F64(-2.0))));
    EXPECT_TRUE(std::signbit(bin_f(BinaryOp::FloorDiv, F64(-0.0), F64(3.0))));
    EXPECT_TRUE(std::isnan(bin_f(BinaryOp::FloorDiv, F64(kInf), F64(2.0))));
    EXPECT_TRUE(std::isnan(bin_f(BinaryOp::Mod, F64(kNaN), F64(2.0))));
    // f32: computed in float.
    EXPECT_EQ(bin_f(BinaryOp::FloorDiv, F32(7.5), F32(2.0)), 3.0);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F32(-7.5), F32(2.0)), 0.5);
    EXPECT_EQ(bin_f(BinaryOp::Mod, F32(0.5), F32(0.1)), static_cast<double>(std::fmod(0.5f, 0.1f)));
}

TEST(IrEval, LogicalNotTruthiness) {
    EXPECT_EQ(eval_unary(UnaryOp::Not, F64(kNaN)).bits, 0u);  // NaN is true
    EXPECT_EQ(eval_unary(UnaryOp::Not, F64(-0.0)).bits, 1u);
    EXPECT_EQ(eval_unary(UnaryOp::Not, I(DType::u8, 0)).type, DType::i32);
    EXPECT_EQ(eval_logical(LogicalOp::And, I(DType::i8, 2), F32(0.5)).bits, 1u);
    EXPECT_EQ(eval_logical(LogicalOp::Or, I(DType::i8, 0), F32(0)).bits, 0u);
}

TEST(IrEval, ExactMathCalls) {
    EXPECT_EQ(eval_call(MathFn::Sqrt, {F64(2)})->f, std::sqrt(2.0));
    EXPECT_EQ(eval_call(MathFn::Sqrt, {F32(2)})->f, static_cast<double>(std::sqrt(2.0f)));
    EXPECT_EQ(eval_call(MathFn::Abs, {I(DType::i8, -128)})->as_signed(), -128);
    EXPECT_EQ(eval_call(MathFn::Abs, {I(DType::i32, -5)})->as_signed(), 5);
    EXPECT_EQ(eval_call(MathFn::Floor, {F64(-0.5)})->f, -1.0);
    EXPECT_EQ(eval_call(MathFn::Copysign, {F32(2), F32(-0.0)})->f, -2.0);
    EXPECT_EQ(eval_call(MathFn::Sin, {F64(1)}), std::nullopt);
    EXPECT_EQ(eval_call(MathFn::Round, {F64(0.5)}), std::nullopt);
}

TEST(IrEval, HostExpressionEvaluation) {
    using namespace test;
    auto x = param_array("x", DType::f32, 2, 0);
    auto n = var("n", DType::i64, 1);
    auto var_value = [&](const Var& v) {
        EXPECT_EQ(&v, n.get());
        return Value::of_i64(-7);
    };
    auto dim_value = [&](const Buffer& b, int d) -> int64_t { return d == 0 ? 10 : 3; };
    // (n // 3) * dim(x,1) + dim(x,0) == -3 * 3 + 10 == 1
    ExprPtr e =
        bin(BinaryOp::Add,
            bin(BinaryOp::Mul, bin(BinaryOp::FloorDiv, vref(n), i64c(3)), ArrayDim::make(x, 1)),
            ArrayDim::make(x, 0));
    EXPECT_EQ(eval_expr(e, var_value, dim_value).as_signed(), 1);
    // The unselected arm (a load the host cannot run) is never evaluated.
    ExprPtr guarded =
        Select::make(i32c(1), i64c(4), Cast::make(DType::i64, Load::make(x, i64c(0))));
    EXPECT_EQ(eval_expr(guarded, var_value, dim_value).as_signed(), 4);
    ExprPtr lazy = Logical::make(LogicalOp::Or, i32c(1), Load::make(x, i64c(0)));
    EXPECT_EQ(eval_expr(lazy, var_value, dim_value).bits, 1u);
    EXPECT_THROW(eval_expr(Load::make(x, i64c(0)), var_value, dim_value), diag::InternalError);
}

}  // namespace
}  // namespace tack::ir
