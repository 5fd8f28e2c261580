// Expression lowering: names, operators, comparisons, boolean operators, conditional
// expressions and subscripts, for scalar, vector and matrix values (vectors and matrices are
// scalarized here, CONTRACT A28). Calls live in lower_call.cpp; vector constructors, methods,
// components and places in lower_vector.cpp.
#include <algorithm>

#include "sema/lower_context.hpp"

namespace tack::sema::lower {

bool has_load(const ir::Expr& e) {
    switch (e.kind) {
        case ir::ExprKind::Load:
            return true;
        case ir::ExprKind::Cast:
            return has_load(*static_cast<const ir::Cast&>(e).value);
        case ir::ExprKind::Unary:
            return has_load(*static_cast<const ir::Unary&>(e).a);
        case ir::ExprKind::Binary: {
            const auto& b = static_cast<const ir::Binary&>(e);
            return has_load(*b.a) || has_load(*b.b);
        }
        case ir::ExprKind::Compare: {
            const auto& b = static_cast<const ir::Compare&>(e);
            return has_load(*b.a) || has_load(*b.b);
        }
        case ir::ExprKind::Logical: {
            const auto& b = static_cast<const ir::Logical&>(e);
            return has_load(*b.a) || has_load(*b.b);
        }
        case ir::ExprKind::Select: {
            const auto& s = static_cast<const ir::Select&>(e);
            return has_load(*s.cond) || has_load(*s.a) || has_load(*s.b);
        }
        case ir::ExprKind::Call:
            for (const auto& a : static_cast<const ir::Call&>(e).args) {
                if (has_load(*a)) return true;
            }
            return false;
        default:
            return false;
    }
}

namespace {

const ir::BinaryOp kBinaryOps[] = {
    ir::BinaryOp::Add,      ir::BinaryOp::Sub,    ir::BinaryOp::Mul,   ir::BinaryOp::Div,
    ir::BinaryOp::FloorDiv, ir::BinaryOp::Mod,    ir::BinaryOp::Pow,   ir::BinaryOp::Shl,
    ir::BinaryOp::Shr,      ir::BinaryOp::BitAnd, ir::BinaryOp::BitOr, ir::BinaryOp::BitXor,
};

bool has_loads(const Val& v) {
    for (const auto& c : v.c) {
        if (has_load(*c)) return true;
    }
    return false;
}

}  // namespace

// ---- dispatch -------------------------------------------------------------------------------

ir::ExprPtr Lowerer::scalar_of(const Val& v, SourceRange r) const {
    if (v.empty()) fail(ErrorKind::UnsupportedSyntax, "expression has no value", r);
    if (v.shape.is_scalar()) return v.c[0];
    fail(ErrorKind::UnsupportedSyntax,
         "uses a " + v.shape.text() + " where a single value is required" +
             (v.shape.is_vector() ? " (take a component such as v[0] or v.x, or reduce it with "
                                    "sum(), any() or all())"
                                  : " (take an entry such as m[i, j])"),
         r);
}

ir::ExprPtr Lowerer::lower_expr(const ast::Expr& e, ir::Block& out, Hint hint) {
    return scalar_of(lower_value(e, out, hint), e.range);
}

ir::ExprPtr Lowerer::lower_condition(const ast::Expr& e, ir::Block& out, const char* what) {
    Val v = lower_value(e, out);
    if (!v.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax,
             std::string(what) + " has a " + v.shape.text() +
                 " as its condition; reduce it with any(...) or all(...) to the single value a "
                 "condition needs, or pick per component with tack.select(mask, a, b)",
             e.range);
    }
    return scalar_of(v, e.range);
}

Val Lowerer::lower_literal(const ast::Expr& e, Hint hint) {
    if (const auto* l = e.as<ast::IntLit>()) {
        if (l->overflow) type_error("integer literal is outside the range of i64 and u64", e.range);
        return Val::of(int_literal(l->value, e.range));
    }
    if (const auto* f = e.as<ast::FloatLit>())
        return Val::of(float_literal(f->value, hint, e.range));
    const auto& b = static_cast<const ast::BoolLit&>(e);
    return Val::of(ir::IntImm::make(i32, b.value ? 1 : 0, e.range));
}

