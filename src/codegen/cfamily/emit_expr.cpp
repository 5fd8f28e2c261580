// Expressions. Every node is emitted fully parenthesized with its IR type made explicit where
// C's usual arithmetic conversions would change it (narrow integers promote to int; C++
// dialects make comparisons bool).
//
// Contraction. The IR permits contracting a product into an add of the same expression tree
// but not across a variable (ir.hpp SEMANTICS, CONTRACT B23). NVRTC under --fmad=true fuses
// across statements, so on CUDA a float product whose consumer is anything but an add/sub of
// the same tree (an assignment, a store, a call argument, a select arm, a cast) is spelled
// __fmul_rn/__dmul_rn, which NVVM never contracts; a product feeding an add stays `*` and may
// become an FMA, as permitted. Only products need this: an add alone is never fused with a
// later statement. HIP keeps contraction within expressions with -ffp-contract=on (its __fmul_rn
// is a plain product, so spelling cannot help there), OpenCL with FP_CONTRACT OFF.
#include <string>

#include "codegen/cfamily/emitter_impl.hpp"
#include "diag/diagnostic.hpp"
#include "ir/eval.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::cfamily::detail {

std::string Emitter::expr(const ir::ExprPtr& e, bool fusable) {
    return ir::dispatch(*e, [&](const auto* n) { return emit_node(n, fusable); });
}

namespace {
const char* compare_symbol(ir::CompareOp op) {
    static constexpr const char* kSym[] = {"==", "!=", "<", "<=", ">", ">="};
    return kSym[static_cast<int>(op)];
}
bool narrow(DType t) {
    return is_integer(t) && bits(t) < 32;
}
}  // namespace

std::string Emitter::truthy(const ir::ExprPtr& e) {
    // Compare and Logical already produce a C truth value; anything else is true when != 0
    // (for floats `x != 0` is unordered, so NaN is true as the IR requires).
    if (const auto* c = e->as<ir::Compare>())
        return "(" + expr(c->a) + " " + compare_symbol(c->op) + " " + expr(c->b) + ")";
    if (const auto* u = e->as<ir::Unary>(); u && u->op == ir::UnaryOp::Not)
        return "(!" + truthy(u->a) + ")";
    if (const auto* l = e->as<ir::Logical>())
        return "(" + truthy(l->a) + (l->op == ir::LogicalOp::And ? " && " : " || ") + truthy(l->b) +
               ")";
    return "(" + expr(e) + " != 0)";
}

std::string Emitter::emit_node(const ir::IntImm* n, bool) {
    return int_literal(d_, n->type, n->bits);
}

std::string Emitter::emit_node(const ir::FloatImm* n, bool) {
    return float_literal(d_, n->type, n->value);
}

std::string Emitter::emit_node(const ir::VarRef* n, bool) {
    return var(*n->var);
}

std::string Emitter::emit_node(const ir::ArrayDim* n, bool) {
    throw diag::InternalError("internal error: array extent of '" + n->buffer->name +
                              "' reached the C generator unspecialized");
}

std::string Emitter::emit_node(const ir::Cast* n, bool) {
    DType from = n->value->type, to = n->type;
    std::string v = expr(n->value);
    if (from == to) return v;
    if (is_float(from) && is_integer(to))
        return use(float_to_int_helper(d_, to, from)) + "(" + v + ")";
    // int->int reduces modulo 2^N and widens by the source's signedness, exactly C's
    // conversions; int->float and f64->f32 round to nearest.
    return "((" + type(to) + ")" + v + ")";
}

std::string Emitter::emit_node(const ir::Unary* n, bool fusable) {
    DType t = n->type;
    switch (n->op) {
        case ir::UnaryOp::Neg:
            if (is_float(t)) return "(-" + expr(n->a, fusable) + ")";
            return use_int(IntOp::Neg, t) + "(" + expr(n->a) + ")";
        case ir::UnaryOp::BitNot:
            return "((" + type(t) + ")~" + expr(n->a) + ")";
        case ir::UnaryOp::Not:
            return "((int)!" + truthy(n->a) + ")";
    }
    throw diag::InternalError("internal error: corrupt unary operator");
}

std::string Emitter::emit_node(const ir::Binary* n, bool fusable) {
    return is_float(n->type) ? float_binary(n, fusable) : int_binary(n);
}

