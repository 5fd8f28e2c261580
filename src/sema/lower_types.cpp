// Types, literals, conversions and variables for lowering (CONTRACT B2-B8).
#include <cmath>
#include <limits>

#include "sema/lower_context.hpp"

namespace tack::sema::lower {

// ---- errors ---------------------------------------------------------------------------------

void Lowerer::fail(ErrorKind kind, const std::string& what, SourceRange r) const {
    std::string msg = scope_->prefix + what;
    if (r.valid() && scope_->file) msg += " " + diag::at_position(*scope_->file, r);
    diag::raise(kind, std::move(msg), scope_->file, r);
}

// ---- local types (the B8 fixpoint) ----------------------------------------------------------

std::optional<DType> LocalTypes::settled(const std::string& key) const {
    auto it = settled_.find(key);
    if (it == settled_.end()) return std::nullopt;
    return it->second;
}

void LocalTypes::begin_round() {
    records_.clear();
    used_.clear();
    new_shape_ = false;
}

Shape LocalTypes::shape(const std::string& key) const {
    auto it = shapes_.find(key);
    return it == shapes_.end() ? Shape{} : it->second;
}

bool LocalTypes::record_shape(const std::string& key, Shape s) {
    auto [it, added] = shapes_.try_emplace(key, s);
    if (added) new_shape_ = true;
    return it->second == s;
}

namespace {

std::string join_error(DType a, DType b) {
    return std::string("cannot assign a value of type ") + name(b) +
           " to a local that also holds " + name(a) +
           " (no common type; use an explicit integer cast)";
}

}  // namespace

bool LocalTypes::settle() {
    bool changed = new_shape_;  // a local became a vector: lower again with its storage
    for (const auto& [key, recs] : records_) {
        std::optional<DType> joined = settled(key);
        bool weak = false;
        for (const Record& r : recs) {
            if (!r.strong) {
                weak = true;
                continue;
            }
            if (!joined) {
                joined = *r.strong;
                continue;
            }
            auto p = promote(*joined, *r.strong);
            if (!p) {
                std::string msg = r.prefix + join_error(*joined, *r.strong);
                if (r.file && r.range.valid()) msg += " " + diag::at_position(*r.file, r.range);
                diag::raise(ErrorKind::TypeError, msg, r.file, r.range);
            }
            joined = *p;
        }
        // A local that only ever holds weak literals takes the kernel's float type: f64 when
        // an f64 field is an argument (the B2 rule for float scalars), else f32.
        DType t = joined ? *joined : default_float_;
        if (weak && !is_float(t)) t = f32;  // an integer local that also gets a weak float
        auto used = used_.find(key);
        if (used == used_.end() || used->second != t) changed = true;
        settled_[key] = t;
    }
    return changed;
}

// ---- promotion and conversion ---------------------------------------------------------------

DType Lowerer::promote_or_fail(DType a, DType b, SourceRange r) const {
    if (auto p = promote(a, b)) return *p;
    type_error(no_common_type_message(a, b), r);
}

ir::ExprPtr Lowerer::convert(ir::ExprPtr e, DType to) const {
    if (e->type == to) return e;
    if (const auto* imm = e->as<ir::IntImm>()) {
        int64_t v = is_signed(imm->type) ? imm->as_signed() : static_cast<int64_t>(imm->bits);
        if (is_integer(to)) return ir::IntImm::make(to, static_cast<uint64_t>(v), e->range);
        // Small integers are exact in both float types, so folding cannot double-round.
        bool small =
            is_signed(imm->type) ? (v >= -(1 << 24) && v <= (1 << 24)) : imm->bits <= (1u << 24);
        if (small) return ir::FloatImm::make(to, static_cast<double>(v), e->range);
    }
    SourceRange r = e->range;
    return ir::Cast::make(to, std::move(e), r);
}

ir::ExprPtr Lowerer::int_literal(__int128 v, SourceRange r) const {
    const __int128 i32_min = std::numeric_limits<int32_t>::min();
    const __int128 i32_max = std::numeric_limits<int32_t>::max();
    const __int128 i64_min = std::numeric_limits<int64_t>::min();
    const __int128 i64_max = std::numeric_limits<int64_t>::max();
    const __int128 u64_max = std::numeric_limits<uint64_t>::max();
    auto bits = static_cast<uint64_t>(v);
    if (v >= i32_min && v <= i32_max) return ir::IntImm::make(i32, bits, r);
    if (v >= i64_min && v <= i64_max) return ir::IntImm::make(i64, bits, r);
    if (v >= 0 && v <= u64_max) return ir::IntImm::make(u64, bits, r);
    type_error("integer literal is outside the range of i64 and u64", r);
}

ir::ExprPtr Lowerer::float_literal(double value, Hint hint, SourceRange r) const {
    DType t = (hint && is_float(*hint)) ? *hint : f32;
    return ir::FloatImm::make(t, value, r);
}

ir::ExprPtr Lowerer::constant_expr(const Constant& c, Hint hint, SourceRange r) const {
    if (c.kind == Constant::Kind::Int) {
        ir::ExprPtr lit = int_literal(c.ival, r);
        return c.dtype ? convert(lit, *c.dtype) : lit;
    }
    if (!c.dtype) return float_literal(c.fval, hint, r);
    // A typed constant is the literal under that cast: f64 is the exact double, an integer
    // dtype converts the f32 literal (B4: int(2.5) evaluates its literal as f32).
    if (is_float(*c.dtype)) return ir::FloatImm::make(*c.dtype, c.fval, r);
    return convert(ir::FloatImm::make(f32, c.fval, r), *c.dtype);
}

ir::ExprPtr Lowerer::truth(ir::ExprPtr e) const {
    if (e->as<ir::Compare>() || e->as<ir::Logical>()) return e;
    if (const auto* u = e->as<ir::Unary>(); u && u->op == ir::UnaryOp::Not) return e;
    ir::ExprPtr zero = is_float(e->type) ? ir::FloatImm::make(e->type, 0.0, e->range)
                                         : ir::IntImm::make(e->type, 0, e->range);
    return ir::Compare::make(ir::CompareOp::Ne, e, zero, e->range);
}

// ---- weak literal expressions (B4) ----------------------------------------------------------

std::optional<Constant> Lowerer::constant_of(const ast::Expr& e) const {
    if (const auto* a = e.as<ast::Attribute>()) {  // a template's class constant: cfg.size
        if (template_of(*a->value)) {
            const TemplateMember* m = member_of(*a);
            if (m->kind == TemplateMember::Kind::Constant) return m->constant;
            return std::nullopt;
        }
    }
    std::string name = dotted(e);
    if (name.empty()) return std::nullopt;
    std::string root = name.substr(0, name.find('.'));
    if (scope_->names.count(root) || scope_->assigned.count(root)) return std::nullopt;
    Resolution res = scope_->env->resolve(name);
    if (res.kind != Resolution::Kind::Constant) return std::nullopt;
    return res.constant;
}

bool Lowerer::is_literal_expr(const ast::Expr& e, bool* has_float) const {
    using K = ast::ExprKind;
    switch (e.kind) {
        case K::IntLit:
        case K::BoolLit:
            return true;
        case K::FloatLit:
            *has_float = true;
            return true;
        case K::Name:
        case K::Attribute: {
            if (const auto* n = e.as<ast::Name>()) {
                auto lit = scope_->literal_locals.find(n->id);
                if (lit != scope_->literal_locals.end())
                    return is_literal_expr(*lit->second, has_float);
            }
            auto c = constant_of(e);
            if (!c || c->dtype) return false;  // a typed constant is the literal under a cast
            if (c->kind == Constant::Kind::Float) *has_float = true;
            for (const Constant& item : c->items)
                *has_float |= item.kind == Constant::Kind::Float;
            return true;
        }
        case K::Subscript: {
            // An untyped float vector constant read at any index: its components are weak
            // literals, so the chain that picks one is weak too (public constant tables).
            const auto& s = static_cast<const ast::Subscript&>(e);
            auto c = constant_of(*s.value);
            if (!c || c->kind != Constant::Kind::Tuple || c->dtype) return false;
            for (const Constant& item : c->items)
                *has_float |= item.kind == Constant::Kind::Float;
            return *has_float;
        }
        case K::List:
        case K::Tuple: {
            const auto& elts = e.kind == K::List ? static_cast<const ast::List&>(e).elts
                                                 : static_cast<const ast::Tuple&>(e).elts;
            for (const auto& x : elts) {
                if (!is_literal_expr(*x, has_float)) return false;
            }
            return !elts.empty();
        }
        case K::Unary: {
            const auto& u = static_cast<const ast::Unary&>(e);
            bool sign = u.op == ast::UnaryOp::Neg || u.op == ast::UnaryOp::Pos;
            return sign && is_literal_expr(*u.operand, has_float);
        }
        case K::Binary: {
            const auto& b = static_cast<const ast::Binary&>(e);
            static const std::set<ast::BinaryOp> kArith = {
                ast::BinaryOp::Add,      ast::BinaryOp::Sub, ast::BinaryOp::Mul, ast::BinaryOp::Div,
                ast::BinaryOp::FloorDiv, ast::BinaryOp::Mod, ast::BinaryOp::Pow};
            return kArith.count(b.op) && is_literal_expr(*b.lhs, has_float) &&
                   is_literal_expr(*b.rhs, has_float);
        }
        case K::IfExp: {
            const auto& c = static_cast<const ast::IfExp&>(e);
            return is_literal_expr(*c.then_value, has_float) &&
                   is_literal_expr(*c.else_value, has_float);
        }
        case K::Call: {
            const auto& c = static_cast<const ast::Call&>(e);
            const builtins::Builtin* b = intrinsic_of(c);
            if (!b ||
                !(b->category == builtins::Category::Math ||
                  b->category == builtins::Category::MinMax ||
                  b->category == builtins::Category::Helper ||
                  (b->category == builtins::Category::Construct && b->name != "Matrix.identity")))
                return false;
            for (const auto& a : c.args) {
                if (!is_literal_expr(*a, has_float)) return false;
            }
            return !c.args.empty() && c.keywords.empty();
        }
        default:
            return false;
    }
}

bool Lowerer::is_weak(const ast::Expr& e) const {
    bool has_float = false;
    return is_literal_expr(e, &has_float) && has_float;
}

std::optional<__int128> Lowerer::static_int(const ast::Expr& e) const {
    if (const auto* i = e.as<ast::IntLit>()) {
        if (i->overflow) return std::nullopt;
        return static_cast<__int128>(i->value);
    }
    if (const auto* u = e.as<ast::Unary>()) {
        auto v = static_int(*u->operand);
        if (!v) return std::nullopt;
        if (u->op == ast::UnaryOp::Neg) return -*v;
        return u->op == ast::UnaryOp::Pos ? v : std::nullopt;
    }
    if (const auto* b = e.as<ast::Binary>()) {
        auto l = static_int(*b->lhs), r = static_int(*b->rhs);
        if (!l || !r) return std::nullopt;
        switch (b->op) {
            case ast::BinaryOp::Add:
                return *l + *r;
            case ast::BinaryOp::Sub:
                return *l - *r;
            case ast::BinaryOp::Mul:
                return *l * *r;
            case ast::BinaryOp::FloorDiv:
                if (*r <= 0 || *l < 0) return std::nullopt;
                return *l / *r;
            default:
                return std::nullopt;
        }
    }
    if (auto c = constant_of(e); c && c->kind == Constant::Kind::Int) return c->ival;
    return std::nullopt;
}

std::optional<DType> Lowerer::dtype_of(const ast::Expr& e) const {
    std::string n = dotted(e);
    if (n.empty()) return std::nullopt;
    std::string root = n.substr(0, n.find('.'));
    if (scope_->names.count(root) || scope_->assigned.count(root)) return std::nullopt;
    Resolution res = scope_->env->resolve(n);
    std::string canonical;
    if (res.kind == Resolution::Kind::Intrinsic)
        canonical = res.intrinsic;
    else if (res.kind == Resolution::Kind::Unbound && root == n)
        canonical = n;
    if (canonical == "int") return i32;
    if (canonical == "float") return f32;
    const builtins::Builtin* b = builtins::find(canonical);
    if (!b || b->category != builtins::Category::Cast) return std::nullopt;
    return dtype_from_name(canonical);
}

// ---- variables ------------------------------------------------------------------------------

ir::VarPtr Lowerer::new_var(const std::string& name, DType t, SourceRange r, bool is_local) {
    auto v = std::make_shared<const ir::Var>(ir::Var{name, t, next_var_id_++, r});
    if (is_local) locals_.push_back(v);
    return v;
}

ir::ExprPtr Lowerer::spill(ir::ExprPtr e, ir::Block& out) {
    ir::VarPtr t = temp(e->type, e->range);
    out.push_back(ir::Assign::make(t, e, e->range));
    return ir::VarRef::make(t, e->range);
}

ir::ExprPtr Lowerer::materialize(ir::ExprPtr e, ir::Block& out) {
    if (e->as<ir::IntImm>() || e->as<ir::FloatImm>() || e->as<ir::VarRef>()) return e;
    return spill(std::move(e), out);
}

ir::VarPtr Lowerer::local_var(const std::string& name, std::optional<DType> guess, SourceRange r) {
    auto it = scope_->locals.find(name);
    if (it != scope_->locals.end()) return it->second;
    std::string key = scope_->key_prefix + name;
    DType t = types_.settled(key).value_or(guess.value_or(i32));
    ir::VarPtr v = new_var(name, t, r);
    types_.used(key, t);
    scope_->locals[name] = v;
    return v;
}

Hint Lowerer::name_hint(const std::string& name) const {
    auto it = scope_->names.find(name);
    if (it != scope_->names.end() && it->second.is(Type::Kind::Scalar)) {
        DType t = it->second.var->type;
        return is_float(t) ? Hint(t) : std::nullopt;
    }
    auto t = types_.settled(scope_->key_prefix + name);
    return (t && is_float(*t)) ? t : std::nullopt;
}

std::vector<ir::VarPtr> Lowerer::vector_local(const std::string& name, Shape shape, DType guess,
                                              SourceRange r) {
    auto it = scope_->vector_locals.find(name);
    if (it != scope_->vector_locals.end() && static_cast<int>(it->second.size()) == shape.count()) {
        return it->second;
    }
    std::string key = scope_->key_prefix + name;
    DType t = types_.settled(key).value_or(guess);
    std::vector<ir::VarPtr> vars;
    for (int k = 0; k < shape.count(); ++k)
        vars.push_back(new_var(name, t, r));
    types_.used(key, t);
    scope_->vector_locals[name] = vars;
    return vars;
}

void Lowerer::assign_name(const std::string& name, Val value, bool weak, SourceRange r,
                          ir::Block& out) {
    if (value.shape.is_scalar()) return assign_name(name, value.c.at(0), weak, r, out);
    Binding& b = scope_->names[name];
    if (b.is_buffer()) {
        fail(ErrorKind::UnsupportedSyntax,
             "'" + name + "' is a local or shared array and cannot be reassigned", r);
    }
    std::string key = !b.bound() ? scope_->key_prefix + name : b.key;
    bool pinned = b.bound() && b.key.empty();
    Shape held = b.has_components() ? b.shape() : Shape{};
    bool fits = pinned ? held == value.shape : types_.record_shape(key, value.shape);
    if (!fits || (b.has_components() && b.shape() != value.shape)) {
        Shape other = b.has_components() ? b.shape() : types_.shape(key);
        fail(ErrorKind::UnsupportedSyntax,
             "'" + name + "' holds a " + other.text() + " elsewhere; it cannot also hold a " +
                 value.shape.text() + " (one shape per local)",
             r);
    }
    if (!b.has_components()) {
        auto vars = vector_local(name, value.shape, weak ? f32 : value.type(), r);
        b = Binding::components(vars, value.shape, key);
    }
    if (!b.key.empty()) {
        for (const auto& c : value.c) {
            types_.record(b.key, {weak ? std::nullopt : std::optional<DType>(c->type), r,
                                  scope_->file, scope_->prefix});
        }
    }
    // A33: every component is evaluated before any is assigned (`v = v.cross(w)`).
    for (auto& c : value.c) {
        if (!c->as<ir::IntImm>() && !c->as<ir::FloatImm>()) c = spill(c, out);
    }
    for (size_t k = 0; k < value.c.size(); ++k)
        out.push_back(ir::Assign::make(b.vars[k], convert(value.c[k], b.vars[k]->type), r));
}

void Lowerer::assign_name(const std::string& name, const ir::ExprPtr& value, bool weak,
                          SourceRange r, ir::Block& out) {
    Binding& b = scope_->names[name];
    if (b.is_buffer()) {
        fail(ErrorKind::UnsupportedSyntax,
             "'" + name + "' is a local or shared array and cannot be reassigned", r);
    }
    if (b.has_components() ||
        (!b.bound() && !types_.shape(scope_->key_prefix + name).is_scalar())) {
        Shape held = b.has_components() ? b.shape() : types_.shape(scope_->key_prefix + name);
        fail(ErrorKind::UnsupportedSyntax,
             "'" + name + "' holds a " + held.text() +
                 " elsewhere; it cannot also hold a scalar (one shape per local)",
             r);
    }
    if (!b.bound()) {
        ir::VarPtr v = local_var(name, weak ? f32 : value->type, r);
        b = Binding::scalar(v, scope_->key_prefix + name);
    }
    if (!b.key.empty()) {
        types_.record(b.key, {weak ? std::nullopt : std::optional<DType>(value->type), r,
                              scope_->file, scope_->prefix});
    }
    ir::ExprPtr stored = convert(value, b.var->type);
    out.push_back(ir::Assign::make(b.var, stored, r));
    if (in_prologue_ && scope_->is_kernel) {
        host_values_[b.var.get()] = block_depth_ == 0 ? host_value(stored) : nullptr;
    }
}

}  // namespace tack::sema::lower

