// lower_kernel (sema.hpp): parameters, the prologue, the parallel loop (CONTRACT A11-A16),
// per-iteration copies (A13), the final `return` (DECISIONS G7) and the local-type fixpoint
// (B8).
#include "ir/verifier.hpp"
#include "sema/lower_context.hpp"

namespace tack::sema {

namespace lower {

namespace {

constexpr int kMaxRounds = 16;

// A top-level loop over range/ndrange, or over a name or attribute (an object, when it is a
// template that declares __tack_iterate__; anything else is rejected where it is lowered).
bool is_parallel_loop(const Lowerer& l, const ast::Stmt& s) {
    const auto* f = s.as<ast::For>();
    if (f && (f->iter->as<ast::Name>() || f->iter->as<ast::Attribute>())) return true;
    const auto* call = f ? f->iter->as<ast::Call>() : nullptr;
    const builtins::Builtin* b = call ? l.intrinsic_of(*call) : nullptr;
    return b && b->category == builtins::Category::Range;
}

bool is_docstring_or_pass(const ast::Stmt& s) {
    if (s.as<ast::Pass>()) return true;
    const auto* e = s.as<ast::ExprStmt>();
    return e && e->value->as<ast::StrLit>();
}

// A12: statements before or after the parallel loop may only assign locals, load fields and
// declare arrays. Validation reports these on the source; lowering re-checks the IR it built so
// that unvalidated input still fails with a CompileError rather than an IR verifier error.
const char* forbidden_outside(const ir::Stmt& s, int loop_depth) {
    switch (s.kind) {
        case ir::StmtKind::Store:
            return "store";
        case ir::StmtKind::Atomic:
            return "atomic";
        case ir::StmtKind::Print:
            return "print()";
        case ir::StmtKind::Barrier:
            return "barrier()";
        case ir::StmtKind::BlockReduce:
            return "block reduction";
        case ir::StmtKind::Continue:
            return loop_depth == 0 ? "continue" : nullptr;
        case ir::StmtKind::Break:
            return loop_depth == 0 ? "break" : nullptr;
        default:
            return nullptr;
    }
}

void check_outside(const ir::Block& block, int loop_depth, const Scope& kernel) {
    for (const auto& s : block) {
        if (const char* what = forbidden_outside(*s, loop_depth)) {
            std::string msg = kernel.prefix + what + " " +
                              diag::at_position(*kernel.file, s->range) +
                              " is outside the parallel loop";
            diag::raise(ErrorKind::UnsupportedSyntax, msg, kernel.file, s->range);
        }
        if (const auto* i = s->as<ir::If>()) {
            check_outside(i->then_body, loop_depth, kernel);
            check_outside(i->else_body, loop_depth, kernel);
        } else if (const auto* f = s->as<ir::For>()) {
            check_outside(f->body, loop_depth + 1, kernel);
        } else if (const auto* w = s->as<ir::While>()) {
            check_outside(w->body, loop_depth + 1, kernel);
        }
    }
}

}  // namespace

Lowerer::Lowerer(const ast::FunctionDef& fn, const diag::SourceFilePtr& file,
                 const Environment& env, const std::vector<Type>& args, LocalTypes& types)
    : fn_(fn), args_(args), types_(types), kernel_name_(fn.name) {
    kernel_scope_.env = &env;
    kernel_scope_.file = file;
    kernel_scope_.prefix = "Kernel '" + fn.name + "': ";
    kernel_scope_.def_range = fn.range;
    for (const auto& p : fn.params)
        kernel_scope_.assigned.insert(p.name);
    collect_assigned(fn.body, kernel_scope_.assigned);
    scope_ = &kernel_scope_;
    find_literal_locals(fn.body, fn.params, kernel_scope_);
}

void Lowerer::bind_params(ir::Kernel& k) {
    // Declared parameters first, then the extra arguments of template instances (A23): their
    // fields and scalars, which only template member accesses name.
    std::map<int, std::string> extra_names;
    for (size_t i = 0; i < fn_.params.size() && i < args_.size(); ++i) {
        if (args_[i].is_template())
            name_template_args(args_[i].template_id, fn_.params[i].name, extra_names);
    }
    if (fn_.params.size() + extra_names.size() != args_.size()) {
        type_error("takes " + std::to_string(fn_.params.size()) + " argument(s) but " +
                       std::to_string(args_.size() - extra_names.size()) + " were given",
                   fn_.name_range);
    }
    for (size_t i = 0; i < args_.size(); ++i) {
        bool declared = i < fn_.params.size();
        const Type& a = args_[i];
        std::string pname = declared ? fn_.params[i].name : extra_names.at(static_cast<int>(i));
        SourceRange prange = declared ? fn_.params[i].range : fn_.name_range;
        ir::Param param;
        param.name = pname;
        Binding b;
        if (a.is_template()) {
            // The instance itself passes nothing: a placeholder slot keeps indices aligned.
            param.scalar = new_var(pname, DType::i32, prange, /*is_local=*/false);
            b = Binding::of_template(a.template_id);
        } else if (a.is_buffer()) {
            if (a.rank < (a.shape.is_scalar() ? 1 : 0) || a.rank > 4) {
                type_error("array argument '" + pname + "' must have 1 to 4 dimensions", prange);
            }
            // A vector or matrix field's storage has the element shape as its innermost
            // extents; the binding keeps the element shape (A28, A34).
            param.buffer = std::make_shared<const ir::Buffer>(
                ir::Buffer{pname, a.dtype, a.storage_rank(), ir::BufferKind::Param,
                           static_cast<int>(i), 0, next_var_id_++, prange, a.shape.rank()});
            b = a.kind == Type::Kind::Texture ? Binding::texture(param.buffer)
                                              : Binding::array(param.buffer, a.shape);
        } else {
            param.scalar = new_var(pname, a.dtype, prange, /*is_local=*/false);
            param_vars_.insert(param.scalar.get());
            b = Binding::scalar(param.scalar);
        }
        if (declared) {
            scope_->names[pname] = b;
        } else {
            arg_bindings_[static_cast<int>(i)] = b;
        }
        k.params.push_back(std::move(param));
    }
}

// ---- the parallel loop's bounds (A14-A16) -----------------------------------------------------

ir::ExprPtr Lowerer::host_value(const ir::ExprPtr& e) const {
    if (e->as<ir::IntImm>() || e->as<ir::ArrayDim>()) return e;
    if (const auto* v = e->as<ir::VarRef>()) {
        auto it = host_values_.find(v->var.get());
        if (it != host_values_.end()) return it->second;
        bool param = param_vars_.count(v->var.get()) && is_integer(v->type);
        return param ? e : nullptr;
    }
    if (const auto* c = e->as<ir::Cast>()) {
        if (!is_integer(c->type) || !is_integer(c->value->type)) return nullptr;
        ir::ExprPtr inner = host_value(c->value);
        return inner ? ir::Cast::make(c->type, inner, e->range) : nullptr;
    }
    if (const auto* b = e->as<ir::Binary>()) {
        bool ok = b->op == ir::BinaryOp::Add || b->op == ir::BinaryOp::Sub ||
                  b->op == ir::BinaryOp::Mul || b->op == ir::BinaryOp::FloorDiv;
        if (!ok || !is_integer(b->type)) return nullptr;
        ir::ExprPtr x = host_value(b->a), y = host_value(b->b);
        return x && y ? ir::Binary::make(b->op, x, y, e->range) : nullptr;
    }
    return nullptr;
}

ir::ExprPtr Lowerer::dim_expr(const ast::Expr& e) {
    ir::Block scratch;
    ir::ExprPtr v = lower_expr(e, scratch);
    if (!is_integer(v->type)) {
        type_error(std::string("parallel loop bounds must be integers, got ") + name(v->type),
                   e.range);
    }
    ir::ExprPtr host = scratch.empty() ? host_value(convert(v, i64)) : nullptr;
    if (!host) fail(ErrorKind::Runtime, "Cannot resolve loop range expression", e.range);
    return host;
}

std::vector<ir::LoopDim> Lowerer::loop_dims(const ast::For& loop) {
    const auto& call = static_cast<const ast::Call&>(*loop.iter);
    std::vector<std::array<const ast::Expr*, 3>> parts;  // start, end, step (null: default)
    const builtins::Builtin& iter = *intrinsic_of(call);
    check_arity(call, iter.signature);
    if (iter.name == "range") {
        const auto& a = call.args;
        if (a.size() == 1)
            parts.push_back({nullptr, a[0].get(), nullptr});
        else
            parts.push_back({a[0].get(), a[1].get(), a.size() == 3 ? a[2].get() : nullptr});
    } else {
        for (const auto& a : call.args) {
            const auto* pair = a->as<ast::Tuple>();
            if (pair && pair->elts.size() != 2) {
                type_error("ndrange() takes sizes or (start, end) pairs", a->range);
            }
            if (pair)
                parts.push_back({pair->elts[0].get(), pair->elts[1].get(), nullptr});
            else
                parts.push_back({nullptr, a.get(), nullptr});
        }
    }
    std::vector<ir::LoopDim> dims;
    for (const auto& [start, end, step] : parts) {
        ir::LoopDim d;
        d.start = start ? dim_expr(*start) : ir::IntImm::make_i64(0, call.range);
        d.end = dim_expr(*end);
        d.step = step ? dim_expr(*step) : ir::IntImm::make_i64(1, call.range);
        dims.push_back(std::move(d));
    }
    return dims;
}

void Lowerer::per_iteration_copies(const ast::StmtList& body, ir::Block& out) {
    std::set<std::string> assigned;
    collect_assigned(body, assigned);
    for (const auto& name : assigned) {
        auto it = scope_->names.find(name);
        if (it == scope_->names.end()) continue;
        Binding& b = it->second;
        auto copy_of = [&](const ir::VarPtr& v) {
            ir::VarPtr copy = new_var(name, v->type, v->decl);
            out.push_back(ir::Assign::make(copy, ir::VarRef::make(v, v->decl), v->decl));
            return copy;
        };
        // Same type key: the copy and the outer local share one storage type.
        if (b.is(Type::Kind::Scalar)) b.var = copy_of(b.var);
        if (b.has_components()) {
            for (auto& v : b.vars)
                v = copy_of(v);
        }
    }
}

void Lowerer::lower_parallel_loop(const ast::For& loop, ir::Kernel& k) {
    if (!loop.orelse.empty()) {
        fail(ErrorKind::UnsupportedSyntax, "for loop with else", loop.range);
    }
    if (loop.iter->as<ast::Name>() || loop.iter->as<ast::Attribute>()) {
        auto t = template_of(*loop.iter);
        if (!t) not_iterable(loop);
        return lower_parallel_object_loop(loop, t->template_id(), k);
    }
    std::vector<const ast::Name*> targets;
    if (const auto* n = loop.target->as<ast::Name>()) targets.push_back(n);
    if (const auto* t = loop.target->as<ast::Tuple>()) {
        for (const auto& e : t->elts)
            targets.push_back(e->as<ast::Name>());
    }
    k.dims = loop_dims(loop);
    if (targets.size() != k.dims.size() ||
        std::find(targets.begin(), targets.end(), nullptr) != targets.end()) {
        type_error("the parallel loop has " + std::to_string(k.dims.size()) +
                       " dimension(s); give one loop variable name per dimension",
                   loop.target->range);
    }
    auto outer = scope_->names;
    per_iteration_copies(loop.body, k.body);
    for (size_t d = 0; d < targets.size(); ++d) {
        k.dims[d].var = new_var(targets[d]->id, i64, targets[d]->range, /*is_local=*/false);
        bind_loop_var(targets[d]->id, k.dims[d].var, loop.body, k.body);
    }
    lower_stmts(loop.body, k.body);
    scope_->names = std::move(outer);
    // After the loop (the G7 result) only values bound before it are readable: the loop
    // variables' bindings end (A7) and locals first bound inside the loop are not visible.
    std::set<std::string> inner;
    collect_assigned(loop.body, inner);
    for (const auto* t : targets)
        inner.insert(t->id);
    for (const auto& name : inner) {
        if (!scope_->names.count(name)) scope_->names[name] = Binding{};
    }
    for (const auto* t : targets)
        scope_->names[t->id] = Binding{};
}

void Lowerer::lower_parallel_object_loop(const ast::For& loop, int template_id, ir::Kernel& k) {
    // Launched in the object's own shape: dims are row-major (the last runs fastest), and c[0]
    // is the fastest index, so the extents go in reverse.
    std::vector<ir::ExprPtr> extents = iteration_extents(loop, template_id);
    const auto& target = *loop.target->as<ast::Name>();
    std::vector<ir::VarPtr> vars(extents.size());
    for (size_t d = extents.size(); d-- > 0;) {
        ir::LoopDim dim;
        dim.start = ir::IntImm::make_i64(0, loop.iter->range);
        dim.end = host_value(extents[d]);
        if (!dim.end)
            fail(ErrorKind::Runtime, "Cannot resolve loop range expression", loop.iter->range);
        dim.step = ir::IntImm::make_i64(1, loop.iter->range);
        dim.var = vars[d] = new_var(target.id, i64, target.range, /*is_local=*/false);
        k.dims.push_back(std::move(dim));
    }
    auto outer = scope_->names;
    per_iteration_copies(loop.body, k.body);
    bind_object_index(target.id, vars, loop.body, k.body);
    lower_stmts(loop.body, k.body);
    scope_->names = std::move(outer);
    std::set<std::string> inner;
    collect_assigned(loop.body, inner);
    inner.insert(target.id);
    for (const auto& name : inner) {
        if (!scope_->names.count(name)) scope_->names[name] = Binding{};
    }
    scope_->names[target.id] = Binding{};
}

void Lowerer::lower_result(const ast::Return& ret, ir::Kernel& k) {
    if (!ret.value) return;
    std::optional<DType> t = fn_.returns ? dtype_of(*fn_.returns) : std::nullopt;
    if (fn_.returns && !t) {
        type_error("a kernel's return annotation must be tack.f32, float or int",
                   fn_.returns->range);
    }
    ir::Block scratch;
    ir::ExprPtr v = lower_expr(*ret.value, scratch, t && is_float(*t) ? t : std::nullopt);
    if (!scratch.empty()) {
        fail(ErrorKind::UnsupportedSyntax,
             "the kernel's return expression must be a plain expression (no calls that need "
             "statements)",
             ret.value->range);
    }
    k.result = t ? convert(v, *t) : v;
}

ir::Kernel Lowerer::run() {
    ir::Kernel k;
    k.name = fn_.name;
    k.file = kernel_scope_.file;
    k.range = fn_.range;
    bind_params(k);
    const ast::StmtList& body = fn_.body;
    size_t p = 0;
    while (p < body.size() && !is_parallel_loop(*this, *body[p]))
        ++p;
    if (p == body.size()) {
        std::string msg = kernel_scope_.prefix + "definition " +
                          diag::at_position(*kernel_scope_.file, fn_.range) +
                          " has no parallel loop: a kernel needs one top-level for loop over "
                          "range(...) or tack.ndrange(...)";
        diag::raise(ErrorKind::UnsupportedSyntax, msg, kernel_scope_.file, fn_.range);
    }
    in_prologue_ = true;
    for (size_t i = 0; i < p; ++i)
        lower_stmt(*body[i], k.prologue);
    in_prologue_ = false;
    check_outside(k.prologue, 0, kernel_scope_);
    lower_parallel_loop(static_cast<const ast::For&>(*body[p]), k);
    ir::Block epilogue;  // statements after the loop have no observable effect without a return
    for (size_t i = p + 1; i < body.size(); ++i) {
        const ast::Stmt& s = *body[i];
        if (is_docstring_or_pass(s)) continue;
        if (is_parallel_loop(*this, s)) {
            fail(ErrorKind::UnsupportedSyntax,
                 "a kernel has one parallel loop; this second one would not run", s.range);
        }
        const auto* ret = s.as<ast::Return>();
        if (ret && i + 1 == body.size() && epilogue.empty()) {
            lower_result(*ret, k);
        } else if (ret) {
            fail(ErrorKind::UnsupportedSyntax,
                 "a kernel may only end with `return expr` directly after the parallel loop",
                 s.range);
        } else {
            lower_stmt(s, epilogue);
        }
    }
    check_outside(epilogue, 0, kernel_scope_);
    k.locals = locals_;
    k.stmt_files = std::move(stmt_files_);
    return k;
}

}  // namespace lower

ir::Kernel lower_kernel(const frontend::FunctionDef& fn, const diag::SourceFilePtr& file,
                        const Environment& env, const std::vector<Type>& args) {
    lower::LocalTypes types;
    for (const Type& a : args) {
        if (a.is_buffer() && a.dtype == DType::f64) types.set_default_float(DType::f64);
    }
    for (int round = 0;; ++round) {
        types.begin_round();
        lower::Lowerer l(fn, file, env, args, types);
        ir::Kernel k = l.run();
        if (!types.settle()) {
            ir::verify(k, "lowering");
            return k;
        }
        if (round + 1 >= lower::kMaxRounds) {
            diag::raise(diag::ErrorKind::TypeError,
                        "Kernel '" + fn.name + "': local variable types did not settle", file,
                        fn.range);
        }
    }
}

}  // namespace tack::sema
