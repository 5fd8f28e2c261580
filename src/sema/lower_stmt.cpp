// Statement lowering: assignments (plain, augmented, tuple), stores, if/while/for, break and
// continue, expression statements. Evaluation order follows CONTRACT B25.
#include <algorithm>

#include "sema/lower_context.hpp"

namespace tack::sema::lower {

void Lowerer::lower_stmts(const ast::StmtList& stmts, ir::Block& out) {
    for (const auto& s : stmts)
        lower_stmt(*s, out);
}

void Lowerer::lower_stmt(const ast::Stmt& s, ir::Block& out) {
    using K = ast::StmtKind;
    switch (s.kind) {
        case K::ExprStmt:
            return lower_expr_stmt(static_cast<const ast::ExprStmt&>(s), out);
        case K::Assign:
            return lower_assign(static_cast<const ast::Assign&>(s), out);
        case K::AugAssign:
            return lower_aug_assign(static_cast<const ast::AugAssign&>(s), out);
        case K::If:
            return lower_if(static_cast<const ast::If&>(s), out);
        case K::For:
            return lower_for(static_cast<const ast::For&>(s), out);
        case K::While:
            return lower_while(static_cast<const ast::While&>(s), out);
        case K::Pass:
            return;
        case K::Break:
            if (loop_depth_ == 0) {
                fail(ErrorKind::UnsupportedSyntax, "break outside a sequential loop", s.range);
            }
            out.push_back(ir::Break::make(s.range));
            return;
        case K::Continue:
            if (loop_depth_ == 0 && !scope_->is_kernel) {
                fail(ErrorKind::UnsupportedSyntax, "continue outside a loop", s.range);
            }
            out.push_back(ir::Continue::make(s.range));
            return;
        case K::Return:
            fail(ErrorKind::UnsupportedSyntax,
                 scope_->is_kernel
                     ? "return in a kernel body (only a final `return expr` after the "
                       "parallel loop is supported)"
                     : "return inside a loop",
                 s.range);
        case K::AnnAssign:
            fail(ErrorKind::UnsupportedSyntax, "unsupported AnnAssign", s.range);
        case K::FunctionDef:
            fail(ErrorKind::UnsupportedSyntax, "unsupported nested FunctionDef", s.range);
        case K::UnsupportedStmt:
            fail(ErrorKind::UnsupportedSyntax,
                 "unsupported " + static_cast<const ast::UnsupportedStmt&>(s).what, s.range);
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported statement", s.range);
}

void Lowerer::lower_expr_stmt(const ast::ExprStmt& s, ir::Block& out) {
    if (s.value->as<ast::StrLit>()) return;  // docstring
    const auto* call = s.value->as<ast::Call>();
    if (!call) {
        fail(ErrorKind::UnsupportedSyntax, "expression statement that is not a call",
             s.value->range);
    }
    lower_call(*call, out, std::nullopt, /*want_value=*/false);
}

// ---- assignments ----------------------------------------------------------------------------

Hint Lowerer::target_hint(const ast::Expr& target) const {
    if (const auto* n = target.as<ast::Name>()) return name_hint(n->id);
    if (const auto* s = target.as<ast::Subscript>()) {
        const Binding* b = array_binding(*s->value);
        if (b && is_float(b->buffer->elem)) return b->buffer->elem;
        return target_hint(*s->value);  // a component of a field element or local
    }
    if (const auto* a = target.as<ast::Attribute>()) return target_hint(*a->value);
    return std::nullopt;
}

void Lowerer::lower_assign(const ast::Assign& s, ir::Block& out) {
    if (const auto* call = s.value->as<ast::Call>()) {
        const builtins::Builtin* b = intrinsic_of(*call);
        if (b && b->category == builtins::Category::Alloc) {
            const auto* n = s.targets.size() == 1 ? s.targets[0]->as<ast::Name>() : nullptr;
            if (!n) {
                fail(ErrorKind::UnsupportedSyntax,
                     std::string(b->name) + "() must be assigned to a single name", s.range);
            }
            ir::BufferPtr buf = lower_alloc(*call, std::string(b->name), n->id, out);
            scope_->names[n->id] = Binding::array(buf);
            return;
        }
    }
    if (s.targets.size() == 1) {
        if (const auto* t = s.targets[0]->as<ast::Tuple>()) {
            return lower_tuple_assign(*t, *s.value, out);
        }
    }
    if (const Binding* a = array_binding(*s.value)) {
        // `alias = data`: another name for the same field (Python binds, it does not copy).
        const auto* n = s.targets.size() == 1 ? s.targets[0]->as<ast::Name>() : nullptr;
        auto it = n ? scope_->names.find(n->id) : scope_->names.end();
        bool fresh =
            n && (it == scope_->names.end() || !it->second.bound() || it->second.is_buffer());
        if (!fresh) {
            fail(ErrorKind::UnsupportedSyntax,
                 "arrays are storage, not values: '" + dotted(*s.value) +
                     "' can only be given another name (alias = field), not stored",
                 s.value->range);
        }
        scope_->names[n->id] = *a;
        return;
    }
    bool weak = is_weak(*s.value);
    Hint hint = s.targets.size() == 1 ? target_hint(*s.targets[0]) : std::nullopt;
    Val v = lower_value(*s.value, out, hint);
    if (s.targets.size() > 1) v = keep(v, out);
    for (const auto& t : s.targets)
        assign_target(*t, v, weak, out);
}

void Lowerer::assign_target(const ast::Expr& target, const Val& value, bool weak, ir::Block& out) {
    if (const auto* n = target.as<ast::Name>()) {
        return assign_name(n->id, value, weak, target.range, out);
    }
    if (target.as<ast::Subscript>() || target.as<ast::Attribute>()) {
        return lower_store(target, value, out);
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported assignment target", target.range);
}

void Lowerer::lower_store(const ast::Expr& target, Val value, ir::Block& out) {
    // B25: the value is evaluated before the store index.
    ir::Block tmp;
    Place p = place_of(target, tmp);
    if (!tmp.empty()) {
        for (auto& c : value.c) {
            if (has_load(*c)) c = spill(c, out);
        }
    }
    out.insert(out.end(), tmp.begin(), tmp.end());
    write(p, std::move(value), out, target.range);
}

void Lowerer::lower_tuple_assign(const ast::Tuple& target, const ast::Expr& value, ir::Block& out) {
    std::vector<Val> vals;
    std::vector<bool> weak;
    if (const auto* call = value.as<ast::Call>()) {
        vals = lower_call_multi(*call, out);
        weak.assign(vals.size(), false);
    } else if (const auto* t = value.as<ast::Tuple>()) {
        std::vector<const ast::Expr*> es;
        for (const auto& e : t->elts)
            es.push_back(e.get());
        vals = lower_values(es, out);
        for (size_t k = 0; k < es.size(); ++k) {
            weak.push_back(is_weak(*es[k]));
            Hint h = k < target.elts.size() ? target_hint(*target.elts[k]) : std::nullopt;
            ir::Block none;
            if (weak[k] && h) vals[k] = lower_value(*es[k], none, h);
        }
        // B25: the whole right-hand side is evaluated before any target is assigned (variables
        // too: `a, b = b, a`).
        for (auto& v : vals) {
            for (auto& c : v.c) {
                if (!c->as<ir::IntImm>() && !c->as<ir::FloatImm>()) c = spill(c, out);
            }
        }
    } else {
        fail(ErrorKind::UnsupportedSyntax,
             "tuple assignment needs a tuple or a @tack.func call on the right", value.range);
    }
    if (vals.size() != target.elts.size()) {
        type_error(unpack_message(vals.size(), target.elts.size()), target.range);
    }
    for (size_t k = 0; k < vals.size(); ++k)
        assign_target(*target.elts[k], vals[k], weak[k], out);
}

void Lowerer::lower_aug_assign(const ast::AugAssign& s, ir::Block& out) {
    auto op = [&](ir::ExprPtr a, ir::ExprPtr b) { return arith(s.op, a, b, s.range); };
    if (const auto* n = s.target->as<ast::Name>()) {
        auto v = lower_values({s.target.get(), s.value.get()}, out);
        Val r = zip(v[0], v[1], out, s.range, "the augmented assignment", op);
        return assign_name(n->id, r, false, s.range, out);
    }
    if (!s.target->as<ast::Subscript>() && !s.target->as<ast::Attribute>()) {
        fail(ErrorKind::UnsupportedSyntax, "unsupported augmented target", s.range);
    }
    Place p = place_of(*s.target, out);  // the index is evaluated once
    Val old = read(p, s.range);
    ir::Block tmp;
    Hint h = is_weak(*s.value) ? target_hint(*s.target) : std::nullopt;
    Val v = lower_value(*s.value, tmp, h);
    if (!tmp.empty()) old = keep(old, out);  // the old value is read before the RHS
    out.insert(out.end(), tmp.begin(), tmp.end());
    if (v.shape != p.shape && !v.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax,
             "the augmented assignment combines a " + p.shape.text() + " target and a " +
                 v.shape.text() + " value",
             s.range);
    }
    write(p, zip(old, v, out, s.range, "the augmented assignment", op), out, s.range);
}

// ---- control flow ---------------------------------------------------------------------------

void Lowerer::merge_bindings(const std::map<std::string, Binding>& a,
                             const std::map<std::string, Binding>& b) {
    // A name live on either path stays readable afterwards (a loop variable whose loop ended on
    // both paths stays dead).
    std::map<std::string, Binding> merged = b;
    for (const auto& [name, bind] : a) {
        auto it = merged.find(name);
        if (it == merged.end() || !it->second.bound()) merged[name] = bind;
    }
    scope_->names = std::move(merged);
}

// A local or shared array allocated inside a loop or if body is declared in that body's IR block,
// so a use after the body would name storage the generated code has left (the fuzzer found
// `for k in range(4): t = tack.local_array(...)` then `t[0]` after the loop failing IR
// verification). Such bindings end with the body; array_binding() reports a later use.
void Lowerer::end_block_arrays(const std::map<std::string, Binding>& before) {
    for (auto& [name, bind] : scope_->names) {
        if (!bind.is_buffer() || !bind.buffer) continue;
        if (bind.buffer->kind != ir::BufferKind::Local &&
            bind.buffer->kind != ir::BufferKind::Shared)
            continue;
        auto it = before.find(name);
        bool same = it != before.end() && it->second.is_buffer() &&
                    it->second.buffer == bind.buffer && !it->second.block_ended;
        if (!same) bind.block_ended = true;
    }
}

void Lowerer::lower_if(const ast::If& s, ir::Block& out) {
    ir::ExprPtr cond = lower_condition(*s.cond, out, "the if statement");
    auto saved = scope_->names;
    auto before = saved;
    ir::Block then_body, else_body;
    ++block_depth_;
    lower_stmts(s.body, then_body);
    auto after_then = std::move(scope_->names);
    scope_->names = std::move(saved);
    lower_stmts(s.orelse, else_body);
    --block_depth_;
    merge_bindings(after_then, scope_->names);
    end_block_arrays(before);
    out.push_back(ir::If::make(cond, std::move(then_body), std::move(else_body), s.range));
}

void Lowerer::lower_while(const ast::While& s, ir::Block& out) {
    if (!s.orelse.empty()) fail(ErrorKind::UnsupportedSyntax, "while loop with else", s.range);
    ir::Block cond_stmts, body;
    ir::ExprPtr cond = lower_condition(*s.cond, cond_stmts, "the while loop");
    ++loop_depth_;
    ++block_depth_;
    if (!cond_stmts.empty()) {
        // The condition needs statements: evaluate it at the top of every iteration.
        body = std::move(cond_stmts);
        body.push_back(ir::If::make(cond, {}, {ir::Break::make(s.range)}, s.range));
        cond = ir::IntImm::make(i32, 1, s.range);
    }
    auto before = scope_->names;
    lower_stmts(s.body, body);
    --block_depth_;
    --loop_depth_;
    end_block_arrays(before);
    out.push_back(ir::While::make(cond, std::move(body), s.range));
}

std::vector<ir::ExprPtr> Lowerer::range_args(const ast::Call& call, ir::Block& out) {
    check_arity(call, builtins::find("range")->signature);
    std::vector<const ast::Expr*> es;
    for (const auto& a : call.args)
        es.push_back(a.get());
    auto v = lower_operands(es, out);
    for (size_t k = 0; k < v.size(); ++k) {
        if (!is_integer(v[k]->type)) {
            type_error(std::string("range() arguments must be integers, got ") + name(v[k]->type),
                       call.args[k]->range);
        }
        v[k] = convert(v[k], i64);
    }
    if (v.size() == 1) v.insert(v.begin(), ir::IntImm::make_i64(0, call.range));
    if (v.size() == 2) v.push_back(ir::IntImm::make_i64(1, call.range));
    return v;
}

ir::VarPtr Lowerer::bind_loop_var(const std::string& name, ir::VarPtr v, const ast::StmtList& body,
                                  ir::Block& body_out) {
    std::set<std::string> assigned;
    collect_assigned(body, assigned);
    ir::VarPtr bound = v;
    if (assigned.count(name)) {
        // The body rebinds the loop variable: give it its own copy so the iteration count is
        // unaffected (Python semantics).
        bound = new_var(name, i64, v->decl);
        body_out.push_back(ir::Assign::make(bound, ir::VarRef::make(v, v->decl), v->decl));
    }
    scope_->names[name] = Binding::scalar(bound);
    return bound;
}

void Lowerer::lower_for(const ast::For& s, ir::Block& out) {
    if (!s.orelse.empty()) fail(ErrorKind::UnsupportedSyntax, "for loop with else", s.range);
    if (auto t = template_of(*s.iter)) return lower_object_for(s, t->template_id(), out);
    if (s.iter->as<ast::Name>() || s.iter->as<ast::Attribute>()) not_iterable(s);
    const auto* call = s.iter->as<ast::Call>();
    const builtins::Builtin* b = call ? intrinsic_of(*call) : nullptr;
    if (b && b->name == "ndrange") return lower_ndrange_for(s, *call, out);
    if (!b || b->name != "range") {
        fail(ErrorKind::UnsupportedSyntax, "a sequential for loop must iterate over range(...)",
             s.iter->range);
    }
    const auto* target = s.target->as<ast::Name>();
    if (!target) {
        fail(ErrorKind::UnsupportedSyntax, "a range() loop needs one loop variable",
             s.target->range);
    }
    auto args = range_args(*call, out);
    ir::VarPtr var = new_var(target->id, i64, target->range);
    ir::Block body;
    ++loop_depth_;
    ++block_depth_;
    auto before = scope_->names;
    bind_loop_var(target->id, var, s.body, body);
    lower_stmts(s.body, body);
    --block_depth_;
    --loop_depth_;
    end_block_arrays(before);
    scope_->names[target->id] = Binding{};  // A7: the binding ends with the loop
    out.push_back(ir::For::make(var, args[0], args[1], args[2], std::move(body), s.range));
}

namespace {

// A `break` that would leave the loop `body` belongs to (not one of a loop nested in it).
const ast::Stmt* direct_break(const ast::StmtList& body) {
    for (const auto& st : body) {
        if (st->kind == ast::StmtKind::Break) return st.get();
        if (const auto* i = st->as<ast::If>()) {
            if (const ast::Stmt* b = direct_break(i->body)) return b;
            if (const ast::Stmt* b = direct_break(i->orelse)) return b;
        }
    }
    return nullptr;
}

}  // namespace

// `for i, j in tack.ndrange(n, (lo, hi))` inside a body: nested range loops, the first
// dimension outermost (Python's order: itertools.product). Each bound is evaluated once, before
// the loops, as Python evaluates the call once.
void Lowerer::lower_ndrange_for(const ast::For& s, const ast::Call& call, ir::Block& out) {
    check_arity(call, intrinsic_of(call)->signature);
    std::vector<const ast::Name*> names;
    if (const auto* n = s.target->as<ast::Name>()) names.push_back(n);
    if (const auto* t = s.target->as<ast::Tuple>())
        for (const auto& e : t->elts)
            names.push_back(e->as<ast::Name>());
    bool named = std::all_of(names.begin(), names.end(), [](const ast::Name* n) { return n; });
    if (!named || names.size() != call.args.size()) {
        fail(ErrorKind::UnsupportedSyntax,
             "a tack.ndrange() loop over " + std::to_string(call.args.size()) +
                 " dimension(s) needs one loop variable per dimension "
                 "(`for i, j in tack.ndrange(n, m):`)",
             s.target->range);
    }
    if (const ast::Stmt* b = direct_break(s.body)) {
        fail(ErrorKind::UnsupportedSyntax,
             "break out of a sequential tack.ndrange() loop would leave only its last "
             "dimension; write nested range() loops and break out of each",
             b->range);
    }
    auto bound = [&](const ast::Expr* e, ir::Block& into) -> ir::ExprPtr {
        if (!e) return ir::IntImm::make_i64(0, call.range);
        ir::ExprPtr v = lower_expr(*e, into);
        if (!is_integer(v->type)) {
            type_error(std::string("ndrange() bounds must be integers, got ") + name(v->type),
                       e->range);
        }
        return materialize(convert(v, i64), into);
    };
    std::vector<std::pair<ir::ExprPtr, ir::ExprPtr>> dims;
    for (const auto& a : call.args) {
        const ast::Expr* lo = nullptr;
        const ast::Expr* hi = a.get();
        if (const auto* pair = a->as<ast::Tuple>()) {
            if (pair->elts.size() != 2)
                type_error("ndrange() takes sizes or (start, end) pairs", a->range);
            lo = pair->elts[0].get();
            hi = pair->elts[1].get();
        }
        ir::ExprPtr start = bound(lo, out);
        dims.emplace_back(start, bound(hi, out));
    }
    std::vector<ir::VarPtr> vars;
    for (const ast::Name* n : names)
        vars.push_back(new_var(n->id, i64, n->range));
    ++loop_depth_;
    ++block_depth_;
    auto before = scope_->names;
    ir::Block body;
    for (size_t k = 0; k < names.size(); ++k)
        bind_loop_var(names[k]->id, vars[k], s.body, body);
    lower_stmts(s.body, body);
    --block_depth_;
    --loop_depth_;
    end_block_arrays(before);
    for (const ast::Name* n : names)
        scope_->names[n->id] = Binding{};  // A7: the bindings end with the loop
    for (size_t k = dims.size(); k-- > 0;) {
        ir::Block level;
        level.push_back(ir::For::make(vars[k], dims[k].first, dims[k].second,
                                      ir::IntImm::make_i64(1, call.range), std::move(body),
                                      s.range));
        body = std::move(level);
    }
    for (auto& st : body)
        out.push_back(std::move(st));
}

}  // namespace tack::sema::lower
