// shape_dims_used / specialize_shapes (CONTRACT D3: the outer parallel end is not specialized).

#include <gtest/gtest.h>

#include "diag/diagnostic.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using namespace tack::ir::test;

TEST(SpecializeShapes, OuterEndIsNotAShapeUse) {
    OneDim d;
    d.k.body = {Store::make(d.x, vref(d.i), f32c(0))};
    EXPECT_TRUE(shape_dims_used(d.k).empty());
    Kernel out = specialize_shapes(d.k, {});
    EXPECT_EQ(out.dims[0].end, d.k.dims[0].end);
}

TEST(SpecializeShapes, ReplacesEveryOtherUse) {
    auto x = param_array("x", DType::f32, 2, 0);
    auto y = param_array("y", DType::f32, 1, 1);
    auto i = var("i", DType::i64, 0);
    auto j = var("j", DType::i64, 1);
    Kernel k;
    k.name = "k";
    k.params = {array_param(x), array_param(y)};
    k.dims = {LoopDim{i, i64c(0), ArrayDim::make(x, 0), i64c(1)},
              LoopDim{j, i64c(0), ArrayDim::make(x, 1), i64c(1)}};
    ExprPtr flat = bin(BinaryOp::Add, bin(BinaryOp::Mul, vref(i), ArrayDim::make(x, 1)), vref(j));
    k.body = {Store::make(x, flat, Cast::make(DType::f32, ArrayDim::make(x, 0))),
              Store::make(y, vref(j), Cast::make(DType::f32, ArrayDim::make(y, 0)))};
    auto used = shape_dims_used(k);
    // x dim 0 is used in the body too, so it counts; sorted by (param, dim).
    std::vector<std::pair<int, int>> expected = {{0, 0}, {0, 1}, {1, 0}};
    EXPECT_EQ(used, expected);
    Kernel out = specialize_shapes(k, {{{0, 0}, 5}, {{0, 1}, 7}, {{1, 0}, 9}});
    EXPECT_EQ(print(out),
              "kernel k(x: f32[2], y: f32[1])\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64, j.1 in [0i64, 7i64) step 1i64:\n"
              "    store x[(i64 add (i64 mul i.0 7i64) j.1)] = (f32 cast 5i64)\n"
              "    store y[j.1] = (f32 cast 9i64)\n");
    EXPECT_THROW(specialize_shapes(k, {{{0, 0}, 5}}), diag::InternalError);
}

TEST(Pipeline, OptimizeVerifiesAndFolds) {
    OneDim d;
    auto t = var("t", DType::f32, 1);
    auto u = var("u", DType::f32, 2);
    d.k.locals = {t, u};
    d.k.body = {
        Assign::make(t, bin(BinaryOp::Mul, f32c(2), f32c(3))),
        Assign::make(u, bin(BinaryOp::Add, vref(t), f32c(1))),
        If::make(Compare::make(CompareOp::Gt, vref(u), f32c(0)),
                 {Store::make(d.x, vref(d.i), vref(u))}, {Store::make(d.x, vref(d.i), f32c(0))}),
    };
    // One round of the straight line: fold (t = 6), propagate t into u's sum, fold (u = 7),
    // drop t. u's constant is only known after the second fold, so it is not propagated.
    EXPECT_EQ(print(optimize(d.k)),
              "kernel k(x: f32[1])\n"
              "  locals u.2: f32\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n"
              "    u.2 = 7f32\n"
              "    if (i32 gt u.2 0f32):\n"
              "      store x[i.0] = u.2\n"
              "    else:\n"
              "      store x[i.0] = 0f32\n");
    d.k.body.push_back(Break::make());
    EXPECT_THROW(optimize(d.k), diag::InternalError);
}

}  // namespace
}  // namespace tack::passes
