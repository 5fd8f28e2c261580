// Texture sampling for targets without texture hardware (CONTRACT A39, E5): each `x = sample(t,
// u, v, w)` whose texture the target samples in software becomes trilinear interpolation over
// the texture's private f32 storage, shape (D, H, W) with x fastest, inline. Extents come from
// the node (constants once specialized, so they are baked in). Normalized coordinates put 0 and
// 1 at the centres of the first and last texels and are clamped to [0, 1], so every load is in
// bounds, NaN included (IR Max/Min return the other operand).
//
// The statements are the ones sema emitted before TexSample existed, in the same order and
// with the same temporaries, so CPU and OpenCL results are bit-identical to that form: in
// particular `a * (1 - t) + b * t` is one expression (exactly a at t = 0, b at t = 1) and the
// scaled coordinate is a variable of its own, so no target contracts it with the subtraction.

#include <algorithm>

#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;

ExprPtr f32_imm(double v, SourceRange r) {
    return FloatImm::make(DType::f32, v, r);
}
ExprPtr i64_imm(int64_t v, SourceRange r) {
    return IntImm::make_i64(v, r);
}
ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b, SourceRange r) {
    return Binary::make(op, std::move(a), std::move(b), r);
}

// The largest Var or Buffer id in the kernel: new temporaries are numbered after it.
struct MaxId : IRVisitor {
    int max = 0;
    void var(const VarPtr& v) {
        if (v) max = std::max(max, v->id);
    }
    void visit(const VarRef* n) override { var(n->var); }
    void visit(const Assign* n) override {
        var(n->var);
        IRVisitor::visit(n);
    }
    void visit(const For* n) override {
        var(n->var);
        IRVisitor::visit(n);
    }
    void visit(const AllocArray* n) override { max = std::max(max, n->buffer->id); }
};

class Expand : public IRMutator {
  public:
    Expand(Kernel& k, const TextureInHardware& in_hardware) : k_(k), in_hardware_(in_hardware) {
        MaxId m;
        m.visit_kernel(k);
        for (const auto& p : k.params) {
            m.var(p.scalar);
            if (p.buffer) m.max = std::max(m.max, p.buffer->id);
        }
        for (const auto& d : k.dims)
            m.var(d.var);
        for (const auto& v : k.locals)
            m.var(v);
        next_id_ = m.max + 1;
    }

    using IRMutator::mutate;
    Block mutate(const Block& b) override {
        Block out;
        for (const auto& s : b) {
            const auto* a = s->as<Assign>();
            const auto* t = a ? a->value->as<TexSample>() : nullptr;
            if (t && !hardware(*t)) {
                out.push_back(Assign::make(a->var, software(*t, out), a->range));
            } else if (StmtPtr m = mutate(s)) {
                out.push_back(std::move(m));
            }
        }
        return out;
    }

  private:
    struct Axis {
        ExprPtr i0, i1;  // i64 texel indices, in [0, n)
        ExprPtr t;       // f32 weight of i1
    };

    bool hardware(const TexSample& t) const {
        if (!in_hardware_) return false;
        std::array<int64_t, 3> whd{};
        for (int i = 0; i < 3; ++i) {
            const auto* c = t.extent[i]->as<IntImm>();
            if (!c) return false;  // unspecialized (the template): software
            whd[i] = c->as_signed();
        }
        return in_hardware_(whd);
    }

    ExprPtr materialize(ExprPtr e, Block& out) {
        if (e->as<IntImm>() || e->as<FloatImm>() || e->as<VarRef>()) return e;
        auto v = std::make_shared<const Var>(Var{"tmp", e->type, next_id_++, e->range});
        k_.locals.push_back(v);
        out.push_back(Assign::make(v, e, e->range));
        return VarRef::make(v, e->range);
    }

    Axis axis(const ExprPtr& coord, const ExprPtr& extent, Block& out) {
        SourceRange r = coord->range;
        ExprPtr n = materialize(extent, out);
        ExprPtr last = materialize(bin(BinaryOp::Sub, n, i64_imm(1, r), r), out);
        ExprPtr c =
            bin(BinaryOp::Min, bin(BinaryOp::Max, coord, f32_imm(0, r), r), f32_imm(1, r), r);
        ExprPtr x = materialize(bin(BinaryOp::Mul, c, Cast::make(DType::f32, last, r), r), out);
        // i0 = min(floor(x), n - 2), never below 0: the pair (i0, i0 + 1) straddles x; a
        // one-texel axis uses texel 0 twice.
        ExprPtr hi = bin(BinaryOp::Max, bin(BinaryOp::Sub, n, i64_imm(2, r), r), i64_imm(0, r), r);
        ExprPtr i0 = materialize(bin(BinaryOp::Min, Cast::make(DType::i64, x, r), hi, r), out);
        ExprPtr i1 =
            materialize(bin(BinaryOp::Min, bin(BinaryOp::Add, i0, i64_imm(1, r), r), last, r), out);
        ExprPtr t = materialize(bin(BinaryOp::Sub, x, Cast::make(DType::f32, i0, r), r), out);
        return Axis{i0, i1, t};
    }

    ExprPtr software(const TexSample& s, Block& out) {
        SourceRange r = s.range;
        // Each coordinate is read once, by its axis, in u, v, w order (as sema evaluated them).
        Axis ax = axis(s.coord[0], s.extent[0], out), ay = axis(s.coord[1], s.extent[1], out),
             az = axis(s.coord[2], s.extent[2], out);
        const ExprPtr &w = s.extent[0], &h = s.extent[1];
        auto texel = [&](const ExprPtr& k, const ExprPtr& j, const ExprPtr& i) {
            ExprPtr row = bin(BinaryOp::Add, bin(BinaryOp::Mul, k, h, r), j, r);
            return Load::make(s.texture, bin(BinaryOp::Add, bin(BinaryOp::Mul, row, w, r), i, r),
                              r);
        };
        auto lerp = [&](ExprPtr a, ExprPtr b, const ExprPtr& t) {
            // a * (1 - t) + b * t: exactly a at t = 0 and exactly b at t = 1 (a texel centre).
            ExprPtr one_minus = bin(BinaryOp::Sub, f32_imm(1, r), t, r);
            return bin(BinaryOp::Add, bin(BinaryOp::Mul, a, one_minus, r),
                       bin(BinaryOp::Mul, b, t, r), r);
        };
        auto plane = [&](const ExprPtr& k) {
            ExprPtr y0 =
                materialize(lerp(texel(k, ay.i0, ax.i0), texel(k, ay.i0, ax.i1), ax.t), out);
            ExprPtr y1 =
                materialize(lerp(texel(k, ay.i1, ax.i0), texel(k, ay.i1, ax.i1), ax.t), out);
            return materialize(lerp(y0, y1, ay.t), out);
        };
        ExprPtr z0 = plane(az.i0), z1 = plane(az.i1);
        return lerp(z0, z1, az.t);
    }

    Kernel& k_;
    const TextureInHardware& in_hardware_;
    int next_id_ = 0;
};

}  // namespace

Kernel lower_textures(Kernel k, const TextureInHardware& in_hardware) {
    Expand e(k, in_hardware);
    // Not mutate_kernel: the mutator appends to k.locals while it runs.
    k.prologue = e.mutate(k.prologue);
    k.body = e.mutate(k.body);
    return k;
}

}  // namespace tack::passes