Val Lowerer::lower_value(const ast::Expr& e, ir::Block& out, Hint hint) {
    using K = ast::ExprKind;
    switch (e.kind) {
        case K::IntLit:
        case K::FloatLit:
        case K::BoolLit:
            return lower_literal(e, hint);
        case K::Name:
            return lower_name(static_cast<const ast::Name&>(e), hint);
        case K::Unary:
            return lower_unary(static_cast<const ast::Unary&>(e), out, hint);
        case K::Binary:
            return lower_binary(static_cast<const ast::Binary&>(e), out, hint);
        case K::BoolOp:
            return lower_boolop(static_cast<const ast::BoolOp&>(e), out);
        case K::Compare:
            return lower_compare(static_cast<const ast::Compare&>(e), out);
        case K::IfExp:
            return lower_ifexp(static_cast<const ast::IfExp&>(e), out, hint);
        case K::Call: {
            Val v = lower_call(static_cast<const ast::Call&>(e), out, hint);
            if (v.empty()) fail(ErrorKind::UnsupportedSyntax, "the call has no value", e.range);
            return v;
        }
        case K::Attribute:
            return lower_attribute(static_cast<const ast::Attribute&>(e), out, hint);
        case K::Subscript:
            return lower_subscript(static_cast<const ast::Subscript&>(e), out, hint);
        case K::List: {
            std::vector<const ast::Expr*> elts;
            for (const auto& x : static_cast<const ast::List&>(e).elts)
                elts.push_back(x.get());
            return lower_list(elts, out, hint, e.range, "the list");
        }
        case K::StrLit:
            fail(ErrorKind::UnsupportedSyntax, "unsupported string constant used as a value",
                 e.range);
        case K::Tuple:
            fail(ErrorKind::UnsupportedSyntax,
                 "tuple used as a value (only as an assignment or return value; write a vector "
                 "as tack.Vector([...]) or [...])",
                 e.range);
        case K::Unsupported:
            fail(ErrorKind::UnsupportedSyntax,
                 "unsupported " + static_cast<const ast::Unsupported&>(e).what, e.range);
        default:
            fail(ErrorKind::UnsupportedSyntax, "unsupported expression", e.range);
    }
}

std::vector<Val> Lowerer::lower_values(const std::vector<const ast::Expr*>& es, ir::Block& out,
                                       Hint hint) {
    std::vector<Val> vals(es.size());
    std::vector<bool> weak(es.size());
    std::vector<size_t> done;  // strong operands lowered so far
    for (size_t k = 0; k < es.size(); ++k) {
        weak[k] = is_weak(*es[k]);
        if (weak[k]) continue;
        ir::Block tmp;
        vals[k] = lower_value(*es[k], tmp);
        if (!tmp.empty()) {
            // B25: earlier operands are evaluated before this one's statements run.
            for (size_t j : done) {
                if (has_loads(vals[j])) vals[j] = keep(vals[j], out);
            }
            out.insert(out.end(), tmp.begin(), tmp.end());
        }
        done.push_back(k);
    }
    if (!hint) {
        for (size_t j : done) {
            DType t = vals[j].type();
            if (!is_float(t)) continue;
            if (!hint || t == f64) hint = t;
        }
    }
    for (size_t k = 0; k < es.size(); ++k) {
        if (weak[k]) vals[k] = lower_value(*es[k], out, hint);
    }
    return vals;
}

std::vector<ir::ExprPtr> Lowerer::lower_operands(const std::vector<const ast::Expr*>& es,
                                                 ir::Block& out, Hint hint) {
    std::vector<Val> vals = lower_values(es, out, hint);
    std::vector<ir::ExprPtr> scalars;
    for (size_t k = 0; k < vals.size(); ++k)
        scalars.push_back(scalar_of(vals[k], es[k]->range));
    return scalars;
}

// ---- names ----------------------------------------------------------------------------------

