// Expression lowering: names, operators, comparisons, boolean operators, conditional
// expressions and subscripts. Calls live in lower_call.cpp.
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

const char* kOpSpelling[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};

}  // namespace

// ---- dispatch -------------------------------------------------------------------------------

ir::ExprPtr Lowerer::lower_expr(const ast::Expr& e, ir::Block& out, Hint hint) {
    using K = ast::ExprKind;
    switch (e.kind) {
        case K::IntLit: {
            const auto& l = static_cast<const ast::IntLit&>(e);
            if (l.overflow)
                type_error("integer literal is outside the range of i64 and u64", e.range);
            return int_literal(l.value, e.range);
        }
        case K::FloatLit:
            return float_literal(static_cast<const ast::FloatLit&>(e).value, hint, e.range);
        case K::BoolLit:
            return ir::IntImm::make(i32, static_cast<const ast::BoolLit&>(e).value ? 1 : 0,
                                    e.range);
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
        case K::Call:
            return lower_call(static_cast<const ast::Call&>(e), out, hint);
        case K::Attribute:
            return lower_attribute(static_cast<const ast::Attribute&>(e), hint);
        case K::Subscript:
            return lower_subscript(static_cast<const ast::Subscript&>(e), out);
        case K::StrLit:
            fail(ErrorKind::UnsupportedSyntax, "unsupported string constant used as a value",
                 e.range);
        case K::Tuple:
        case K::List:
            fail(ErrorKind::UnsupportedSyntax,
                 "tuple or list used as a value (only as an assignment or return value)", e.range);
        case K::Unsupported:
            fail(ErrorKind::UnsupportedSyntax,
                 "unsupported " + static_cast<const ast::Unsupported&>(e).what, e.range);
        default:
            fail(ErrorKind::UnsupportedSyntax, "unsupported expression", e.range);
    }
}

std::vector<ir::ExprPtr> Lowerer::lower_operands(const std::vector<const ast::Expr*>& es,
                                                 ir::Block& out, Hint hint) {
    std::vector<ir::ExprPtr> vals(es.size());
    std::vector<bool> weak(es.size());
    std::vector<size_t> done;  // strong operands lowered so far
    for (size_t k = 0; k < es.size(); ++k) {
        weak[k] = is_weak(*es[k]);
        if (weak[k]) continue;
        ir::Block tmp;
        vals[k] = lower_expr(*es[k], tmp);
        if (!tmp.empty()) {
            // B25: earlier operands are evaluated before this one's statements run.
            for (size_t j : done) {
                if (has_load(*vals[j])) vals[j] = spill(vals[j], out);
            }
            out.insert(out.end(), tmp.begin(), tmp.end());
        }
        done.push_back(k);
    }
    if (!hint) {
        for (size_t j : done) {
            if (!is_float(vals[j]->type)) continue;
            if (!hint || vals[j]->type == f64) hint = vals[j]->type;
        }
    }
    for (size_t k = 0; k < es.size(); ++k) {
        if (weak[k]) vals[k] = lower_expr(*es[k], out, hint);
    }
    return vals;
}

// ---- names ----------------------------------------------------------------------------------

ir::ExprPtr Lowerer::lower_name(const ast::Name& e, Hint hint) {
    auto it = scope_->names.find(e.id);
    if (it != scope_->names.end()) {
        const Binding& b = it->second;
        if (b.kind == Binding::Kind::Scalar) return ir::VarRef::make(b.var, e.range);
        if (b.kind == Binding::Kind::Array) {
            type_error("array '" + e.id + "' used as a scalar value (index it)", e.range);
        }
        fail(
            ErrorKind::NameError,
            "name '" + e.id + "' is not defined (a for loop variable's binding ends with its loop)",
            e.range);
    }
    if (scope_->assigned.count(e.id)) {
        // Read before the first assignment in lowering order (e.g. at the top of a loop body).
        ir::VarPtr v = local_var(e.id, std::nullopt, e.range);
        scope_->names[e.id] = Binding{Binding::Kind::Scalar, v, nullptr, scope_->key_prefix + e.id};
        return ir::VarRef::make(v, e.range);
    }
    if (auto c = constant_of(e)) return constant_expr(*c, hint, e.range);
    fail(ErrorKind::NameError, "name '" + e.id + "' is not defined", e.range);
}

// ---- operators ------------------------------------------------------------------------------

