// constant_fold against hand-computed values of the IR semantics.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using namespace tack::ir::test;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Folds `e` as the value of an assignment in a one-dimensional kernel; returns the new value.
ExprPtr fold(const ExprPtr& e) {
    OneDim d;
    auto v = var("v", e->type, 1);
    d.k.locals = {v};
    d.k.body = {Assign::make(v, e)};
    Kernel out = constant_fold(d.k);
    return out.body.at(0)->as<Assign>()->value;
}

int64_t folded_int(const ExprPtr& e) {
    ExprPtr f = fold(e);
    auto* i = f->as<IntImm>();
    EXPECT_NE(i, nullptr) << print(f);
    EXPECT_EQ(f->type, e->type);
    return i ? i->as_signed() : 0;
}

double folded_float(const ExprPtr& e) {
    ExprPtr f = fold(e);
    auto* x = f->as<FloatImm>();
    EXPECT_NE(x, nullptr) << print(f);
    return x ? x->value : kNaN;
}

int64_t ib(BinaryOp op, DType t, int64_t a, int64_t b) {
    return folded_int(bin(op, ci(t, a), ci(t, b)));
}

TEST(ConstantFold, WrapsAtEveryWidth) {
    EXPECT_EQ(ib(BinaryOp::Add, DType::i8, 127, 1), -128);
    EXPECT_EQ(ib(BinaryOp::Add, DType::u8, 255, 1), 0);
    EXPECT_EQ(ib(BinaryOp::Add, DType::i16, 32767, 1), -32768);
    EXPECT_EQ(ib(BinaryOp::Mul, DType::u16, 65535, 65535), 1);
    EXPECT_EQ(ib(BinaryOp::Add, DType::i32, 2147483647, 1), -2147483648LL);
    EXPECT_EQ(ib(BinaryOp::Sub, DType::u32, 0, 1), 4294967295LL);
    EXPECT_EQ(ib(BinaryOp::Add, DType::i64, INT64_MAX, 1), INT64_MIN);
    EXPECT_EQ(ib(BinaryOp::Sub, DType::u64, 0, 1), -1);  // all ones
    EXPECT_EQ(folded_int(Unary::make(UnaryOp::Neg, ci(DType::i8, -128))), -128);
}

TEST(ConstantFold, FloorDivModEveryType) {
    for (DType t : {DType::i8, DType::i16, DType::i32, DType::i64}) {
        EXPECT_EQ(ib(BinaryOp::FloorDiv, t, -7, 3), -3);
        EXPECT_EQ(ib(BinaryOp::Mod, t, -7, 3), 2);
        EXPECT_EQ(ib(BinaryOp::FloorDiv, t, 7, -3), -3);
        EXPECT_EQ(ib(BinaryOp::Mod, t, 7, -3), -2);
        EXPECT_EQ(ib(BinaryOp::FloorDiv, t, 9, 0), 0);
        EXPECT_EQ(ib(BinaryOp::Mod, t, 9, 0), 0);
    }
    for (DType t : {DType::u8, DType::u16, DType::u32, DType::u64}) {
        EXPECT_EQ(ib(BinaryOp::FloorDiv, t, 7, 3), 2);
        EXPECT_EQ(ib(BinaryOp::Mod, t, 7, 3), 1);
        EXPECT_EQ(ib(BinaryOp::FloorDiv, t, 9, 0), 0);
    }
    EXPECT_EQ(ib(BinaryOp::FloorDiv, DType::i8, -128, -1), -128);
    EXPECT_EQ(ib(BinaryOp::FloorDiv, DType::i16, -32768, -1), -32768);
    EXPECT_EQ(ib(BinaryOp::FloorDiv, DType::i32, INT32_MIN, -1), INT32_MIN);
    EXPECT_EQ(ib(BinaryOp::FloorDiv, DType::i64, INT64_MIN, -1), INT64_MIN);
    EXPECT_EQ(ib(BinaryOp::Mod, DType::i64, INT64_MIN, -1), 0);
}