Val Lowerer::lower_name(const ast::Name& e, Hint hint) {
    if (auto lit = scope_->literal_locals.find(e.id); lit != scope_->literal_locals.end()) {
        ir::Block none;
        return lower_value(*lit->second, none, hint);
    }
    auto it = scope_->names.find(e.id);
    if (it != scope_->names.end()) {
        const Binding& b = it->second;
        if (b.is(Type::Kind::Scalar)) return Val::of(ir::VarRef::make(b.var, e.range));
        if (b.has_components()) {
            Val v{b.shape(), {}};
            for (const auto& var : b.vars)
                v.c.push_back(ir::VarRef::make(var, e.range));
            return v;
        }
        if (b.is_buffer()) {
            type_error("array '" + e.id + "' used as a value (index it)", e.range);
        }
        if (b.is(Type::Kind::Template)) {
            type_error("template '" + e.id +
                           "' used as a value (read its attributes or pass it to a @tack.func)",
                       e.range);
        }
        fail(
            ErrorKind::NameError,
            "name '" + e.id + "' is not defined (a for loop variable's binding ends with its loop)",
            e.range);
    }
    if (scope_->assigned.count(e.id)) {
        // Read before the first assignment in lowering order (e.g. at the top of a loop body).
        std::string key = scope_->key_prefix + e.id;
        Shape shape = types_.shape(key);
        if (!shape.is_scalar()) {
            auto vars = vector_local(e.id, shape, i32, e.range);
            scope_->names[e.id] = Binding::components(vars, shape, key);
            return lower_name(e, hint);
        }
        ir::VarPtr v = local_var(e.id, std::nullopt, e.range);
        scope_->names[e.id] = Binding::scalar(v, key);
        return Val::of(ir::VarRef::make(v, e.range));
    }
    if (auto c = constant_of(e)) return constant_value(*c, hint, e.range);
    fail(ErrorKind::NameError, "name '" + e.id + "' is not defined", e.range);
}

// ---- operators ------------------------------------------------------------------------------

