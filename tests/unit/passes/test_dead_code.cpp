// dead_code and copy_propagate: IR before and after, compared as printed text.

#include <gtest/gtest.h>

#include <cmath>

#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using namespace tack::ir::test;

const char* kHead = "kernel k(x: f32[1])\n";
const char* kLoop = "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n";

TEST(DeadCode, DropsStatementsAfterBreakAndContinue) {
    OneDim d;
    auto j = var("j", DType::i64, 1);
    d.k.body = {
        For::make(j, i64c(0), i64c(4), i64c(1),
                  {Store::make(d.x, vref(j), f32c(1)), Break::make(),
                   Store::make(d.x, vref(j), f32c(2))}),
        Continue::make(),
        Store::make(d.x, vref(d.i), f32c(3)),
    };
    Kernel out = dead_code(d.k);
    EXPECT_EQ(print(out), std::string(kHead) + kLoop +
                              "    for j.1 in [0i64, 4i64) step 1i64:\n"
                              "      store x[j.1] = 1f32\n"
                              "      break\n"
                              "    continue\n");
}

TEST(DeadCode, TakesTheBranchOfAConstantIf) {
    OneDim d;
    auto j = var("j", DType::i64, 1);
    d.k.body = {
        If::make(i32c(0), {Store::make(d.x, vref(d.i), f32c(1))},
                 {Store::make(d.x, vref(d.i), f32c(2)), Continue::make()}),
        Store::make(d.x, vref(d.i), f32c(3)),  // unreachable once the else branch is spliced
        If::make(f32c(0.5), {Store::make(d.x, i64c(0), f32c(4))}, {}),
    };
    Kernel out = dead_code(d.k);
    EXPECT_EQ(print(out), std::string(kHead) + kLoop +
                              "    store x[i.0] = 2f32\n"
                              "    continue\n");
    d.k.body = {If::make(f64c(std::nan("")), {Store::make(d.x, i64c(0), f32c(4))},
                         {Store::make(d.x, i64c(0), f32c(5))})};  // NaN is true
    EXPECT_EQ(print(dead_code(d.k)), std::string(kHead) + kLoop + "    store x[0i64] = 4f32\n");
}

TEST(DeadCode, DropsUnreadLocalsTransitively) {
    OneDim d;
    auto a = var("a", DType::f32, 1);
    auto b = var("b", DType::f32, 2);
    auto c = var("c", DType::f32, 3);
    auto r = var("r", DType::f32, 4);
    d.k.locals = {a, b, c, r};
    d.k.body = {
        Assign::make(a, Load::make(d.x, vref(d.i))),
        Assign::make(b, bin(BinaryOp::Mul, vref(a), f32c(2))),  // only feeds nothing
        Assign::make(c, f32c(1)),
        Store::make(d.x, vref(d.i), vref(c)),
        Atomic::make(AtomicOp::Add, d.x, i64c(0), f32c(1), r),  // old value unused
    };
    Kernel out = dead_code(d.k);
    EXPECT_EQ(print(out), std::string(kHead) + "  locals c.3: f32\n" + kLoop +
                              "    c.3 = 1f32\n"
                              "    store x[i.0] = c.3\n"
                              "    atomic_add x[0i64], 1f32\n");
    EXPECT_NO_THROW(verify(out, "dead_code"));
}

TEST(DeadCode, KeepsLocalsThatAreRead) {
    OneDim d;
    auto s = var("s", DType::f32, 1);
    auto j = var("j", DType::i64, 2);
    d.k.locals = {s, j};
    d.k.body = {
        Assign::make(s, f32c(0)),
        For::make(j, i64c(0), i64c(3), i64c(1),
                  {Assign::make(s, bin(BinaryOp::Add, vref(s), f32c(1)))}),
        Store::make(d.x, vref(d.i), vref(s)),
    };
    Kernel out = dead_code(d.k);
    EXPECT_EQ(print(out), print(d.k));
}

TEST(DeadCode, KeepsParameterAssignmentsAndResultReads) {
    OneDim d;
    auto t = var("t", DType::f32, 1);
    d.k.locals = {t};
    d.k.prologue = {Assign::make(t, f32c(5))};
    d.k.result = vref(t);
    EXPECT_EQ(print(dead_code(d.k)), print(d.k));
}

