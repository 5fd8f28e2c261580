// Textures (CONTRACT A39): `tex.sample(u, v, w)` is trilinear interpolation over the texture's
// private f32 storage, shape (D, H, W) with x fastest, emitted inline on every backend (the
// software form; extents are array dims, which specialization bakes in as constants).
// Normalized coordinates put 0 and 1 at the centres of the first and last texels and are
// clamped to [0, 1], so every load is in bounds, NaN included (max/min return the other operand).
#include "sema/lower_context.hpp"

namespace tack::sema::lower {

namespace {

struct Axis {
    ir::ExprPtr i0, i1;  // i64 texel indices, in [0, n)
    ir::ExprPtr t;       // f32 weight of i1
};

ir::ExprPtr f32_imm(double v, SourceRange r) {
    return ir::FloatImm::make(DType::f32, v, r);
}

ir::ExprPtr i64_imm(int64_t v, SourceRange r) {
    return ir::IntImm::make_i64(v, r);
}

ir::ExprPtr bin(ir::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) {
    return ir::Binary::make(op, std::move(a), std::move(b), r);
}

}  // namespace

Val Lowerer::lower_sample(const ast::Call& e, const Binding& tex, ir::Block& out) {
    if (e.args.size() != 3) {
        type_error("sample() takes 3 arguments (u, v, w) but " + std::to_string(e.args.size()) +
                       " were given",
                   e.range);
    }
    std::vector<const ast::Expr*> es = {e.args[0].get(), e.args[1].get(), e.args[2].get()};
    std::vector<ir::ExprPtr> uvw = lower_operands(es, out, DType::f32);
    SourceRange r = e.range;
    // uvw[0] runs along x (the last, fastest storage dimension), uvw[2] along z (the first).
    auto axis = [&](const ir::ExprPtr& coord, int dim) {
        ir::ExprPtr n = materialize(array_extent(tex.buffer, dim, r), out);
        ir::ExprPtr last = materialize(bin(ir::BinaryOp::Sub, n, i64_imm(1, r), r), out);
        ir::ExprPtr c = bin(ir::BinaryOp::Min,
                            bin(ir::BinaryOp::Max, convert(coord, DType::f32), f32_imm(0, r), r),
                            f32_imm(1, r), r);
        ir::ExprPtr x =
            materialize(bin(ir::BinaryOp::Mul, c, ir::Cast::make(DType::f32, last, r), r), out);
        // i0 = min(floor(x), n - 2), never below 0: the pair (i0, i0 + 1) straddles x; a
        // one-texel axis uses texel 0 twice.
        ir::ExprPtr hi =
            bin(ir::BinaryOp::Max, bin(ir::BinaryOp::Sub, n, i64_imm(2, r), r), i64_imm(0, r), r);
        ir::ExprPtr i0 =
            materialize(bin(ir::BinaryOp::Min, ir::Cast::make(DType::i64, x, r), hi, r), out);
        ir::ExprPtr i1 = materialize(
            bin(ir::BinaryOp::Min, bin(ir::BinaryOp::Add, i0, i64_imm(1, r), r), last, r), out);
        ir::ExprPtr t =
            materialize(bin(ir::BinaryOp::Sub, x, ir::Cast::make(DType::f32, i0, r), r), out);
        return Axis{i0, i1, t};
    };
    Axis ax = axis(uvw[0], 2), ay = axis(uvw[1], 1), az = axis(uvw[2], 0);
    ir::ExprPtr w = array_extent(tex.buffer, 2, r), h = array_extent(tex.buffer, 1, r);
    auto texel = [&](const ir::ExprPtr& k, const ir::ExprPtr& j, const ir::ExprPtr& i) {
        ir::ExprPtr row = bin(ir::BinaryOp::Add, bin(ir::BinaryOp::Mul, k, h, r), j, r);
        return ir::Load::make(tex.buffer,
                              bin(ir::BinaryOp::Add, bin(ir::BinaryOp::Mul, row, w, r), i, r), r);
    };
    auto lerp = [&](ir::ExprPtr a, ir::ExprPtr b, const ir::ExprPtr& t) {
        // a * (1 - t) + b * t: exactly a at t = 0 and exactly b at t = 1 (a texel centre).
        ir::ExprPtr s = bin(ir::BinaryOp::Sub, f32_imm(1, r), t, r);
        return bin(ir::BinaryOp::Add, bin(ir::BinaryOp::Mul, a, s, r),
                   bin(ir::BinaryOp::Mul, b, t, r), r);
    };
    auto plane = [&](const ir::ExprPtr& k) {
        ir::ExprPtr y0 =
            materialize(lerp(texel(k, ay.i0, ax.i0), texel(k, ay.i0, ax.i1), ax.t), out);
        ir::ExprPtr y1 =
            materialize(lerp(texel(k, ay.i1, ax.i0), texel(k, ay.i1, ax.i1), ax.t), out);
        return materialize(lerp(y0, y1, ay.t), out);
    };
    ir::ExprPtr z0 = plane(az.i0), z1 = plane(az.i1);
    return Val::of(lerp(z0, z1, az.t));
}

}  // namespace tack::sema::lower
