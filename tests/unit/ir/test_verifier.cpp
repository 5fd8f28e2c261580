// The verifier accepts well-formed kernels and names each structural violation.

#include <gtest/gtest.h>

#include "diag/diagnostic.hpp"
#include "ir/verifier.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::ir {
namespace {

using namespace test;

// Runs verify and returns the error text ("" when it passed).
std::string verify_error(const Kernel& k) {
    try {
        verify(k, "test");
    } catch (const diag::InternalError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_VERIFY_FAILS(k, fragment) \
    EXPECT_NE(verify_error(k).find(fragment), std::string::npos) << verify_error(k)

TEST(IrVerifier, AcceptsWellFormedKernel) {
    OneDim d;
    auto t = var("t", DType::f32, 1);
    auto j = var("j", DType::i64, 2);
    auto tmp = local_array("tmp", DType::f32, 4, 3);
    d.k.locals = {t, j};
    d.k.prologue = {Assign::make(t, f32c(1))};
    d.k.body = {
        AllocArray::make(tmp),
        For::make(j, i64c(0), i64c(4), i64c(1),
                  {Store::make(tmp, vref(j), vref(t)), If::make(i32c(1), {Break::make()}, {}),
                   While::make(i32c(1), {Continue::make()})}),
        If::make(i32c(1), {Continue::make()}, {}),
        Store::make(d.x, vref(d.i), Load::make(tmp, i64c(0))),
    };
    d.k.result = vref(t);
    EXPECT_EQ(verify_error(d.k), "");
}

TEST(IrVerifier, ForVarsNeedNotBeListed) {
    OneDim d;
    auto j = var("j", DType::i64, 2);
    d.k.body = {For::make(j, i64c(0), i64c(4), i64c(1), {Store::make(d.x, vref(j), f32c(0))})};
    EXPECT_EQ(verify_error(d.k), "");
}

TEST(IrVerifier, UndeclaredVariable) {
    OneDim d;
    auto t = var("t", DType::f32, 1);
    d.k.body = {Store::make(d.x, vref(d.i), vref(t))};
    EXPECT_VERIFY_FAILS(d.k, "undeclared variable 't'");
    d.k.body = {Assign::make(t, f32c(0))};
    EXPECT_VERIFY_FAILS(d.k, "assignment to undeclared variable 't'");
}

TEST(IrVerifier, DuplicateIds) {
    OneDim d;
    d.k.locals = {var("a", DType::f32, 0)};  // i.0 already has id 0
    EXPECT_VERIFY_FAILS(d.k, "share id 0");
}

TEST(IrVerifier, BreakAndContinuePlacement) {
    OneDim d;
    d.k.body = {Break::make()};
    EXPECT_VERIFY_FAILS(d.k, "break outside a loop");
    d.k.body = {If::make(i32c(1), {Break::make()}, {})};
    EXPECT_VERIFY_FAILS(d.k, "break outside a loop");
    d.k.body = {Continue::make()};  // ends the parallel iteration
    EXPECT_EQ(verify_error(d.k), "");
    d.k.body = {};
    d.k.prologue = {Continue::make()};
    EXPECT_VERIFY_FAILS(d.k, "continue outside a loop");
}

TEST(IrVerifier, SideEffectsNotInPrologue) {
    auto r = var("r", DType::f32, 5);
    auto cases = std::vector<std::pair<StmtPtr, std::string>>{
        {Barrier::make(), "barrier in the prologue"},
        {BlockReduce::make(ReduceOp::Sum, r, f32c(1)), "block reduction in the prologue"},
        {Print::make({std::string("hi")}), "print in the prologue"},
    };
    for (auto& [s, msg] : cases) {
        OneDim d;
        d.k.locals = {r};
        d.k.prologue = {s};
        EXPECT_VERIFY_FAILS(d.k, msg);
    }
    OneDim d;
    d.k.prologue = {Store::make(d.x, i64c(0), f32c(1))};
    EXPECT_VERIFY_FAILS(d.k, "store in the prologue");
    d.k.prologue = {Atomic::make(AtomicOp::Add, d.x, i64c(0), f32c(1), nullptr)};
    EXPECT_VERIFY_FAILS(d.k, "atomic in the prologue");
}

TEST(IrVerifier, LocalArraysDeclaredBeforeUse) {
    OneDim d;
    auto tmp = local_array("tmp", DType::f32, 4, 3);
    d.k.body = {Store::make(tmp, i64c(0), f32c(1)), AllocArray::make(tmp)};
    EXPECT_VERIFY_FAILS(d.k, "store of array 'tmp' before its declaration");
    // Declared inside an if: not visible after it.
    d.k.body = {If::make(i32c(1), {AllocArray::make(tmp)}, {}),
                Store::make(d.x, i64c(0), Load::make(tmp, i64c(0)))};
    EXPECT_VERIFY_FAILS(d.k, "load of array 'tmp' before its declaration");
}

TEST(IrVerifier, BuffersBelongToKernel) {
    OneDim d;
    auto other = param_array("y", DType::f32, 1, 0);  // claims slot 0, which holds x
    d.k.body = {Store::make(other, i64c(0), f32c(1))};
    EXPECT_VERIFY_FAILS(d.k, "array 'y' that is not a parameter");
    auto far = param_array("z", DType::f32, 1, 3);
    d.k.body = {Store::make(d.x, i64c(0), Cast::make(DType::f32, ArrayDim::make(far, 0)))};
    EXPECT_VERIFY_FAILS(d.k, "dim of array 'z'");
}

TEST(IrVerifier, LoopDimsAreHostEvaluable) {
    OneDim d;
    auto t = var("t", DType::i64, 1);
    d.k.locals = {t};
    d.k.dims[0].end = vref(t);
    EXPECT_VERIFY_FAILS(d.k, "not a scalar parameter");
    d.k.dims[0].end = Cast::make(DType::i64, Load::make(d.x, i64c(0)));
    EXPECT_VERIFY_FAILS(d.k, "load in a loop dim bound");
    auto n = var("n", DType::i64, 2);
    d.k.params.push_back(scalar_param(n));
    d.k.dims[0].end = bin(BinaryOp::Mul, vref(n), ArrayDim::make(d.x, 0));
    EXPECT_EQ(verify_error(d.k), "");
}

TEST(IrVerifier, ThreadIdInBodyAndPrologueOnly) {
    OneDim d;
    auto t = var("t", DType::i64, 1);
    d.k.locals = {t};
    d.k.prologue = {Assign::make(t, ThreadId::make())};
    EXPECT_EQ(verify_error(d.k), "");
    d.k.prologue = {};
    d.k.dims[0].end = ThreadId::make();
    EXPECT_VERIFY_FAILS(d.k, "thread_id outside the parallel body and prologue");
}

TEST(IrVerifier, MessageNamesPassAndKernel) {
    OneDim d;
    d.k.body = {Break::make()};
    std::string msg = verify_error(d.k);
    EXPECT_NE(msg.find("after test"), std::string::npos) << msg;
    EXPECT_NE(msg.find("kernel 'k'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tack::ir