TEST(CopyPropagate, ConstantsAndStableCopies) {
    OneDim d;
    auto n = var("n", DType::i64, 5);
    d.k.params.push_back(scalar_param(n));
    auto c = var("c", DType::f32, 1);
    auto m = var("m", DType::i64, 2);
    auto s = var("s", DType::f32, 3);
    d.k.locals = {c, m, s};
    d.k.body = {
        Assign::make(c, f32c(2)),
        Assign::make(m, vref(n)),
        Assign::make(s, Load::make(d.x, vref(m))),  // loads are not propagated
        Store::make(d.x, vref(m), bin(BinaryOp::Mul, vref(c), vref(s))),
    };
    Kernel out = dead_code(copy_propagate(d.k));
    EXPECT_EQ(print(out),
              "kernel k(x: f32[1], n.5: i64)\n"
              "  locals s.3: f32\n" +
                  std::string(kLoop) +
                  "    s.3 = (f32 load x[n.5])\n"
                  "    store x[n.5] = (f32 mul 2f32 s.3)\n");
}

TEST(CopyPropagate, NotAcrossLoopsOrBranches) {
    OneDim d;
    auto c = var("c", DType::f32, 1);
    auto j = var("j", DType::i64, 2);
    auto e = var("e", DType::f32, 3);
    d.k.locals = {c, j, e};
    d.k.body = {
        For::make(j, i64c(0), vref(d.i), i64c(1),
                  {Assign::make(c, f32c(1)), Store::make(d.x, vref(j), vref(c))}),
        Store::make(d.x, vref(d.i), vref(c)),  // loop may not have run: keep c
        If::make(vref(d.i), {Assign::make(e, f32c(4))}, {}),
        Store::make(d.x, i64c(0), vref(e)),  // not dominated: keep e
    };
    Kernel out = copy_propagate(d.k);
    EXPECT_EQ(print(out), std::string(kHead) + "  locals c.1: f32, j.2: i64, e.3: f32\n" + kLoop +
                              "    for j.2 in [0i64, i.0) step 1i64:\n"
                              "      c.1 = 1f32\n"
                              "      store x[j.2] = 1f32\n"
                              "    store x[i.0] = c.1\n"
                              "    if i.0:\n"
                              "      e.3 = 4f32\n"
                              "    store x[0i64] = e.3\n");
}

TEST(CopyPropagate, ReassignedVariablesAreLeftAlone) {
    OneDim d;
    auto a = var("a", DType::f32, 1);
    auto b = var("b", DType::f32, 2);
    auto j = var("j", DType::i64, 3);
    auto q = var("q", DType::i64, 4);
    d.k.locals = {a, b, j, q};
    d.k.body = {
        Assign::make(a, f32c(1)),
        Assign::make(b, vref(a)),  // a is reassigned below: b must not become a
        Assign::make(a, f32c(2)),
        Store::make(d.x, vref(d.i), vref(b)),
        For::make(j, i64c(0), i64c(2), i64c(1), {Assign::make(q, vref(j))}),  // j changes
        Store::make(d.x, vref(q), vref(a)),
    };
    EXPECT_EQ(print(copy_propagate(d.k)), print(d.k));
}

TEST(CopyPropagate, CopyOfASingleAssignmentLocal) {
    OneDim d;
    auto a = var("a", DType::f32, 1);
    auto b = var("b", DType::f32, 2);
    d.k.locals = {a, b};
    d.k.body = {
        Assign::make(a, Load::make(d.x, vref(d.i))),
        Assign::make(b, vref(a)),
        Store::make(d.x, vref(d.i), bin(BinaryOp::Add, vref(b), vref(b))),
    };
    EXPECT_EQ(print(dead_code(copy_propagate(d.k))), std::string(kHead) + "  locals a.1: f32\n" +
                                                         kLoop +
                                                         "    a.1 = (f32 load x[i.0])\n"
                                                         "    store x[i.0] = (f32 add a.1 a.1)\n");
}

TEST(CopyPropagate, PrologueConstantsReachBodyAndResult) {
    OneDim d;
    auto c = var("c", DType::i32, 1);
    d.k.locals = {c};
    d.k.prologue = {Assign::make(c, i32c(3))};
    d.k.body = {Store::make(d.x, vref(d.i), Cast::make(DType::f32, vref(c)))};
    d.k.result = vref(c);
    Kernel out = optimize(d.k);
    EXPECT_EQ(print(out), "kernel k(x: f32[1]) -> i32\n" + std::string(kLoop) +
                              "    store x[i.0] = 3f32\n"
                              "  return 3i32\n");
}

}  // namespace
}  // namespace tack::passes
