// lower_textures (CONTRACT A39, E5): a texture sample the target declines becomes the inline
// software form over the texture's storage; one it accepts stays a TexSample.

#include <gtest/gtest.h>

#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "ir/visitor.hpp"
#include "passes/passes.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using namespace tack::ir::test;

// kernel k(tex: f32[3] (D, H, W) = (4, 3, 2), out: f32[1]):
//   parallel i: s = sample(tex, 0.5, f32(i), 1.0); if s > 0: s2 = sample(...) ; out[i] = s + s2
struct Sampling {
    BufferPtr tex = param_array("tex", DType::f32, 3, 0, 0);
    BufferPtr out = param_array("out", DType::f32, 1, 1, 1);
    VarPtr i = var("i", DType::i64, 2);
    VarPtr s = var("s", DType::f32, 3);
    VarPtr s2 = var("s2", DType::f32, 4);
    Kernel k;
    Sampling() {
        k.name = "k";
        k.params = {array_param(tex), array_param(out)};
        k.dims = {LoopDim{i, i64c(0), ArrayDim::make(out, 0), i64c(1)}};
        k.locals = {s, s2};
        auto sample = [&](ExprPtr v) {
            return TexSample::make(tex, {f32c(0.5), std::move(v), f32c(1)},
                                   {i64c(2), i64c(3), i64c(4)});
        };
        k.body = {Assign::make(s, sample(Cast::make(DType::f32, vref(i)))),
                  If::make(Compare::make(CompareOp::Gt, vref(s), f32c(0)),
                           {Assign::make(s2, sample(vref(s)))}, {}),
                  Store::make(out, vref(i), bin(BinaryOp::Add, vref(s), vref(s2)))};
    }
};

struct Census : IRVisitor {
    int samples = 0, texel_loads = 0;
    const Buffer* tex = nullptr;
    void visit(const TexSample* n) override {
        ++samples;
        IRVisitor::visit(n);
    }
    void visit(const Load* n) override {
        texel_loads += n->buffer.get() == tex;
        IRVisitor::visit(n);
    }
};

Census census(const Kernel& k, const BufferPtr& tex) {
    Census c;
    c.tex = tex.get();
    c.visit_kernel(k);
    return c;
}

TEST(LowerTextures, SoftwareExpandsEverySampleInPlace) {
    Sampling t;
    Kernel k = lower_textures(t.k);
    verify(k, "lower_textures");  // new temporaries are listed locals with fresh ids
    Census c = census(k, t.tex);
    EXPECT_EQ(c.samples, 0);
    EXPECT_EQ(c.texel_loads, 16) << "eight texels per sample";
    // The second sample stays inside its `if`, and the result variables are the originals.
    const auto* branch = k.body[k.body.size() - 2]->as<If>();
    ASSERT_NE(branch, nullptr);
    Kernel then_part;
    then_part.body = branch->then_body;
    EXPECT_EQ(census(then_part, t.tex).texel_loads, 8);
    const auto* last = branch->then_body.back()->as<Assign>();
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->var, t.s2);
    EXPECT_GT(k.locals.size(), t.k.locals.size());
    // The optimized software form still verifies and keeps its loads.
    EXPECT_EQ(census(optimize(k), t.tex).texel_loads, 16);
}

TEST(LowerTextures, HardwareKeepsTheSampleAndSeesWidthHeightDepth) {
    Sampling t;
    std::vector<std::array<int64_t, 3>> asked;
    Kernel k = lower_textures(t.k, [&](const std::array<int64_t, 3>& whd) {
        asked.push_back(whd);
        return true;
    });
    EXPECT_EQ(print(k), print(t.k));
    EXPECT_EQ(asked, (std::vector<std::array<int64_t, 3>>{{2, 3, 4}, {2, 3, 4}}));
    // Passes leave a TexSample where it is (it is pure, like a load, and never propagated).
    Kernel opt = optimize(k);
    EXPECT_EQ(census(opt, t.tex).samples, 2);
    EXPECT_EQ(census(opt, t.tex).texel_loads, 0);
}

TEST(LowerTextures, TheTemplateIsAlwaysSoftware) {
    // Unspecialized extents: the target cannot be asked, so the software form (with ArrayDims,
    // which specialization then replaces).
    Sampling t;
    Kernel tmpl = t.k;
    tmpl.body = {Assign::make(t.s, TexSample::make(t.tex, {f32c(0), f32c(0), f32c(0)})),
                 Store::make(t.out, vref(t.i), vref(t.s))};
    bool asked = false;
    Kernel k = lower_textures(tmpl, [&](const std::array<int64_t, 3>&) { return asked = true; });
    EXPECT_FALSE(asked);
    EXPECT_EQ(census(k, t.tex).samples, 0);
    auto used = shape_dims_used(tmpl);
    EXPECT_EQ(used, (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {0, 2}}))
        << "a sample's extents key the variant";
}

TEST(LowerTextures, TheVerifierKeepsSamplesAtTheTopOfAnAssignment) {
    Sampling t;
    t.k.body = {Store::make(
        t.out, vref(t.i),
        bin(BinaryOp::Add, f32c(1),
            TexSample::make(t.tex, {f32c(0), f32c(0), f32c(0)}, {i64c(2), i64c(3), i64c(4)})))};
    EXPECT_THROW(verify(t.k, "test"), diag::InternalError);
}

TEST(TexSampleNode, MakeChecksItsOperandsAndPrints) {
    Sampling t;
    std::array<ExprPtr, 3> uvw = {f32c(0.5), f32c(0), f32c(1)};
    std::array<ExprPtr, 3> whd = {i64c(2), i64c(3), i64c(4)};
    EXPECT_THROW(TexSample::make(t.out, uvw, whd), diag::InternalError) << "rank 1";
    EXPECT_THROW(TexSample::make(t.tex, {f64c(0), f32c(0), f32c(0)}, whd), diag::InternalError);
    EXPECT_THROW(TexSample::make(t.tex, uvw, {i32c(2), i64c(3), i64c(4)}), diag::InternalError);
    Kernel k;
    k.name = "k";
    k.params = t.k.params;
    k.locals = {t.s};
    k.body = {Assign::make(t.s, TexSample::make(t.tex, uvw))};
    EXPECT_EQ(print(k),
              "kernel k(tex: f32[3], out: f32[1])\n"
              "  locals s.3: f32\n"
              "  parallel:\n"
              "    s.3 = (f32 sample tex 0.5f32 0f32 1f32 extent dim(tex,2) dim(tex,1) "
              "dim(tex,0))\n");
}

}  // namespace
}  // namespace tack::passes