std::string Emitter::float_binary(const ir::Binary* n, bool fusable) {
    DType t = n->type;
    using Op = ir::BinaryOp;
    auto call = [&](const std::string& fn) {
        return fn + "(" + expr(n->a) + ", " + expr(n->b) + ")";
    };
    switch (n->op) {
        case Op::Add:
            return "(" + expr(n->a, true) + " + " + expr(n->b, true) + ")";
        case Op::Sub:
            return "(" + expr(n->a, true) + " - " + expr(n->b, true) + ")";
        case Op::Mul: {
            std::string_view rn = t == DType::f32 ? d_.fmul_rn_f32 : d_.fmul_rn_f64;
            std::string a = expr(n->a), b = expr(n->b);
            if (fusable || rn.empty()) return "(" + a + " * " + b + ")";
            return fill(rn, {{"a", a}, {"b", b}});
        }
        case Op::Div:
            return "(" + expr(n->a) + " / " + expr(n->b) + ")";
        case Op::FloorDiv:
            return call(use(float_divmod_helper(d_, true, t)));
        case Op::Mod:
            return call(use(float_divmod_helper(d_, false, t)));
        case Op::Pow:
            return call(math_name(d_, "pow", t));
        // fmin/fmax return the other operand when exactly one is NaN (CONTRACT B22).
        case Op::Min:
            return call(math_name(d_, "fmin", t));
        case Op::Max:
            return call(math_name(d_, "fmax", t));
        default:
            break;
    }
    throw diag::InternalError("internal error: integer operator on a float in the C generator");
}

std::string Emitter::int_binary(const ir::Binary* n) {
    DType t = n->type;
    using Op = ir::BinaryOp;
    std::string a = expr(n->a), b = expr(n->b);
    auto call = [&](IntOp op, const std::string& rhs) {
        return use_int(op, t) + "(" + a + ", " + rhs + ")";
    };
    // u32/u64 arithmetic wraps natively in C and needs no carrier.
    bool wide_unsigned = !is_signed(t) && bits(t) >= 32;
    auto wrap = [&](IntOp op, const char* sym) {
        return wide_unsigned ? "(" + a + " " + sym + " " + b + ")" : call(op, b);
    };
    auto bitwise = [&](const char* sym) {
        std::string v = "(" + a + " " + sym + " " + b + ")";
        return narrow(t) ? "((" + type(t) + ")" + v + ")" : v;
    };
    switch (n->op) {
        case Op::Add:
            if (loop_depth_ > 0 && bits(t) == 64 && !d_.loop_add64_decl.empty())
                return use(loop_add64_helper(d_, t)) + "(" + a + ", " + b + ")";
            return wrap(IntOp::Add, "+");
        case Op::Sub:
            return wrap(IntOp::Sub, "-");
        case Op::Mul:
            return wrap(IntOp::Mul, "*");
        case Op::FloorDiv:
            return call(IntOp::FloorDiv, b);
        case Op::Mod:
            return call(IntOp::Mod, b);
        case Op::Min:
            return call(IntOp::Min, b);
        case Op::Max:
            return call(IntOp::Max, b);
        case Op::BitAnd:
            return bitwise("&");
        case Op::BitOr:
            return bitwise("|");
        case Op::BitXor:
            return bitwise("^");
        case Op::Shl:
            return call(IntOp::Shl, "(" + type(DType::u32) + ")" + b);
        case Op::Shr:
            return call(IntOp::Shr, "(" + type(DType::u32) + ")" + b);
        case Op::Pow: {
            // The exponent's own bit pattern, zero-extended from its width (B16).
            DType e = n->b->type;
            DType ue = is_signed(e) ? static_cast<DType>(static_cast<int>(e) + 1) : e;
            std::string bits64 = "(" + type(DType::u64) + ")(" + type(ue) + ")" + b;
            return call(IntOp::Pow, bits64);
        }
        case Op::Div:
            break;
    }
    throw diag::InternalError("internal error: float division on integers in the C generator");
}

std::string Emitter::emit_node(const ir::Compare* n, bool) {
    return "((int)(" + expr(n->a) + " " + compare_symbol(n->op) + " " + expr(n->b) + "))";
}

std::string Emitter::emit_node(const ir::Logical* n, bool) {
    // C's && and || evaluate the right operand only when needed, as the IR requires.
    return "((int)(" + truthy(n->a) + (n->op == ir::LogicalOp::And ? " && " : " || ") +
           truthy(n->b) + "))";
}

