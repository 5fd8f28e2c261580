// Helpers shared by the validation files: AST walking, the names a function binds, and call
// resolution (CONTRACT A22).

#include <algorithm>
#include <array>

#include "sema/validate.hpp"

namespace tack::sema {

using namespace frontend;

const char* const kOutsideLoopReason =
    "Statements before or after the parallel loop may run any number of times per launch, so "
    "they may only assign locals, load fields, declare local or shared arrays and read "
    "thread_id(); move it into the parallel loop";

std::string function_label(const FunctionDef& fn) {
    return std::string(fn.def_kind == DefKind::Kernel ? "Kernel '" : "Device function '") +
           fn.name + "'";
}

std::optional<std::string> dotted_name(const Expr& e) {
    if (auto* n = e.as<Name>()) return n->id;
    if (auto* a = e.as<Attribute>()) {
        auto base = dotted_name(*a->value);
        if (base) return *base + "." + a->attr;
    }
    return std::nullopt;
}

std::string python_class_name(const Expr& e) {
    static constexpr std::array<const char*, 17> kNames = {
        "Name",      "Constant",  "Constant", "Constant", "Constant", "Constant",
        "UnaryOp",   "BinOp",     "BoolOp",   "Compare",  "IfExp",    "Call",
        "Attribute", "Subscript", "Tuple",    "List",     "",
    };
    if (auto* u = e.as<Unsupported>()) return u->what;
    return kNames[static_cast<size_t>(e.kind)];
}

std::string python_class_name(const Stmt& s) {
    static constexpr std::array<const char*, 13> kNames = {
        "Expr",  "Assign",   "AugAssign", "AnnAssign", "If",          "For", "While",
        "Break", "Continue", "Pass",      "Return",    "FunctionDef", "",
    };
    if (auto* u = s.as<UnsupportedStmt>()) return u->what;
    if (auto* f = s.as<FunctionDef>(); f && f->is_async) return "AsyncFunctionDef";
    return kNames[static_cast<size_t>(s.kind)];
}

// ---- walking --------------------------------------------------------------------------------

void for_each_child(const Expr& e, const std::function<void(const Expr&)>& f) {
    auto each = [&](const std::vector<ExprPtr>& v) {
        for (const auto& x : v)
            f(*x);
    };
    switch (e.kind) {
        case ExprKind::Unary:
            f(*e.as<Unary>()->operand);
            break;
        case ExprKind::Binary:
            f(*e.as<Binary>()->lhs), f(*e.as<Binary>()->rhs);
            break;
        case ExprKind::BoolOp:
            each(e.as<BoolOp>()->values);
            break;
        case ExprKind::Compare:
            each(e.as<Compare>()->operands);
            break;
        case ExprKind::IfExp: {
            auto* x = e.as<IfExp>();
            f(*x->cond), f(*x->then_value), f(*x->else_value);
            break;
        }
        case ExprKind::Call: {
            auto* c = e.as<Call>();
            f(*c->func);
            each(c->args);
            for (const auto& k : c->keywords)
                f(*k.value);
            break;
        }
        case ExprKind::Attribute:
            f(*e.as<Attribute>()->value);
            break;
        case ExprKind::Subscript:
            f(*e.as<Subscript>()->value);
            each(e.as<Subscript>()->indices);
            break;
        case ExprKind::Tuple:
            each(e.as<Tuple>()->elts);
            break;
        case ExprKind::List:
            each(e.as<List>()->elts);
            break;
        default:
            break;
    }
}

void for_each_expr(const Stmt& s, const std::function<void(const Expr&)>& f) {
    auto opt = [&](const ExprPtr& p) {
        if (p) f(*p);
    };
    switch (s.kind) {
        case StmtKind::ExprStmt:
            f(*s.as<ExprStmt>()->value);
            break;
        case StmtKind::Assign:
            for (const auto& t : s.as<Assign>()->targets)
                f(*t);
            f(*s.as<Assign>()->value);
            break;
        case StmtKind::AugAssign:
            f(*s.as<AugAssign>()->target);
            f(*s.as<AugAssign>()->value);
            break;
        case StmtKind::AnnAssign:
            f(*s.as<AnnAssign>()->target);
            opt(s.as<AnnAssign>()->value);
            break;
        case StmtKind::If:
            f(*s.as<If>()->cond);
            break;
        case StmtKind::For:
            f(*s.as<For>()->target);
            f(*s.as<For>()->iter);
            break;
        case StmtKind::While:
            f(*s.as<While>()->cond);
            break;
        case StmtKind::Return:
            opt(s.as<Return>()->value);
            break;
        default:
            break;
    }
}

namespace {

void for_each_block(const Stmt& s, const std::function<void(const StmtList&)>& f) {
    if (auto* i = s.as<If>()) f(i->body), f(i->orelse);
    if (auto* l = s.as<For>()) f(l->body), f(l->orelse);
    if (auto* w = s.as<While>()) f(w->body), f(w->orelse);
}

void walk_calls(const Expr& e, const std::function<void(const Call&)>& f) {
    if (auto* c = e.as<Call>()) f(*c);
    for_each_child(e, [&](const Expr& child) { walk_calls(child, f); });
}

void collect_target_names(const Expr& t, std::set<std::string, std::less<>>& out) {
    if (auto* n = t.as<Name>()) out.insert(n->id);
    if (auto* tu = t.as<Tuple>())
        for (const auto& e : tu->elts)
            collect_target_names(*e, out);
    if (auto* l = t.as<List>())
        for (const auto& e : l->elts)
            collect_target_names(*e, out);
}

}  // namespace

void for_each_stmt(const StmtList& body, const std::function<void(const Stmt&)>& f) {
    for (const auto& s : body) {
        f(*s);
        for_each_block(*s, [&](const StmtList& b) { for_each_stmt(b, f); });
    }
}

void for_each_call(const Stmt& s, const std::function<void(const Call&)>& f) {
    for_each_expr(s, [&](const Expr& e) { walk_calls(e, f); });
}

FunctionNames collect_names(const FunctionDef& fn) {
    FunctionNames names;
    for (const Param& p : fn.params)
        names.params.insert(p.name);
    for_each_stmt(fn.body, [&](const Stmt& s) {
        if (auto* a = s.as<Assign>())
            for (const auto& t : a->targets)
                collect_target_names(*t, names.locals);
        if (auto* a = s.as<AugAssign>()) collect_target_names(*a->target, names.locals);
        if (auto* a = s.as<AnnAssign>()) collect_target_names(*a->target, names.locals);
        if (auto* l = s.as<For>()) collect_target_names(*l->target, names.locals);
    });
    return names;
}

bool is_store_target(const Expr& target) {
    if (target.as<Subscript>()) return true;
    if (auto* a = target.as<Attribute>()) return is_store_target(*a->value);
    if (auto* t = target.as<Tuple>()) {
        for (const auto& e : t->elts)
            if (is_store_target(*e)) return true;
    }
    if (auto* l = target.as<List>()) {
        for (const auto& e : l->elts)
            if (is_store_target(*e)) return true;
    }
    return false;
}

bool is_store(const Stmt& s) {
    if (auto* a = s.as<Assign>()) {
        for (const auto& t : a->targets)
            if (is_store_target(*t)) return true;
    }
    if (auto* a = s.as<AugAssign>()) return is_store_target(*a->target);
    return false;
}

size_t tuple_return_size(const FunctionDef& fn) {
    size_t n = 0;
    for_each_stmt(fn.body, [&](const Stmt& s) {
        auto* r = s.as<Return>();
        if (r && r->value && r->value->as<Tuple>()) n = r->value->as<Tuple>()->elts.size();
    });
    return n;
}

// ---- call resolution ------------------------------------------------------------------------

namespace {

Callee from_resolution(const Resolution& r, std::string_view spelled_last) {
    Callee c;
    switch (r.kind) {
        case Resolution::Kind::Func:
            c.kind = Callee::Kind::Func;
            c.func = r.func;
            break;
        case Resolution::Kind::Intrinsic:
            c.builtin = builtins::find(r.intrinsic);
            c.kind = c.builtin ? Callee::Kind::Builtin : Callee::Kind::Invalid;
            break;
        case Resolution::Kind::Unbound:
            c.builtin = builtins::find(spelled_last);
            c.kind = c.builtin ? Callee::Kind::Builtin : Callee::Kind::Invalid;
            break;
        case Resolution::Kind::Constant:
            c.why = "it names a tack.constant";
            break;
        case Resolution::Kind::Other:
            c.why = "it is bound to " + r.other_description;
            break;
    }
    return c;
}

// `tack.X`, `tack.math.X` or `math.X` spelled in a module that does not import them: upstream
// accepts these qualifiers for AST-only callers, so we do too.
Callee unimported_qualifier(const std::string& dotted) {
    Callee c;
    std::string_view rest;
    if (dotted.rfind("tack.math.", 0) == 0)
        rest = std::string_view(dotted).substr(10);
    else if (dotted.rfind("tack.", 0) == 0)
        rest = std::string_view(dotted).substr(5);
    else if (dotted.rfind("math.", 0) == 0)
        rest = std::string_view(dotted).substr(5);
    if (!rest.empty() && rest.find('.') == std::string_view::npos) c.builtin = builtins::find(rest);
    if (c.builtin) c.kind = Callee::Kind::Builtin;
    return c;
}

}  // namespace

Callee resolve_callee(const Expr& func, const FunctionNames& names, const Environment& env) {
    if (auto* n = func.as<Name>()) {
        if (names.binds(n->id)) {
            Callee c;
            c.why = "'" + n->id + "' is a parameter or local of the function";
            return c;
        }
        return from_resolution(env.resolve(n->id), n->id);
    }
    auto* attr = func.as<Attribute>();
    if (!attr) return {};
    auto dotted = dotted_name(func);
    std::string root = dotted ? dotted->substr(0, dotted->find('.')) : std::string();
    auto is_method = [&] { return builtins::find_method(attr->attr) != nullptr; };
    if (dotted && !names.binds(root) && is_method()) {
        // A method of a vector constant: SUN.cross(v), SUN.norm().
        Resolution base = env.resolve(dotted->substr(0, dotted->rfind('.')));
        if (base.kind == Resolution::Kind::Constant &&
            base.constant.kind == Constant::Kind::Tuple) {
            Callee c;
            c.kind = Callee::Kind::Method;
            return c;
        }
    }
    if (dotted && !names.binds(root)) {
        Resolution r = env.resolve(*dotted);
        if (r.kind != Resolution::Kind::Unbound) return from_resolution(r, attr->attr);
        if (env.resolve(root).kind == Resolution::Kind::Unbound)
            return unimported_qualifier(*dotted);
        return {};
    }
    Callee c;
    // A method of a value, or of a template instance (`cfg.step(x)`): lowering checks which.
    if (builtins::find_method(attr->attr) || dotted) c.kind = Callee::Kind::Method;
    return c;
}

bool is_value_attribute(std::string_view name) {
    static constexpr std::array<std::string_view, 6> kAttributes = {"shape", "size", "x",
                                                                    "y",     "z",    "w"};
    return std::find(kAttributes.begin(), kAttributes.end(), name) != kAttributes.end() ||
           builtins::find_method(name) != nullptr;
}

}  // namespace tack::sema