ir::ExprPtr Lowerer::lower_unary(const ast::Unary& e, ir::Block& out, Hint hint) {
    const auto* lit = e.operand->as<ast::IntLit>();
    if (e.op == ast::UnaryOp::Neg && lit && !lit->overflow) {
        // B3: a signed literal is classified by its full value (-2147483648 is i32).
        return int_literal(-static_cast<__int128>(lit->value), e.range);
    }
    Hint h = is_weak(e) ? hint : std::nullopt;
    ir::ExprPtr a = lower_expr(*e.operand, out, h);
    switch (e.op) {
        case ast::UnaryOp::Pos:
            return a;
        case ast::UnaryOp::Neg:
            if (const auto* f = a->as<ir::FloatImm>()) {
                return ir::FloatImm::make(f->type, -f->value, e.range);  // exact: a sign flip
            }
            return ir::Unary::make(ir::UnaryOp::Neg, a, e.range);
        case ast::UnaryOp::Not:
            return ir::Unary::make(ir::UnaryOp::Not, a, e.range);
        case ast::UnaryOp::Invert:
            if (is_float(a->type)) {
                type_error(
                    std::string("operator ~ requires an integer operand, got ") + name(a->type),
                    e.range);
            }
            return ir::Unary::make(ir::UnaryOp::BitNot, a, e.range);
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported unary operator", e.range);
}

ir::ExprPtr Lowerer::lower_binary(const ast::Binary& e, ir::Block& out, Hint hint) {
    if (e.op == ast::BinaryOp::MatMul) {
        fail(ErrorKind::UnsupportedSyntax, "unsupported operator @ on scalars", e.range);
    }
    Hint h = is_weak(e) ? hint : std::nullopt;
    auto v = lower_operands({e.lhs.get(), e.rhs.get()}, out, h);
    return arith(e.op, v[0], v[1], e.range);
}

ir::ExprPtr Lowerer::arith(ast::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) const {
    using B = ast::BinaryOp;
    // `x @= y` reaches here without lower_binary's check; kBinaryOps has no entry for @
    // (found by fuzz_frontend: the read past the table compiled `s @= x` as `s += x`).
    if (op == B::MatMul) fail(ErrorKind::UnsupportedSyntax, "unsupported operator @ on scalars", r);
    const char* spelling = kOpSpelling[static_cast<int>(op)];
    bool ints = is_integer(a->type) && is_integer(b->type);
    bool int_only =
        op == B::LShift || op == B::RShift || op == B::BitAnd || op == B::BitOr || op == B::BitXor;
    if (int_only && !ints) {
        type_error(std::string("operator ") + spelling + " requires integer operands, got " +
                       name(a->type) + " and " + name(b->type),
                   r);
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

struct Chain {
    Lowerer& l;
    const ast::Compare& e;

    // The conjunction of links k-1..end, where `left` is operand k-1 already lowered into `cur`.
    ir::ExprPtr links(size_t k, ir::ExprPtr left, ir::Block& cur) {
        const ast::Expr& left_ast = *e.operands[k - 1];
        const ast::Expr& right_ast = *e.operands[k];
        bool left_weak = l.is_weak(left_ast), right_weak = l.is_weak(right_ast);
        ir::Block tmp;
        Hint h = (!left_weak && is_float(left->type)) ? Hint(left->type) : std::nullopt;
        ir::ExprPtr right = l.lower_expr(right_ast, tmp, right_weak ? h : std::nullopt);
        if (left_weak && !right_weak && is_float(right->type)) {
            ir::Block none;
            left = l.lower_expr(left_ast, none, right->type);
        }
        if (!tmp.empty() && has_load(*left)) left = l.spill(left, cur);
        cur.insert(cur.end(), tmp.begin(), tmp.end());
        bool last = k + 1 == e.operands.size();
        if (!last) right = l.materialize(right, cur);  // the middle operand is evaluated once
        ir::ExprPtr link = l.compare(e.ops[k - 1], left, right, e.range);
        if (last) return link;
        ir::Block rest;
        ir::ExprPtr more = links(k + 1, right, rest);
        if (rest.empty()) return ir::Logical::make(ir::LogicalOp::And, link, more, e.range);
        // The next link emits statements: run them only when this link holds (B25).
        ir::VarPtr t = l.temp(i32, e.range);
        cur.push_back(ir::Assign::make(t, l.truth(link), e.range));
        rest.push_back(ir::Assign::make(t, l.truth(more), e.range));
        cur.push_back(ir::If::make(ir::VarRef::make(t, e.range), std::move(rest), {}, e.range));
        return ir::VarRef::make(t, e.range);
    }
};

}  // namespace

ir::ExprPtr Lowerer::lower_compare(const ast::Compare& e, ir::Block& out) {
    if (e.operands.size() < 2 || e.ops.size() + 1 != e.operands.size()) {
        fail(ErrorKind::UnsupportedSyntax, "malformed comparison", e.range);
    }
    if (e.operands.size() == 2) {
        auto v = lower_operands({e.operands[0].get(), e.operands[1].get()}, out);
        return compare(e.ops[0], v[0], v[1], e.range);
    }
    Chain chain{*this, e};
    ir::ExprPtr first = lower_expr(*e.operands[0], out);
    return chain.links(1, first, out);
}

ir::ExprPtr Lowerer::lower_boolop(const ast::BoolOp& e, ir::Block& out) {
    auto op = e.op == ast::BoolOpKind::And ? ir::LogicalOp::And : ir::LogicalOp::Or;
    ir::ExprPtr acc = lower_expr(*e.values.at(0), out);
    ir::VarPtr t;
    for (size_t k = 1; k < e.values.size(); ++k) {
        ir::Block tmp;
        ir::ExprPtr v = lower_expr(*e.values[k], tmp);
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
    return t ? ir::VarRef::make(t, e.range) : acc;
}

void Lowerer::join_arms(ir::ExprPtr* a, ir::ExprPtr* b, SourceRange r) const {
    DType t = promote_or_fail((*a)->type, (*b)->type, r);
    *a = convert(*a, t);
    *b = convert(*b, t);
}

ir::ExprPtr Lowerer::lower_ifexp(const ast::IfExp& e, ir::Block& out, Hint hint) {
    ir::ExprPtr cond = lower_expr(*e.cond, out);
    Hint h = is_weak(e) ? hint : std::nullopt;
    bool wa = is_weak(*e.then_value), wb = is_weak(*e.else_value);
    ir::Block ba, bb;
    ir::ExprPtr a, b;
    if (wa && !wb) {
        b = lower_expr(*e.else_value, bb);
        a = lower_expr(*e.then_value, ba, is_float(b->type) ? Hint(b->type) : h);
    } else {
        a = lower_expr(*e.then_value, ba, h);
        b = lower_expr(*e.else_value, bb, (wb && !wa && is_float(a->type)) ? Hint(a->type) : h);
    }
    join_arms(&a, &b, e.range);
    if (ba.empty() && bb.empty()) return ir::Select::make(cond, a, b, e.range);
    ir::VarPtr t = temp(a->type, e.range);
    ba.push_back(ir::Assign::make(t, a, e.range));
    bb.push_back(ir::Assign::make(t, b, e.range));
    out.push_back(ir::If::make(cond, std::move(ba), std::move(bb), e.range));
    return ir::VarRef::make(t, e.range);
}

// ---- arrays ---------------------------------------------------------------------------------

const Binding* Lowerer::array_binding(const ast::Expr& e) const {
    const auto* n = e.as<ast::Name>();
    if (!n) return nullptr;
    auto it = scope_->names.find(n->id);
    if (it == scope_->names.end() || it->second.kind != Binding::Kind::Array) return nullptr;
    return &it->second;
}

ir::BufferPtr Lowerer::array_of(const ast::Expr& e, const char* what) const {
    if (const Binding* b = array_binding(e)) return b->buffer;
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

ir::ExprPtr Lowerer::flat_index(const ir::BufferPtr& b, std::vector<ir::ExprPtr> idx,
                                SourceRange r) const {
    for (const auto& x : idx) {
        if (!is_integer(x->type)) {
            type_error(std::string("index into '") + b->name + "' must be an integer, got " +
                           name(x->type),
                       x->range.valid() ? x->range : r);
        }
    }
    if (idx.size() == 1) return convert(idx[0], i64);
    if (static_cast<int>(idx.size()) != b->rank) {
        type_error("'" + b->name + "' has " + std::to_string(b->rank) +
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

ir::ExprPtr Lowerer::lower_subscript(const ast::Subscript& e, ir::Block& out) {
    if (const auto* attr = e.value->as<ast::Attribute>(); attr && attr->attr == "shape") {
        return lower_shape(e);
    }
    ir::BufferPtr b = array_of(*e.value, "subscript");
    auto idx = lower_operands(index_list(e), out);
    return ir::Load::make(b, flat_index(b, std::move(idx), e.range), e.range);
}

ir::ExprPtr Lowerer::lower_shape(const ast::Subscript& e) {
    const auto& attr = static_cast<const ast::Attribute&>(*e.value);
    ir::BufferPtr b = array_of(*attr.value, "shape");
    std::optional<__int128> k = e.indices.size() == 1 ? static_int(*e.indices[0]) : std::nullopt;
    if (!k) type_error("shape must be indexed with one integer literal", e.range);
    __int128 dim = *k < 0 ? *k + b->rank : *k;
    if (dim < 0 || dim >= b->rank) {
        type_error("shape index " + std::to_string(static_cast<long long>(*k)) +
                       " is out of range for '" + b->name + "' with " + std::to_string(b->rank) +
                       " dimension(s)",
                   e.range);
    }
    return array_extent(b, static_cast<int>(dim), e.range);
}

ir::ExprPtr Lowerer::lower_attribute(const ast::Attribute& e, Hint hint) {
    if (const Binding* b = array_binding(*e.value)) {
        if (e.attr == "size") {
            ir::ExprPtr n = array_extent(b->buffer, 0, e.range);
            for (int d = 1; d < b->buffer->rank; ++d) {
                n = ir::Binary::make(ir::BinaryOp::Mul, n, array_extent(b->buffer, d, e.range),
                                     e.range);
            }
            return n;
        }
        fail(ErrorKind::UnsupportedSyntax,
             "unsupported attribute '" + e.attr + "' of array '" + b->buffer->name + "'", e.range);
    }
    if (auto c = constant_of(e)) return constant_expr(*c, hint, e.range);
    std::string n = dotted(e);
    if (n.empty()) fail(ErrorKind::UnsupportedSyntax, "unsupported attribute access", e.range);
    fail(ErrorKind::NameError, "name '" + n + "' is not a constant usable in a kernel", e.range);
}

}  // namespace tack::sema::lower