std::string Emitter::emit_node(const ir::Select* n, bool) {
    // ?: evaluates only the chosen arm, so a guarded out-of-bounds load never executes.
    std::string v = "(" + truthy(n->cond) + " ? " + expr(n->a) + " : " + expr(n->b) + ")";
    return narrow(n->type) ? "((" + type(n->type) + ")" + v + ")" : v;
}

std::string Emitter::emit_node(const ir::Load* n, bool) {
    return buf(*n->buffer) + "[" + expr(n->index) + "]";
}

std::string Emitter::emit_node(const ir::TableLoad* n, bool) {
    // Each table is declared once, in the prelude, in the dialect's constant address space.
    const ir::Table& t = *n->table;
    std::string name = "__tack_table_" + std::to_string(t.id) + "__";
    std::string values;
    for (size_t k = 0; k < t.values.size(); ++k)
        values += (k ? ", " : "") + expr(t.values[k]);
    use(Helper{name, std::string(d_.constant_qual) + " " + type(t.elem) + " " + name + "[" +
                         std::to_string(t.values.size()) + "] = {" + values + "};\n"});
    // An index outside [0, n) reads the last value (ir.hpp).
    std::string index = use(table_index_helper(d_));
    return name + "[" + index + "(" + expr(n->index) + ", " +
           int_literal(d_, DType::i64, t.values.size()) + ")]";
}

// A texture the target samples in hardware (passes::lower_textures expanded every other).
// Samplers put texel i's centre at i + 0.5 in texel units, (i + 0.5) / N normalized, so the
// clamped coordinate c maps to c * (N - 1) + 0.5 (over N where the dialect needs normalized
// coordinates): 0 and 1 land on the first and last centres, as in the software form. Clamping
// first keeps NaN at 0 as the software form does; the sampler's clamp-to-edge does the rest.
std::string Emitter::emit_node(const ir::TexSample* n, bool) {
    if (!d_.texture_sampler.empty()) use(Helper{"tack_sampler", std::string(d_.texture_sampler)});
    ir::SourceRange r = n->range;
    auto f32 = [&](double v) { return ir::FloatImm::make(DType::f32, v, r); };
    // A constant coordinate folds with the IR's own float semantics (ir/eval.hpp).
    auto op = [&](ir::BinaryOp o, const ir::ExprPtr& a, const ir::ExprPtr& b) {
        auto ca = ir::constant_value(a), cb = ir::constant_value(b);
        if (ca && cb) {
            if (auto v = ir::eval_binary(o, *ca, *cb)) return ir::make_constant(*v, r);
        }
        return ir::Binary::make(o, a, b, r);
    };
    std::string xyz[3];
    for (int i = 0; i < 3; ++i) {
        auto extent = static_cast<double>(texture_extent(*n, i));
        ir::ExprPtr c = op(ir::BinaryOp::Min, op(ir::BinaryOp::Max, n->coord[i], f32(0)), f32(1));
        ir::ExprPtr x = op(ir::BinaryOp::Add, op(ir::BinaryOp::Mul, c, f32(extent - 1)), f32(0.5));
        if (d_.texture_normalized) x = op(ir::BinaryOp::Div, x, f32(extent));
        xyz[i] = expr(x);
    }
    return fill(d_.texture_sample,
                {{"t", buf(*n->texture)}, {"x", xyz[0]}, {"y", xyz[1]}, {"z", xyz[2]}});
}

std::string Emitter::emit_node(const ir::Call* n, bool) {
    DType t = n->type;
    if (n->fn == ir::MathFn::Abs && is_integer(t)) {
        if (!is_signed(t)) return expr(n->args[0]);
        return use_int(IntOp::Abs, t) + "(" + expr(n->args[0]) + ")";
    }
    // round() is Python's: halves to even, which is C's rint in the default rounding mode
    // (C's round() would take halves away from zero).
    std::string_view base = n->fn == ir::MathFn::Round ? "rint" : ir::to_string(n->fn);
    if (d_.f64_round_copysign && t == DType::f64 &&
        (n->fn == ir::MathFn::Floor || n->fn == ir::MathFn::Ceil)) {
        std::string x = expr(n->args[0]);  // an expression without effects: read twice
        return "copysign(" + math_name(d_, base, t) + "(" + x + "), " + x + ")";
    }
    std::string out = math_name(d_, base, t) + "(";
    for (size_t i = 0; i < n->args.size(); ++i)
        out += (i ? ", " : "") + expr(n->args[i]);
    return out + ")";
}

std::string Emitter::emit_node(const ir::ThreadId*, bool) {
    return "tack_lid";
}

}  // namespace tack::codegen::cfamily::detail