namespace tack::sema::lower {

namespace {

void count_targets(const ast::Expr& t, std::map<std::string, int>& n) {
    if (const auto* name = t.as<ast::Name>()) ++n[name->id];
    if (const auto* tu = t.as<ast::Tuple>()) {
        for (const auto& e : tu->elts)
            count_targets(*e, n);
    }
    if (const auto* l = t.as<ast::List>()) {
        for (const auto& e : l->elts)
            count_targets(*e, n);
    }
}

// Every binding of each name in `body` (assignments, augmented assignments, loop targets), and
// the value of the plain single-target assignments.
void count_bindings(const ast::StmtList& body, std::map<std::string, int>& n,
                    std::map<std::string, const ast::Expr*>& value) {
    for (const auto& s : body) {
        if (const auto* a = s->as<ast::Assign>()) {
            for (const auto& t : a->targets)
                count_targets(*t, n);
            if (a->targets.size() == 1) {
                if (const auto* name = a->targets[0]->as<ast::Name>())
                    value[name->id] = a->value.get();
            }
        } else if (const auto* a = s->as<ast::AugAssign>()) {
            count_targets(*a->target, n);
        } else if (const auto* a = s->as<ast::AnnAssign>()) {
            count_targets(*a->target, n);
        } else if (const auto* f = s->as<ast::For>()) {
            count_targets(*f->target, n);
            count_bindings(f->body, n, value);
            count_bindings(f->orelse, n, value);
        } else if (const auto* w = s->as<ast::While>()) {
            count_bindings(w->body, n, value);
            count_bindings(w->orelse, n, value);
        } else if (const auto* i = s->as<ast::If>()) {
            count_bindings(i->body, n, value);
            count_bindings(i->orelse, n, value);
        }
    }
}

}  // namespace

namespace {

bool reads_memory(const ast::Expr& e) {
    if (e.as<ast::Subscript>()) return true;
    bool found = false;
    auto visit = [&](const ast::Expr& x) { found = found || reads_memory(x); };
    if (const auto* b = e.as<ast::Binary>()) {
        visit(*b->lhs);
        visit(*b->rhs);
    } else if (const auto* u = e.as<ast::Unary>()) {
        visit(*u->operand);
    } else if (const auto* c = e.as<ast::Call>()) {
        for (const auto& a : c->args)
            visit(*a);
    } else if (const auto* x = e.as<ast::IfExp>()) {
        visit(*x->cond);
        visit(*x->then_value);
        visit(*x->else_value);
    } else if (const auto* l = e.as<ast::List>()) {
        for (const auto& a : l->elts)
            visit(*a);
    } else if (const auto* t = e.as<ast::Tuple>()) {
        for (const auto& a : t->elts)
            visit(*a);
    }
    return found;
}

}  // namespace

void Lowerer::find_literal_locals(const ast::StmtList& body, const std::vector<ast::Param>& params,
                                  Scope& scope) {
    std::map<std::string, int> n;
    std::map<std::string, const ast::Expr*> value;
    count_bindings(body, n, value);
    for (const auto& p : params)
        n[p.name] += 2;
    Scope* saved = scope_;
    scope_ = &scope;  // is_literal_expr resolves names in the scope being scanned
    // To a fixpoint: `a = 0.5; b = a * 2.0` makes both literals.
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [name, count] : n) {
            if (count != 1 || !value.count(name) || scope.literal_locals.count(name)) continue;
            bool has_float = false;
            // Re-read at every use, so only expressions that read nothing at run time.
            if (!reads_memory(*value.at(name)) && is_literal_expr(*value.at(name), &has_float) &&
                has_float) {
                scope.literal_locals[name] = value.at(name);
                grew = true;
            }
        }
    }
    scope_ = saved;
}

}  // namespace tack::sema::lower
