// make() validation: well-typed nodes build, ill-typed ones throw InternalError.

#include <gtest/gtest.h>

#include <cmath>

#include "diag/diagnostic.hpp"
#include "ir/ir.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::ir {
namespace {

using namespace test;
using diag::InternalError;

TEST(IrMake, IntImmReducesModuloWidth) {
    auto e = IntImm::make(DType::i8, 200);
    auto* i = e->as<IntImm>();
    ASSERT_NE(i, nullptr);
    EXPECT_EQ(i->bits, 200u);
    EXPECT_EQ(i->as_signed(), -56);
    EXPECT_EQ(IntImm::make(DType::u8, 0x1FF)->as<IntImm>()->bits, 0xFFu);
    EXPECT_EQ(IntImm::make(DType::u8, 0x1FF)->as<IntImm>()->as_signed(), 255);
    EXPECT_EQ(IntImm::make(DType::i16, uint64_t(-1))->as<IntImm>()->bits, 0xFFFFu);
    EXPECT_EQ(IntImm::make(DType::i16, uint64_t(-1))->as<IntImm>()->as_signed(), -1);
    EXPECT_EQ(IntImm::make_i64(-5)->as<IntImm>()->as_signed(), -5);
    EXPECT_EQ(IntImm::make(DType::u64, ~uint64_t{0})->as<IntImm>()->bits, ~uint64_t{0});
    EXPECT_THROW(IntImm::make(DType::f32, 1), InternalError);
}

TEST(IrMake, FloatImmRoundsF32Once) {
    ExprPtr node = FloatImm::make(DType::f32, 0.1);  // keep the node alive while reading it
    EXPECT_EQ(node->as<FloatImm>()->value, static_cast<double>(0.1f));
    EXPECT_EQ(FloatImm::make(DType::f64, 0.1)->as<FloatImm>()->value, 0.1);
    EXPECT_THROW(FloatImm::make(DType::i32, 1.0), InternalError);
}

TEST(IrMake, BinaryTypes) {
    auto a = i32c(1), b = i32c(2);
    EXPECT_EQ(bin(BinaryOp::Add, a, b)->type, DType::i32);
    EXPECT_THROW(bin(BinaryOp::Add, a, i64c(2)), InternalError);
    EXPECT_THROW(bin(BinaryOp::Div, a, b), InternalError);
    EXPECT_EQ(bin(BinaryOp::Div, f32c(1), f32c(2))->type, DType::f32);
    for (BinaryOp op :
         {BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shl, BinaryOp::Shr}) {
        EXPECT_THROW(bin(op, f32c(1), f32c(2)), InternalError);
    }
    // Shift counts and integer exponents may have any integer type; the result is the left's.
    EXPECT_EQ(bin(BinaryOp::Shl, ci(DType::u8, 1), i64c(3))->type, DType::u8);
    EXPECT_EQ(bin(BinaryOp::Shr, ci(DType::i16, 1), ci(DType::u32, 3))->type, DType::i16);
    EXPECT_EQ(bin(BinaryOp::Pow, ci(DType::i8, 3), i64c(5))->type, DType::i8);
    EXPECT_THROW(bin(BinaryOp::Shl, ci(DType::u8, 1), f32c(3)), InternalError);
    EXPECT_THROW(bin(BinaryOp::Pow, ci(DType::i8, 3), f32c(5)), InternalError);
    // Float pow needs both operands float of the same type.
    EXPECT_THROW(bin(BinaryOp::Pow, f32c(3), i32c(5)), InternalError);
    EXPECT_EQ(bin(BinaryOp::Pow, f32c(3), f32c(5))->type, DType::f32);
    EXPECT_THROW(bin(BinaryOp::Add, nullptr, a), InternalError);
}

TEST(IrMake, UnaryCompareLogicalSelect) {
    EXPECT_EQ(Unary::make(UnaryOp::Neg, f64c(1))->type, DType::f64);
    EXPECT_EQ(Unary::make(UnaryOp::Not, f64c(1))->type, DType::i32);
    EXPECT_EQ(Unary::make(UnaryOp::BitNot, ci(DType::u16, 1))->type, DType::u16);
    EXPECT_THROW(Unary::make(UnaryOp::BitNot, f32c(1)), InternalError);

    EXPECT_EQ(Compare::make(CompareOp::Lt, f32c(1), f32c(2))->type, DType::i32);
    EXPECT_THROW(Compare::make(CompareOp::Lt, f32c(1), f64c(2)), InternalError);
    EXPECT_EQ(Logical::make(LogicalOp::And, f32c(1), i64c(2))->type, DType::i32);
    EXPECT_EQ(Select::make(f32c(1), i64c(2), i64c(3))->type, DType::i64);
    EXPECT_THROW(Select::make(i32c(1), i64c(2), i32c(3)), InternalError);
}

TEST(IrMake, MemoryAndDims) {
    auto x = param_array("x", DType::f32, 2, 0);
    auto tmp = local_array("t", DType::f32, 4, 7);
    EXPECT_EQ(Load::make(x, i64c(0))->type, DType::f32);
    EXPECT_THROW(Load::make(x, i32c(0)), InternalError);
    EXPECT_NO_THROW(Store::make(x, i64c(0), f32c(1)));
    EXPECT_THROW(Store::make(x, i64c(0), f64c(1)), InternalError);
    EXPECT_THROW(Store::make(x, i32c(0), f32c(1)), InternalError);
    EXPECT_EQ(ArrayDim::make(x, 1)->type, DType::i64);
    EXPECT_THROW(ArrayDim::make(x, 2), InternalError);
    EXPECT_THROW(ArrayDim::make(tmp, 0), InternalError);
    EXPECT_NO_THROW(Atomic::make(AtomicOp::Add, x, i64c(0), f32c(1), nullptr));
    EXPECT_NO_THROW(Atomic::make(AtomicOp::Add, x, i64c(0), f32c(1), var("o", DType::f32, 1)));
    EXPECT_THROW(Atomic::make(AtomicOp::Add, x, i64c(0), f32c(1), var("o", DType::i32, 1)),
                 InternalError);
    EXPECT_THROW(Atomic::make(AtomicOp::Add, tmp, i64c(0), f32c(1), nullptr), InternalError);
    EXPECT_THROW(Atomic::make(AtomicOp::Min, x, i64c(0), i32c(1), nullptr), InternalError);
    EXPECT_NO_THROW(AllocArray::make(tmp));
    EXPECT_THROW(AllocArray::make(x), InternalError);
}

TEST(IrMake, Statements) {
    auto v = var("v", DType::i32, 1);
    auto j = var("j", DType::i64, 2);
    EXPECT_NO_THROW(Assign::make(v, i32c(1)));
    EXPECT_THROW(Assign::make(v, i64c(1)), InternalError);
    EXPECT_NO_THROW(For::make(j, i64c(0), i64c(4), i64c(1), {}));
    EXPECT_THROW(For::make(j, i32c(0), i64c(4), i64c(1), {}), InternalError);
    EXPECT_THROW(For::make(j, i64c(0), i64c(4), i32c(1), {}), InternalError);
    EXPECT_THROW(For::make(v, i64c(0), i64c(4), i64c(1), {}), InternalError);
    EXPECT_THROW(BlockReduce::make(ReduceOp::Sum, v, f32c(1)), InternalError);
    EXPECT_NO_THROW(BlockReduce::make(ReduceOp::Sum, var("r", DType::f32, 3), f32c(1)));
    EXPECT_THROW(Print::make({std::string("a"), ExprPtr()}), InternalError);
}

TEST(IrMake, CallArityAndTypes) {
    EXPECT_EQ(Call::make(MathFn::Sqrt, {f32c(2)})->type, DType::f32);
    EXPECT_THROW(Call::make(MathFn::Sqrt, {f32c(2), f32c(3)}), InternalError);
    EXPECT_THROW(Call::make(MathFn::Atan2, {f32c(2)}), InternalError);
    EXPECT_THROW(Call::make(MathFn::Atan2, {f32c(2), f64c(3)}), InternalError);
    EXPECT_THROW(Call::make(MathFn::Sqrt, {i32c(2)}), InternalError);
    EXPECT_EQ(Call::make(MathFn::Abs, {ci(DType::i8, -2)})->type, DType::i8);
    EXPECT_STREQ(to_string(MathFn::Atan2), "atan2");
    EXPECT_EQ(arity(MathFn::Copysign), 2);
    EXPECT_EQ(arity(MathFn::Exp2), 1);
}

TEST(IrMake, ParamType) {
    auto x = param_array("x", DType::u16, 1, 0);
    auto a = var("a", DType::f64, 1);
    EXPECT_EQ(array_param(x).type(), DType::u16);
    EXPECT_EQ(scalar_param(a).type(), DType::f64);
    EXPECT_TRUE(array_param(x).is_array());
}

}  // namespace
}  // namespace tack::ir