ir::ExprPtr Lowerer::unary(ast::UnaryOp op, ir::ExprPtr a, SourceRange r) const {
    switch (op) {
        case ast::UnaryOp::Pos:
            return a;
        case ast::UnaryOp::Neg:
            if (const auto* f = a->as<ir::FloatImm>()) {
                return ir::FloatImm::make(f->type, -f->value, r);  // exact: a sign flip
            }
            return ir::Unary::make(ir::UnaryOp::Neg, a, r);
        case ast::UnaryOp::Not:
            return ir::Unary::make(ir::UnaryOp::Not, a, r);
        case ast::UnaryOp::Invert:
            if (is_float(a->type)) {
                type_error(
                    std::string("operator ~ requires an integer operand, got ") + name(a->type), r);
            }
            return ir::Unary::make(ir::UnaryOp::BitNot, a, r);
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported unary operator", r);
}

Val Lowerer::lower_unary(const ast::Unary& e, ir::Block& out, Hint hint) {
    const auto* lit = e.operand->as<ast::IntLit>();
    if (e.op == ast::UnaryOp::Neg && lit && !lit->overflow) {
        // B3: a signed literal is classified by its full value (-2147483648 is i32).
        return Val::of(int_literal(-static_cast<__int128>(lit->value), e.range));
    }
    Hint h = is_weak(e) ? hint : std::nullopt;
    Val a = lower_value(*e.operand, out, h);
    // `not mask` acts per component (A31), like every other unary operator.
    return map(a, [&](ir::ExprPtr x) { return unary(e.op, std::move(x), e.range); });
}

Val Lowerer::lower_binary(const ast::Binary& e, ir::Block& out, Hint hint) {
    Hint h = is_weak(e) ? hint : std::nullopt;
    auto v = lower_values({e.lhs.get(), e.rhs.get()}, out, h);
    if (e.op == ast::BinaryOp::MatMul)
        return matmul(std::move(v[0]), std::move(v[1]), out, e.range);
    std::string verb = std::string("operator ") + operator_spelling(e.op);
    return zip(v[0], v[1], out, e.range, verb,
               [&](ir::ExprPtr a, ir::ExprPtr b) { return arith(e.op, a, b, e.range); });
}

ir::ExprPtr Lowerer::arith(ast::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) const {
    using B = ast::BinaryOp;
    // `x @= y` reaches here without lower_binary's check; kBinaryOps has no entry for @
    // (found by fuzz_frontend: the read past the table compiled `s @= x` as `s += x`).
    if (op == B::MatMul) fail(ErrorKind::UnsupportedSyntax, "unsupported operator @ on scalars", r);
    bool ints = is_integer(a->type) && is_integer(b->type);
    if (integer_only(op) && !ints) {
        type_error(integer_operands_message(op, a->type, b->type), r);
    }
    ir::BinaryOp irop = kBinaryOps[static_cast<int>(op)];
    if (op == B::LShift || op == B::RShift) return ir::Binary::make(irop, a, b, r);
    if (op == B::Div && ints) {
        // B15: int / int converts both operands to f32.
        return ir::Binary::make(irop, convert(a, f32), convert(b, f32), r);
    }
    if (op == B::Pow && ints) {
        const auto* imm = b->as<ir::IntImm>();
        if (imm && is_signed(imm->type) && imm->as_signed() < 0) {
            type_error("integer ** with a negative literal exponent (use a float base)", r);
        }
        return ir::Binary::make(irop, a, b, r);  // B16: the base's type
    }
    DType t = promote_or_fail(a->type, b->type, r);
    if (op == B::Pow) {
        return ir::Call::make(ir::MathFn::Pow, {convert(a, t), convert(b, t)}, r);
    }
    return ir::Binary::make(irop, convert(a, t), convert(b, t), r);
}

ir::ExprPtr Lowerer::compare(ast::CompareOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) const {
    static const std::map<ast::CompareOp, ir::CompareOp> kOps = {
        {ast::CompareOp::Eq, ir::CompareOp::Eq}, {ast::CompareOp::NotEq, ir::CompareOp::Ne},
        {ast::CompareOp::Lt, ir::CompareOp::Lt}, {ast::CompareOp::LtE, ir::CompareOp::Le},
        {ast::CompareOp::Gt, ir::CompareOp::Gt}, {ast::CompareOp::GtE, ir::CompareOp::Ge}};
    auto it = kOps.find(op);
    if (it == kOps.end()) {
        fail(ErrorKind::UnsupportedSyntax,
             std::string("unsupported comparison '") + ast::to_string(op) + "'", r);
    }
    DType t = promote_or_fail(a->type, b->type, r);
    return ir::Compare::make(it->second, convert(a, t), convert(b, t), r);
}

// ---- comparisons, boolean operators, conditional expressions --------------------------------

namespace {

ir::ExprPtr bit_and(ir::ExprPtr a, ir::ExprPtr b, SourceRange r) {
    return ir::Binary::make(ir::BinaryOp::BitAnd, std::move(a), std::move(b), r);
}

// A scalar chain `a < b < c` is lazy: later links (and the statements their operands need) run
// only when the earlier links hold (B25). Once an operand is a vector or matrix, every link is
// evaluated and the links are ANDed per component (A31).
struct Chain {
    Lowerer& l;
    const ast::Compare& e;

    Val link(size_t k, const Val& left, const Val& right, ir::Block& cur) {
        auto op = e.ops[k - 1];
        return l.zip(left, right, cur, e.range, "the comparison",
                     [&](ir::ExprPtr a, ir::ExprPtr b) { return l.compare(op, a, b, e.range); });
    }

    // Every remaining link, evaluated eagerly (vector mode); `left` is operand k-1.
    Val eager(size_t k, Val left, ir::Block& cur) {
        Val acc;
        for (; k < e.operands.size(); ++k) {
            Val right = l.lower_value(*e.operands[k], cur);
            if (k + 1 < e.operands.size()) right = l.keep(right, cur);
            Val m = link(k, left, right, cur);
            acc = acc.empty() ? m
                              : l.zip(acc, m, cur, e.range, "the comparison",
                                      [&](ir::ExprPtr a, ir::ExprPtr b) {
                                          return bit_and(l.truth(a), l.truth(b), e.range);
                                      });
            left = right;
        }
        return acc;
    }

    // The conjunction of links k-1..end, where `left` is operand k-1 already lowered into `cur`.
    Val links(size_t k, Val left, ir::Block& cur) {
        const ast::Expr& left_ast = *e.operands[k - 1];
        const ast::Expr& right_ast = *e.operands[k];
        bool left_weak = l.is_weak(left_ast), right_weak = l.is_weak(right_ast);
        if (!left.shape.is_scalar()) return eager(k, left, cur);
        ir::Block tmp;
        Hint h = (!left_weak && is_float(left.type())) ? Hint(left.type()) : std::nullopt;
        Val right = l.lower_value(right_ast, tmp, right_weak ? h : std::nullopt);
        if (left_weak && !right_weak && is_float(right.type())) {
            ir::Block none;
            left = l.lower_value(left_ast, none, right.type());
        }
        if (!tmp.empty() && has_loads(left)) left = l.keep(left, cur);
        cur.insert(cur.end(), tmp.begin(), tmp.end());
        bool last = k + 1 == e.operands.size();
        if (!right.shape.is_scalar()) {
            if (!last) right = l.keep(right, cur);
            Val m = link(k, left, right, cur);
            if (last) return m;
            Val more = eager(k + 1, right, cur);
            return l.zip(m, more, cur, e.range, "the comparison",
                         [&](ir::ExprPtr a, ir::ExprPtr b) {
                             return bit_and(l.truth(a), l.truth(b), e.range);
                         });
        }
        if (!last) right = l.keep(right, cur);  // the middle operand is evaluated once
        ir::ExprPtr lnk = l.compare(e.ops[k - 1], left.c[0], right.c[0], e.range);
        if (last) return Val::of(lnk);
        ir::Block rest;
        Val more = links(k + 1, right, rest);
        if (!more.shape.is_scalar()) {
            cur.insert(cur.end(), rest.begin(), rest.end());
            return l.zip(Val::of(lnk), more, cur, e.range, "the comparison",
                         [&](ir::ExprPtr a, ir::ExprPtr b) {
                             return bit_and(l.truth(a), l.truth(b), e.range);
                         });
        }
        if (rest.empty())
            return Val::of(ir::Logical::make(ir::LogicalOp::And, lnk, more.c[0], e.range));
        // The next link emits statements: run them only when this link holds (B25).
        ir::VarPtr t = l.temp(i32, e.range);
        cur.push_back(ir::Assign::make(t, l.truth(lnk), e.range));
        rest.push_back(ir::Assign::make(t, l.truth(more.c[0]), e.range));
        cur.push_back(ir::If::make(ir::VarRef::make(t, e.range), std::move(rest), {}, e.range));
        return Val::of(ir::VarRef::make(t, e.range));
    }
};

}  // namespace

Val Lowerer::lower_compare(const ast::Compare& e, ir::Block& out) {
    if (e.operands.size() < 2 || e.ops.size() + 1 != e.operands.size()) {
        fail(ErrorKind::UnsupportedSyntax, "malformed comparison", e.range);
    }
    if (e.operands.size() == 2) {
        auto v = lower_values({e.operands[0].get(), e.operands[1].get()}, out);
        return zip(v[0], v[1], out, e.range, "the comparison",
                   [&](ir::ExprPtr a, ir::ExprPtr b) { return compare(e.ops[0], a, b, e.range); });
    }
    Chain chain{*this, e};
    Val first = lower_value(*e.operands[0], out);
    return chain.links(1, first, out);
}

Val Lowerer::lower_boolop(const ast::BoolOp& e, ir::Block& out) {
    auto op = e.op == ast::BoolOpKind::And ? ir::LogicalOp::And : ir::LogicalOp::Or;
    auto combine = [&](ir::ExprPtr a, ir::ExprPtr b) {
        auto bop = op == ir::LogicalOp::And ? ir::BinaryOp::BitAnd : ir::BinaryOp::BitOr;
        return ir::Binary::make(bop, truth(a), truth(b), e.range);
    };
    Val first = lower_value(*e.values.at(0), out);
    if (!first.shape.is_scalar()) {
        // Masks: per component, every operand evaluated (A31).
        Val acc = first;
        for (size_t k = 1; k < e.values.size(); ++k) {
            Val v = lower_value(*e.values[k], out);
            acc = zip(acc, v, out, e.range,
                      std::string("'") + (op == ir::LogicalOp::And ? "and" : "or") + "'", combine);
        }
        return acc;
    }
    ir::ExprPtr acc = first.c[0];
    ir::VarPtr t;
    for (size_t k = 1; k < e.values.size(); ++k) {
        ir::Block tmp;
        Val vv = lower_value(*e.values[k], tmp);
        if (!vv.shape.is_scalar()) {
            out.insert(out.end(), tmp.begin(), tmp.end());
            Val a = Val::of(t ? ir::VarRef::make(t, e.range) : acc);
            Val r = zip(a, vv, out, e.range, "the boolean operator", combine);
            for (size_t j = k + 1; j < e.values.size(); ++j)
                r = zip(r, lower_value(*e.values[j], out), out, e.range, "the boolean operator",
                        combine);
            return r;
        }
        ir::ExprPtr v = vv.c[0];
        if (tmp.empty() && !t) {
            acc = ir::Logical::make(op, acc, v, e.range);
            continue;
        }
        if (!t) {
            t = temp(i32, e.range);
            out.push_back(ir::Assign::make(t, truth(acc), e.range));
        }
        // `t = bool(a); if t: {stmts(b); t = bool(b)}` (the dual for `or`).
        tmp.push_back(ir::Assign::make(t, truth(v), e.range));
        ir::ExprPtr cond = ir::VarRef::make(t, e.range);
        if (op == ir::LogicalOp::And) {
            out.push_back(ir::If::make(cond, std::move(tmp), {}, e.range));
        } else {
            out.push_back(ir::If::make(cond, {}, std::move(tmp), e.range));
        }
    }
    return Val::of(t ? ir::VarRef::make(t, e.range) : acc);
}

void Lowerer::join_arms(ir::ExprPtr* a, ir::ExprPtr* b, SourceRange r) const {
    DType t = promote_or_fail((*a)->type, (*b)->type, r);
    *a = convert(*a, t);
    *b = convert(*b, t);
}

Val Lowerer::lower_ifexp(const ast::IfExp& e, ir::Block& out, Hint hint) {
    ir::ExprPtr cond = lower_condition(*e.cond, out, "the conditional expression");
    Hint h = is_weak(e) ? hint : std::nullopt;
    bool wa = is_weak(*e.then_value), wb = is_weak(*e.else_value);
    ir::Block ba, bb;
    Val a, b;
    if (wa && !wb) {
        b = lower_value(*e.else_value, bb);
        a = lower_value(*e.then_value, ba, is_float(b.type()) ? Hint(b.type()) : h);
    } else {
        a = lower_value(*e.then_value, ba, h);
        b = lower_value(*e.else_value, bb, (wb && !wa && is_float(a.type())) ? Hint(a.type()) : h);
    }
    if (a.shape != b.shape) {
        if (a.shape.is_scalar())
            a = broadcast(a, b.shape, ba);
        else if (b.shape.is_scalar())
            b = broadcast(b, a.shape, bb);
        else {
            fail(ErrorKind::UnsupportedSyntax,
                 "the conditional expression combines a " + a.shape.text() + " and " +
                     b.shape.text(),
                 e.range);
        }
    }
    for (size_t k = 0; k < a.c.size(); ++k)
        join_arms(&a.c[k], &b.c[k], e.range);
    Val result{a.shape, {}};
    if (ba.empty() && bb.empty()) {
        if (a.c.size() > 1) cond = materialize(cond, out);
        for (size_t k = 0; k < a.c.size(); ++k)
            result.c.push_back(ir::Select::make(cond, a.c[k], b.c[k], e.range));
        return result;
    }
    for (size_t k = 0; k < a.c.size(); ++k) {
        ir::VarPtr t = temp(a.c[k]->type, e.range);
        ba.push_back(ir::Assign::make(t, a.c[k], e.range));
        bb.push_back(ir::Assign::make(t, b.c[k], e.range));
        result.c.push_back(ir::VarRef::make(t, e.range));
    }
    out.push_back(ir::If::make(cond, std::move(ba), std::move(bb), e.range));
    return result;
}

// ---- arrays ---------------------------------------------------------------------------------

const Binding* Lowerer::array_binding(const ast::Expr& e) const {
    if (const auto* a = e.as<ast::Attribute>()) {  // a template's field: cfg.grid
        const TemplateMember* m = member_of(*a);
        if (!m || m->kind != TemplateMember::Kind::Field) return nullptr;
        return &arg_bindings_.at(m->arg);
    }
    const auto* n = e.as<ast::Name>();
    if (!n) return nullptr;
    auto it = scope_->names.find(n->id);
    if (it == scope_->names.end() || !it->second.is_buffer()) return nullptr;
    if (it->second.block_ended) {
        fail(ErrorKind::UnsupportedSyntax,
             "local array '" + n->id +
                 "' is used after the loop or if body that allocates it; its storage ends with "
                 "that body: allocate it before the loop or branch",
             e.range);
    }
    return &it->second;
}

const Binding& Lowerer::array_of(const ast::Expr& e, const char* what) const {
    if (const Binding* b = array_binding(e)) return *b;
    std::string n = dotted(e);
    type_error(
        std::string(what) + " needs a field or array" + (n.empty() ? "" : ", got '" + n + "'"),
        e.range);
}

ir::ExprPtr Lowerer::array_extent(const ir::BufferPtr& b, int dim, SourceRange r) const {
    if (b->kind == ir::BufferKind::Param) return ir::ArrayDim::make(b, dim, r);
    return ir::IntImm::make_i64(b->size, r);
}

std::vector<const ast::Expr*> Lowerer::index_list(const ast::Expr& e) const {
    std::vector<const ast::Expr*> idx;
    const auto& s = static_cast<const ast::Subscript&>(e);
    const ast::Tuple* tuple = s.indices.size() == 1 ? s.indices[0]->as<ast::Tuple>() : nullptr;
    if (tuple) {
        for (const auto& x : tuple->elts)
            idx.push_back(x.get());
    } else {
        for (const auto& x : s.indices)
            idx.push_back(x.get());
    }
    return idx;
}

std::vector<ir::ExprPtr> Lowerer::field_indices(const ast::Subscript& s, ir::Block& out) {
    auto es = index_list(s);
    if (es.size() == 1 && es[0]->as<ast::NoneLit>()) {
        return {ir::IntImm::make_i64(0, s.range)};  // f[None]: the one element of a 0-d field
    }
    std::vector<Val> vals = lower_values(es, out);
    if (vals.size() == 1 && vals[0].shape.is_vector()) return vals[0].c;  // A34: grid[cell]
    std::vector<ir::ExprPtr> idx;
    for (size_t k = 0; k < vals.size(); ++k)
        idx.push_back(scalar_of(vals[k], es[k]->range));
    return idx;
}

ir::ExprPtr Lowerer::flat_index(const Binding& a, std::vector<ir::ExprPtr> idx,
                                SourceRange r) const {
    const ir::BufferPtr& b = a.buffer;
    // A float index converts like int() (toward zero, saturating), as the public package
    // does for a field read at `counter[None]` of an f32 counter.
    for (auto& x : idx) {
        if (x->as<ir::FloatImm>()) {
            type_error(std::string("index into '") + b->name + "' must be an integer, got " +
                           name(x->type),
                       x->range.valid() ? x->range : r);
        }
        if (is_float(x->type)) x = convert(x, i64);
    }
    if (idx.size() == 1) return convert(idx[0], i64);
    int rank = b->rank - a.shape().rank();
    if (static_cast<int>(idx.size()) != rank) {
        type_error("'" + b->name + "' has " + std::to_string(rank) +
                       " dimension(s) but is indexed with " + std::to_string(idx.size()) +
                       " indices",
                   r);
    }
    ir::ExprPtr flat = convert(idx[0], i64);
    for (size_t d = 1; d < idx.size(); ++d) {
        ir::ExprPtr scaled =
            ir::Binary::make(ir::BinaryOp::Mul, flat, array_extent(b, static_cast<int>(d), r), r);
        flat = ir::Binary::make(ir::BinaryOp::Add, scaled, convert(idx[d], i64), r);
    }
    return flat;
}

Val Lowerer::lower_subscript(const ast::Subscript& e, ir::Block& out, Hint hint) {
    if (const auto* attr = e.value->as<ast::Attribute>(); attr && attr->attr == "shape") {
        if (array_binding(*attr->value)) return Val::of(lower_shape(e));
    }
    if (const Binding* a = array_binding(*e.value)) {
        if (a->is(Type::Kind::Texture)) {
            fail(ErrorKind::UnsupportedSyntax,
                 "a texture is read with tex.sample(u, v, w), not indexed", e.range);
        }
        if (a->shape().is_scalar()) {
            ir::ExprPtr flat = flat_index(*a, field_indices(e, out), e.range);
            return Val::of(ir::Load::make(a->buffer, flat, e.range));
        }
        Place p = place_of(e, out);
        return read(p, e.range);
    }
    // A typed or integer constant read at a run-time index is one table load (A27); untyped
    // floats keep the select chain: their components are weak literals.
    bool table = false;
    if (auto c = constant_of(*e.value); c && c->kind == Constant::Kind::Tuple) {
        table = c->dtype.has_value() ||
                std::all_of(c->items.begin(), c->items.end(),
                            [](const Constant& x) { return x.kind == Constant::Kind::Int; });
    }
    Val v = lower_value(*e.value, out, hint);
    if (v.shape.is_scalar()) {
        type_error(
            "subscript of a scalar value (only fields, arrays, vectors and matrices can be "
            "indexed)",
            e.range);
    }
    return component(v, e, out, table);
}

ir::ExprPtr Lowerer::lower_shape(const ast::Subscript& e) {
    const auto& attr = static_cast<const ast::Attribute&>(*e.value);
    const Binding& a = array_of(*attr.value, "shape");
    int rank = a.buffer->rank - a.shape().rank();
    std::optional<__int128> k = e.indices.size() == 1 ? static_int(*e.indices[0]) : std::nullopt;
    if (!k) type_error("shape must be indexed with one integer literal", e.range);
    __int128 dim = *k < 0 ? *k + rank : *k;
    if (dim < 0 || dim >= rank) {
        type_error("shape index " + std::to_string(static_cast<long long>(*k)) +
                       " is out of range for '" + a.buffer->name + "' with " +
                       std::to_string(rank) + " dimension(s)",
                   e.range);
    }
    return array_extent(a.buffer, static_cast<int>(dim), e.range);
}

Val Lowerer::lower_attribute(const ast::Attribute& e, ir::Block& out, Hint hint) {
    if (const TemplateMember* m = member_of(e)) {
        using K = TemplateMember::Kind;
        if (m->kind == K::Constant) return constant_value(m->constant, hint, e.range);
        if (m->kind == K::Scalar)
            return Val::of(ir::VarRef::make(arg_bindings_.at(m->arg).var, e.range));
        type_error("'" + dotted(e) + "' is " +
                       (m->kind == K::Field      ? "a field (index it)"
                        : m->kind == K::Template ? "a template (read its attributes)"
                                                 : "a function (call it)"),
                   e.range);
    }
    if (const Binding* b = array_binding(*e.value)) {
        if (e.attr == "size") {
            int rank = b->buffer->rank - b->shape().rank();
            ir::ExprPtr n =
                rank ? array_extent(b->buffer, 0, e.range) : ir::IntImm::make_i64(1, e.range);
            for (int d = 1; d < rank; ++d) {
                n = ir::Binary::make(ir::BinaryOp::Mul, n, array_extent(b->buffer, d, e.range),
                                     e.range);
            }
            return Val::of(n);
        }
        fail(ErrorKind::UnsupportedSyntax,
             "unsupported attribute '" + e.attr + "' of array '" + b->buffer->name + "'", e.range);
    }
    if (auto c = constant_of(e)) return constant_value(*c, hint, e.range);
    if (auto c = constant_of(*e.value); c && c->kind == Constant::Kind::Tuple) {
        return named_component(constant_value(*c, hint, e.range), e.attr, e.range);  // SUN.y
    }
    std::string n = dotted(e);
    std::string root = n.substr(0, n.find('.'));
    bool local_root = !n.empty() && (scope_->names.count(root) || scope_->assigned.count(root));
    if (n.empty() || local_root) {
        if (const Binding* b = array_binding(*e.value); !b) {
            Val v = lower_value(*e.value, out);
            return named_component(v, e.attr, e.range);
        }
    }
    fail(ErrorKind::NameError, "name '" + n + "' is not a constant usable in a kernel", e.range);
}

}  // namespace tack::sema::lower
