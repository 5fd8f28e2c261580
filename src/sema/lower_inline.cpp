// @tack.func inlining (CONTRACT A20, A22): every call site gets a fresh copy of the callee's
// variables; scalar arguments are copied in, arrays aliased. A `return` ends the function on its
// path: the statements after an `if` that returns on some path are lowered again inside each of
// its branches, so no jump is needed (returns cannot be inside loops).
#include <algorithm>

#include "sema/lower_context.hpp"
#include "sema/validate.hpp"

namespace tack::sema::lower {

namespace {

void collect_target(const ast::Expr& t, std::set<std::string>& out) {
    if (const auto* n = t.as<ast::Name>()) out.insert(n->id);
    if (const auto* tu = t.as<ast::Tuple>()) {
        for (const auto& e : tu->elts)
            collect_target(*e, out);
    }
    if (const auto* l = t.as<ast::List>()) {
        for (const auto& e : l->elts)
            collect_target(*e, out);
    }
}

std::string ret_slot(size_t k) {
    return "$ret" + std::to_string(k);
}

}  // namespace

void collect_assigned(const ast::StmtList& body, std::set<std::string>& out) {
    for (const auto& s : body) {
        if (const auto* a = s->as<ast::Assign>()) {
            for (const auto& t : a->targets)
                collect_target(*t, out);
        } else if (const auto* a = s->as<ast::AugAssign>()) {
            collect_target(*a->target, out);
        } else if (const auto* a = s->as<ast::AnnAssign>()) {
            collect_target(*a->target, out);
        } else if (const auto* f = s->as<ast::For>()) {
            collect_target(*f->target, out);
            collect_assigned(f->body, out);
            collect_assigned(f->orelse, out);
        } else if (const auto* w = s->as<ast::While>()) {
            collect_assigned(w->body, out);
            collect_assigned(w->orelse, out);
        } else if (const auto* i = s->as<ast::If>()) {
            collect_assigned(i->body, out);
            collect_assigned(i->orelse, out);
        }
    }
}

bool contains_return(const ast::StmtList& body) {
    for (const auto& s : body) {
        if (s->as<ast::Return>()) return true;
        if (const auto* i = s->as<ast::If>()) {
            if (contains_return(i->body) || contains_return(i->orelse)) return true;
        }
    }
    return false;
}

// "call chain k -> f -> ... -> y -> g": the calls being inlined, then `callee`.
std::string Lowerer::call_chain(const std::string& callee) const {
    std::string chain = "call chain " + kernel_name_;
    for (size_t i = 0; i < call_names_.size(); ++i) {
        if (i == 2 && call_names_.size() > 5) {
            chain += " -> ...";
            i = call_names_.size() - 2;
        }
        chain += " -> " + call_names_[i];
    }
    return chain + " -> " + callee;
}

std::vector<Val> Lowerer::inline_call(const ast::Call& e, const FuncRef& f, ir::Block& out,
                                      const Binding* self) {
    std::string fname = f.def ? f.def->name : dotted(*e.func);
    if (!f.def) fail(ErrorKind::UnsupportedSyntax, "'" + fname + "' has no definition", e.range);
    const ast::FunctionDef& def = *f.def;
    std::pair<const void*, int> frame{f.identity(), self ? self->template_id() : -1};
    if (std::find(call_stack_.begin(), call_stack_.end(), frame) != call_stack_.end()) {
        std::string chain = kernel_name_;
        for (const auto& n : call_names_)
            chain += " -> " + n;
        fail(ErrorKind::UnsupportedSyntax,
             "recursive call to @tack.func '" + fname + "' (call chain " + chain + " -> " + fname +
                 ")",
             e.range);
    }
    if (call_stack_.size() >= size_t(kMaxCallDepth)) {
        fail(ErrorKind::UnsupportedSyntax,
             "@tack.func calls nest deeper than " + std::to_string(kMaxCallDepth) + " (" +
                 call_chain(fname) + "); shorten the chain or merge some of its functions",
             e.range);
    }
    if (++inlined_calls_ > kMaxInlinedCalls) {
        fail(ErrorKind::UnsupportedSyntax,
             "kernel '" + kernel_name_ + "' inlines more than " + std::to_string(kMaxInlinedCalls) +
                 " @tack.func calls (" + call_chain(fname) +
                 " is one more); every call is inlined, so calls within calls multiply: "
                 "compute a repeated call's value once into a local, or loop instead",
             e.range);
    }
    size_t given = e.args.size() + (self ? 1 : 0);
    if (def.params.size() != given) {
        type_error(fname + "() takes " + std::to_string(def.params.size()) +
                       " positional argument(s) but " + std::to_string(given) + " were given",
                   e.range);
    }
    // Arguments evaluate left to right in the caller; arrays are aliased, not evaluated.
    std::vector<const ast::Expr*> scalars;
    for (const auto& a : e.args) {
        if (!array_binding(*a) && !template_of(*a)) scalars.push_back(a.get());
    }
    // A weak literal argument is copied into a parameter like an assignment to a fresh local,
    // so it stays f32 (B4) rather than adopting a sibling argument's type.
    std::vector<Val> values = lower_values(scalars, out, f32);

    Scope callee = callee_scope(e, f, values, out, self);
    Scope* caller = scope_;
    int saved_depth = loop_depth_;
    scope_ = &callee;
    loop_depth_ = 0;
    call_stack_.push_back(frame);
    call_names_.push_back(def.name);
    size_t first_stmt = out.size();
    lower_func_body(def.body, out);
    if (callee.file != caller->file) {
        for (size_t i = first_stmt; i < out.size(); ++i)
            stmt_files_.emplace(out[i], callee.file);  // a nested callee's entry stays
    }
    call_names_.pop_back();
    call_stack_.pop_back();
    loop_depth_ = saved_depth;
    scope_ = caller;

    std::vector<Val> results;
    for (size_t k = 0; k < static_cast<size_t>(std::max(callee.return_arity, 0)); ++k) {
        auto vec = callee.vector_locals.find(ret_slot(k));
        if (vec == callee.vector_locals.end()) {
            results.push_back(Val::of(ir::VarRef::make(callee.locals.at(ret_slot(k)), e.range)));
            continue;
        }
        Val v{types_.shape(callee.key_prefix + ret_slot(k)), {}};
        for (const auto& var : vec->second)
            v.c.push_back(ir::VarRef::make(var, e.range));
        results.push_back(std::move(v));
    }
    return results;
}

Scope Lowerer::callee_scope(const ast::Call& e, const FuncRef& f, const std::vector<Val>& values,
                            ir::Block& out, const Binding* self) {
    const ast::FunctionDef& def = *f.def;
    Scope callee;
    callee.env = f.env ? f.env.get() : scope_->env;
    callee.file = f.file ? f.file : scope_->file;
    callee.prefix =
        "Device function '" + def.name + "' (inlined into kernel '" + kernel_name_ + "'): ";
    callee.key_prefix = def.name + "#" + std::to_string(next_inline_++) + "/";
    callee.is_kernel = false;
    callee.def_range = def.range;
    for (const auto& p : def.params)
        callee.assigned.insert(p.name);
    collect_assigned(def.body, callee.assigned);
    size_t next = 0;
    size_t first = 0;
    if (self) {
        callee.names[def.params[0].name] = *self;  // a method's `self` is the template
        first = 1;
    }
    for (size_t i = first; i < def.params.size(); ++i) {
        const ast::Param& p = def.params[i];
        const ast::Expr& arg = *e.args[i - first];
        if (const Binding* arr = array_binding(arg)) {
            callee.names[p.name] = *arr;
            continue;
        }
        if (auto t = template_of(arg)) {  // templates are passed by name, like arrays
            callee.names[p.name] = *t;
            continue;
        }
        const Val& v = values[next++];
        std::vector<ir::VarPtr> vars;
        for (const auto& c : v.c) {
            vars.push_back(new_var(p.name, c->type, p.range));
            out.push_back(ir::Assign::make(vars.back(), c, e.range));
        }
        if (v.shape.is_scalar()) {
            callee.names[p.name] = Binding::scalar(vars[0]);
        } else {
            callee.names[p.name] = Binding::components(vars, v.shape);
        }
    }
    find_literal_locals(def.body, def.params, callee);
    return callee;
}

void Lowerer::lower_func_body(const ast::StmtList& body, ir::Block& out) {
    lower_with_tail({{&body, 0}}, out);
}

void Lowerer::lower_with_tail(std::vector<std::pair<const ast::StmtList*, size_t>> conts,
                              ir::Block& out) {
    for (size_t c = 0; c < conts.size(); ++c) {
        const ast::StmtList& list = *conts[c].first;
        for (size_t i = conts[c].second; i < list.size(); ++i) {
            const ast::Stmt& s = *list[i];
            if (const auto* r = s.as<ast::Return>()) {
                lower_return(*r, out);
                return;  // the rest of this path is unreachable
            }
            const auto* branch = s.as<ast::If>();
            if (!branch || !(contains_return(branch->body) || contains_return(branch->orelse))) {
                lower_stmt(s, out);
                continue;
            }
            // The rest of the function continues inside each branch.
            std::vector<std::pair<const ast::StmtList*, size_t>> rest = {{&list, i + 1}};
            rest.insert(rest.end(), conts.begin() + static_cast<long>(c) + 1, conts.end());
            ir::ExprPtr cond = lower_expr(*branch->cond, out);
            auto saved = scope_->names;
            ir::Block then_body, else_body;
            auto then_conts = rest, else_conts = rest;
            then_conts.insert(then_conts.begin(), {&branch->body, 0});
            else_conts.insert(else_conts.begin(), {&branch->orelse, 0});
            ++block_depth_;
            lower_with_tail(then_conts, then_body);
            scope_->names = saved;
            lower_with_tail(else_conts, else_body);
            --block_depth_;
            out.push_back(ir::If::make(cond, std::move(then_body), std::move(else_body), s.range));
            return;
        }
    }
}

void Lowerer::lower_return(const ast::Return& s, ir::Block& out) {
    std::vector<const ast::Expr*> values;
    if (const auto* t = s.value ? s.value->as<ast::Tuple>() : nullptr) {
        for (const auto& e : t->elts)
            values.push_back(e.get());
    } else if (s.value) {
        values.push_back(s.value.get());
    }
    int arity = static_cast<int>(values.size());
    if (scope_->return_arity >= 0 && scope_->return_arity != arity) {
        type_error("returns " + std::to_string(arity) + " value(s) here but " +
                       std::to_string(scope_->return_arity) + " elsewhere",
                   s.range);
    }
    scope_->return_arity = arity;
    // Strong values first (in order, with spills), then weak ones with their slot's type.
    std::vector<const ast::Expr*> strong;
    for (const auto* v : values) {
        if (!is_weak(*v)) strong.push_back(v);
    }
    auto lowered = lower_values(strong, out);
    std::vector<Val> results;
    size_t next = 0;
    for (size_t k = 0; k < values.size(); ++k) {
        if (!is_weak(*values[k])) {
            results.push_back(lowered[next++]);
        } else {
            results.push_back(lower_value(*values[k], out, name_hint(ret_slot(k))));
        }
    }
    for (size_t k = 0; k < values.size(); ++k) {
        assign_name(ret_slot(k), results[k], is_weak(*values[k]), values[k]->range, out);
    }
}

}  // namespace tack::sema::lower
