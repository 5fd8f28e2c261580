// IRVisitor reaches every child; IRMutator keeps identity when nothing changes.

#include <gtest/gtest.h>

#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::ir {
namespace {

using namespace test;

struct CountVars : IRVisitor {
    int refs = 0;
    int loads = 0;
    void visit(const VarRef*) override { ++refs; }
    void visit(const Load* n) override {
        ++loads;
        IRVisitor::visit(n);
    }
};

Kernel sample() {
    OneDim d;
    auto t = var("t", DType::f32, 1);
    auto j = var("j", DType::i64, 2);
    d.k.locals = {t, j};
    d.k.prologue = {Assign::make(t, f32c(2))};
    d.k.body = {
        For::make(
            j, i64c(0), vref(d.i), i64c(1),
            {Store::make(d.x, vref(j), bin(BinaryOp::Mul, vref(t), Load::make(d.x, vref(j))))}),
        If::make(Compare::make(CompareOp::Lt, vref(t), f32c(1)),
                 {Print::make({std::string("t"), vref(t)})}, {}),
    };
    d.k.result = vref(t);
    return d.k;
}

TEST(IrVisitor, VisitsEveryChild) {
    CountVars c;
    c.visit_kernel(sample());
    // end of for (i), store index (j), t, load index (j), compare (t), print (t), result (t).
    EXPECT_EQ(c.refs, 7);
    EXPECT_EQ(c.loads, 1);
}

TEST(IrMutator, IdentityWhenUnchanged) {
    Kernel k = sample();
    IRMutator m;
    Kernel out = m.mutate_kernel(k);
    ASSERT_EQ(out.body.size(), k.body.size());
    for (size_t i = 0; i < k.body.size(); ++i)
        EXPECT_EQ(out.body[i], k.body[i]);
    EXPECT_EQ(out.prologue[0], k.prologue[0]);
    EXPECT_EQ(out.result, k.result);
    EXPECT_EQ(out.dims[0].end, k.dims[0].end);
}

struct TToThree : IRMutator {
    ExprPtr visit(const VarRef* n, const ExprPtr& self) override {
        return n->var->name == "t" ? f32c(3) : self;
    }
    StmtPtr visit(const Print*, const StmtPtr&) override { return nullptr; }
};

TEST(IrMutator, RebuildsOnlyChangedPaths) {
    Kernel k = sample();
    TToThree m;
    Kernel out = m.mutate_kernel(k);
    EXPECT_EQ(out.prologue[0], k.prologue[0]);  // no VarRef inside
    EXPECT_NE(out.body[0], k.body[0]);
    EXPECT_EQ(print(out),
              "kernel k(x: f32[1]) -> f32\n"
              "  locals t.1: f32, j.2: i64\n"
              "  prologue:\n"
              "    t.1 = 2f32\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n"
              "    for j.2 in [0i64, i.0) step 1i64:\n"
              "      store x[j.2] = (f32 mul 3f32 (f32 load x[j.2]))\n"
              "    if (i32 lt 3f32 1f32):\n"
              "      pass\n"
              "  return 3f32\n");
}

}  // namespace
}  // namespace tack::ir