TEST(ConstantFold, ShiftsAndPowers) {
    EXPECT_EQ(ib(BinaryOp::Shr, DType::i8, -8, 1), -4);
    EXPECT_EQ(ib(BinaryOp::Shr, DType::u8, 200, 1), 100);
    EXPECT_EQ(ib(BinaryOp::Shl, DType::i32, 1, 33), 2);  // count 33 on i32 == 1
    EXPECT_EQ(ib(BinaryOp::Shl, DType::i32, 1, 1), 2);
    EXPECT_EQ(folded_int(bin(BinaryOp::Shl, ci(DType::u16, 1), ci(DType::i8, 17))), 2);
    EXPECT_EQ(folded_int(bin(BinaryOp::Pow, ci(DType::i8, 3), ci(DType::i64, 5))), -13);
    EXPECT_EQ(folded_int(bin(BinaryOp::Pow, ci(DType::u8, 20), ci(DType::u8, 2))), 144);
    EXPECT_EQ(folded_int(bin(BinaryOp::Pow, ci(DType::i32, 0), ci(DType::i32, 0))), 1);
    EXPECT_EQ(folded_int(bin(BinaryOp::Pow, ci(DType::u16, 3), ci(DType::i32, 10))), 59049);
    EXPECT_EQ(folded_int(bin(BinaryOp::Pow, ci(DType::i16, 3), ci(DType::i32, 10))), 59049 - 65536);
}

TEST(ConstantFold, SaturatingCasts) {
    EXPECT_EQ(folded_int(Cast::make(DType::i8, f32c(300.0))), 127);
    EXPECT_EQ(folded_int(Cast::make(DType::i8, f32c(kNaN))), 0);
    EXPECT_EQ(folded_int(Cast::make(DType::i8, f32c(-2.7))), -2);
    EXPECT_EQ(folded_int(Cast::make(DType::u8, f64c(-1.0))), 0);
    EXPECT_EQ(folded_int(Cast::make(DType::u32, f64c(kInf))), 4294967295LL);
    EXPECT_EQ(folded_int(Cast::make(DType::i64, f64c(-kInf))), INT64_MIN);
    EXPECT_EQ(folded_int(Cast::make(DType::u8, ci(DType::i32, -1))), 255);
    EXPECT_EQ(folded_int(Cast::make(DType::i8, ci(DType::u8, 255))), -1);
    EXPECT_EQ(folded_int(Cast::make(DType::i64, ci(DType::u8, 255))), 255);
    EXPECT_EQ(folded_int(Cast::make(DType::u64, ci(DType::i8, -1))), -1);  // 2**64-1
    EXPECT_EQ(folded_float(Cast::make(DType::f32, f64c(0.1))), static_cast<double>(0.1f));
}

TEST(ConstantFold, ComparesYieldZeroOne) {
    EXPECT_EQ(folded_int(Compare::make(CompareOp::Lt, ci(DType::i8, -1), ci(DType::i8, 1))), 1);
    EXPECT_EQ(folded_int(Compare::make(CompareOp::Lt, ci(DType::u8, 255), ci(DType::u8, 1))), 0);
    EXPECT_EQ(folded_int(Compare::make(CompareOp::Ne, f64c(kNaN), f64c(kNaN))), 1);
    EXPECT_EQ(folded_int(Compare::make(CompareOp::Eq, f64c(kNaN), f64c(kNaN))), 0);
    EXPECT_EQ(folded_int(Unary::make(UnaryOp::Not, f32c(kNaN))), 0);
}

