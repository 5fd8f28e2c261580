// debug_checks on hand-built IR: where checks go (never above the condition that guards their
// operand), what is guarded, the record, and what is left alone.

#include <gtest/gtest.h>

#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using namespace tack::ir::test;

// The record writes of site `site` with one value `v`, at `indent`.
std::string record(const std::string& indent, int site, const std::string& v) {
    return indent + "debug_first.2 = atomic_max debug_errors[0i64], 1i32\n" + indent +
           "if (i32 eq debug_first.2 0i32):\n" + indent +
           "  store debug_errors[1i64] = " + std::to_string(site) + "i32\n" + indent +
           "  store debug_errors[2i64] = (i32 cast " + v + ")\n" + indent +
           "  store debug_errors[3i64] = (i32 cast (i64 shr " + v + " 32i64))\n";
}

TEST(DebugChecks, AGuardedOperandIsCheckedUnderItsCondition) {
    // x[i] = (i < 4) ? x[i + 8] : 0
    OneDim d;
    auto cond = Compare::make(CompareOp::Lt, vref(d.i), i64c(4));
    d.k.body = {Store::make(
        d.x, vref(d.i),
        Select::make(cond, Load::make(d.x, bin(BinaryOp::Add, vref(d.i), i64c(8))), f32c(0)))};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    EXPECT_EQ(print(c.kernel),
              "kernel k(x: f32[1], debug_errors: i32[1], debug_x_dim0.5: i64)\n"
              "  locals debug_first.2: i32, debug_select.3: f32, debug_value.4: i64, "
              "debug_in_bounds.6: i32, debug_in_bounds.7: i32\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n"
              "    if (i32 lt i.0 4i64):\n"
              "      debug_value.4 = (i64 add i.0 8i64)\n"
              "      debug_in_bounds.6 = (i32 bitand (i32 ge debug_value.4 0i64) (i32 lt "
              "debug_value.4 debug_x_dim0.5))\n"
              "      if (i32 eq debug_in_bounds.6 0i32):\n" +
                  record("        ", 1, "debug_value.4") +
                  "      debug_select.3 = (f32 select debug_in_bounds.6 (f32 load "
                  "x[debug_value.4]) 0f32)\n"
                  "    else:\n"
                  "      debug_select.3 = 0f32\n"
                  "    debug_in_bounds.7 = (i32 bitand (i32 ge i.0 0i64) (i32 lt i.0 "
                  "debug_x_dim0.5))\n"
                  "    if (i32 eq debug_in_bounds.7 0i32):\n" +
                  record("      ", 2, "i.0") +
                  "    if debug_in_bounds.7:\n"
                  "      store x[i.0] = debug_select.3\n");
    ASSERT_EQ(c.sites.size(), 2u);
    EXPECT_EQ(c.sites[0].kind, CheckSite::Kind::Read);
    EXPECT_EQ(c.sites[1].kind, CheckSite::Kind::Write);
    EXPECT_EQ(c.errors_param, 1);
    EXPECT_EQ(c.extents, (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST(DebugChecks, TheRightOperandOfAndIsCheckedOnlyWhenReached) {
    OneDim d;
    auto v = var("v", DType::i32, 1);
    d.k.locals = {v};
    auto rhs = Compare::make(CompareOp::Gt, Load::make(d.x, bin(BinaryOp::Add, vref(d.i), i64c(1))),
                             f32c(0));
    d.k.body = {Assign::make(
        v, Logical::make(LogicalOp::And, Compare::make(CompareOp::Lt, vref(d.i), i64c(3)), rhs))};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    ASSERT_EQ(c.kernel.body.size(), 2u);
    const auto* branch = c.kernel.body[0]->as<If>();
    ASSERT_NE(branch, nullptr);  // if (i < 3) { check; v' = 1 && x[i+1] > 0 } else { v' = 0 }
    EXPECT_EQ(print(branch->cond), "(i32 lt i.0 3i64)");
    EXPECT_GT(branch->then_body.size(), 1u);
    ASSERT_EQ(branch->else_body.size(), 1u);
    EXPECT_EQ(print(branch->else_body[0]->as<Assign>()->value), "0i32");
}

TEST(DebugChecks, AWhileConditionIsCheckedAtEveryIteration) {
    // while x[j] > 0: j += 1
    OneDim d;
    auto j = var("j", DType::i64, 1);
    d.k.locals = {j};
    d.k.body = {Assign::make(j, vref(d.i)),
                While::make(Compare::make(CompareOp::Gt, Load::make(d.x, vref(j)), f32c(0)),
                            {Assign::make(j, bin(BinaryOp::Add, vref(j), i64c(1)))})};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    const auto* loop = c.kernel.body.at(1)->as<While>();
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(print(loop->cond), "1i32");
    // the check, the record's if, `if not cond: break`, then the body
    ASSERT_EQ(loop->body.size(), 4u);
    const auto* exit = loop->body[2]->as<If>();
    ASSERT_NE(exit, nullptr);
    ASSERT_EQ(exit->then_body.size(), 1u);
    EXPECT_NE(exit->then_body[0]->as<Break>(), nullptr);
}

TEST(DebugChecks, DivisorsThatCannotBeZeroAreNotChecked) {
    OneDim d(DType::i32);
    auto k = var("k", DType::i32, 1);
    auto v = var("v", DType::i32, 2);
    d.k.params.push_back(scalar_param(k));
    d.k.locals = {v};
    auto a = vref(k);
    d.k.body = {Assign::make(v, bin(BinaryOp::FloorDiv, a, i32c(3))),
                Assign::make(v, bin(BinaryOp::Mod, vref(v), i32c(0))),
                Assign::make(v, bin(BinaryOp::FloorDiv, vref(v), vref(k)))};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    ASSERT_EQ(c.sites.size(), 2u);  // `% 0` and `// k`; `// 3` cannot fail
    EXPECT_EQ(c.sites[0].kind, CheckSite::Kind::Mod);
    EXPECT_EQ(c.sites[1].kind, CheckSite::Kind::FloorDiv);
    EXPECT_EQ(c.sites[1].dtype, DType::i32);
    EXPECT_EQ(c.errors_param, 2);
    EXPECT_TRUE(c.extents.empty());
}

TEST(DebugChecks, APrologueViolationWaitsForTheBody) {
    OneDim d;
    auto first = var("first", DType::f32, 1);
    d.k.locals = {first};
    d.k.prologue = {Assign::make(first, Load::make(d.x, i64c(5)))};
    d.k.body = {Store::make(d.x, vref(d.i), vref(first))};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");  // the prologue may not store: the record is written later
    std::string ir = print(c.kernel);
    std::string prologue = ir.substr(0, ir.find("parallel"));
    EXPECT_EQ(prologue.find("store"), std::string::npos) << ir;
    EXPECT_EQ(prologue.find("atomic"), std::string::npos) << ir;
    const auto* flush = c.kernel.body.at(0)->as<If>();
    ASSERT_NE(flush, nullptr) << ir;
    EXPECT_EQ(print(flush->cond), "(i32 ne debug_pending_site.6 0i32)");
}

TEST(DebugChecks, LocalArraysUseTheirSize) {
    OneDim d;
    auto t = local_array("t", DType::f32, 4, 1);
    d.k.body = {AllocArray::make(t), Store::make(t, vref(d.i), f32c(1)),
                Store::make(d.x, vref(d.i), Load::make(t, i64c(0)))};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    ASSERT_EQ(c.sites.size(), 3u);
    EXPECT_EQ(c.sites[0].buffer, t);
    EXPECT_TRUE(c.sites[0].per_axis);
    EXPECT_NE(print(c.kernel).find("(i32 lt i.0 4i64)"), std::string::npos);
    EXPECT_EQ(c.extents, (std::vector<std::pair<int, int>>{{0, 0}}));  // x's only
}

TEST(DebugChecks, AtomicsAreSkippedWithAZeroOldValue) {
    OneDim d(DType::i32);
    auto old = var("old", DType::i32, 1);
    d.k.locals = {old};
    d.k.body = {Atomic::make(AtomicOp::Add, d.x, vref(d.i), i32c(1), old)};
    DebugChecked c = debug_checks(d.k);
    verify(c.kernel, "test");
    const auto* guarded = c.kernel.body.back()->as<If>();
    ASSERT_NE(guarded, nullptr);
    ASSERT_EQ(guarded->else_body.size(), 1u);
    const auto* zero = guarded->else_body[0]->as<Assign>();
    ASSERT_NE(zero, nullptr);
    EXPECT_EQ(zero->var, old);
    EXPECT_EQ(print(zero->value), "0i32");
}

}  // namespace
}  // namespace tack::passes
