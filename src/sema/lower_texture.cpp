// Textures (CONTRACT A39): `tex.sample(u, v, w)` becomes one IR TexSample, assigned to a
// temporary (the only place the IR allows it). Whether it is sampled by texture hardware or by
// the inline software form is the target's choice, made once the extents are known
// (driver::specialize, passes::lower_textures), not here.
#include "sema/lower_context.hpp"

namespace tack::sema::lower {

Val Lowerer::lower_sample(const ast::Call& e, const Binding& tex, ir::Block& out) {
    check_arity(e, builtins::find_method("sample")->signature);
    std::vector<const ast::Expr*> es = {e.args[0].get(), e.args[1].get(), e.args[2].get()};
    std::vector<ir::ExprPtr> uvw = lower_operands(es, out, DType::f32);
    std::array<ir::ExprPtr, 3> coord;
    for (int i = 0; i < 3; ++i)
        coord[i] = convert(uvw[i], DType::f32);
    return Val::of(spill(ir::TexSample::make(tex.buffer, coord, e.range), out));
}

}  // namespace tack::sema::lower