TEST(ConstantFold, FloatInNodePrecision) {
    float f = 0.1f + 0.2f;
    EXPECT_EQ(folded_float(bin(BinaryOp::Add, f32c(0.1), f32c(0.2))), static_cast<double>(f));
    EXPECT_EQ(folded_float(bin(BinaryOp::Add, f64c(0.1), f64c(0.2))), 0.30000000000000004);
    EXPECT_EQ(folded_float(bin(BinaryOp::FloorDiv, f64c(0.5), f64c(0.1))), 4.0);
    EXPECT_EQ(folded_float(bin(BinaryOp::FloorDiv, f64c(1.0), f64c(0.1))), 9.0);
    EXPECT_EQ(folded_float(bin(BinaryOp::Mod, f64c(0.5), f64c(0.1))), 0.09999999999999998);
    EXPECT_EQ(folded_float(bin(BinaryOp::FloorDiv, f64c(-1.0), f64c(kInf))), -1.0);
    EXPECT_EQ(folded_float(bin(BinaryOp::Mod, f64c(-1.0), f64c(kInf))), kInf);
    EXPECT_EQ(folded_float(Call::make(MathFn::Sqrt, {f64c(4)})), 2.0);
}

TEST(ConstantFold, NeverFoldsAlgebraicIdentities) {
    auto a = var("a", DType::f32, 5);
    auto n = var("n", DType::i32, 6);
    for (ExprPtr e : {bin(BinaryOp::Mul, vref(a), f32c(0)), bin(BinaryOp::Sub, vref(a), vref(a)),
                      bin(BinaryOp::Mul, vref(n), i32c(0)), bin(BinaryOp::Add, vref(a), f32c(0))}) {
        EXPECT_EQ(fold(e), e) << print(e);
    }
    // Transcendentals and float pow are left to the target's libm.
    ExprPtr s = Call::make(MathFn::Sin, {f64c(1)});
    EXPECT_EQ(fold(s), s);
    ExprPtr p = bin(BinaryOp::Pow, f64c(2), f64c(0.5));
    EXPECT_EQ(fold(p), p);
}

TEST(ConstantFold, FoldsInsideNonConstantTrees) {
    auto a = var("a", DType::i32, 5);
    ExprPtr e = bin(BinaryOp::Add, vref(a), bin(BinaryOp::Mul, i32c(6), i32c(7)));
    EXPECT_EQ(print(fold(e)), "(i32 add a.5 42i32)");
}

TEST(ConstantFold, SelectAndLogicalStayLazy) {
    auto x = param_array("y", DType::f32, 1, 0);
    auto a = var("a", DType::i32, 5);
    ExprPtr load = Load::make(x, i64c(1000000));
    EXPECT_EQ(fold(Select::make(i32c(1), f32c(2), load))->as<FloatImm>()->value, 2.0);
    EXPECT_EQ(fold(Select::make(f64c(0), load, f32c(3)))->as<FloatImm>()->value, 3.0);
    ExprPtr keep = Select::make(vref(a), f32c(2), f32c(3));
    EXPECT_EQ(fold(keep), keep);
    EXPECT_EQ(folded_int(Logical::make(LogicalOp::And, i32c(0), vref(a))), 0);
    EXPECT_EQ(folded_int(Logical::make(LogicalOp::Or, f32c(kNaN), vref(a))), 1);
    EXPECT_EQ(folded_int(Logical::make(LogicalOp::And, i32c(2), f32c(0.5))), 1);
    ExprPtr undecided = Logical::make(LogicalOp::And, i32c(1), vref(a));
    EXPECT_EQ(fold(undecided), undecided);
}

TEST(ConstantFold, KeepsLoopEndAndRanges) {
    OneDim d;
    auto out = constant_fold(d.k);
    EXPECT_EQ(out.dims[0].end, d.k.dims[0].end);
    d.k.dims[0].step = bin(BinaryOp::Add, i64c(1), i64c(1));
    out = constant_fold(d.k);
    EXPECT_EQ(out.dims[0].step->as<IntImm>()->bits, 2u);
}

}  // namespace
}  // namespace tack::passes
