// Templates in kernels (CONTRACT A23-A25): `cfg.size` is a compiled-in class constant,
// `cfg.grid[i]` an extra field argument, `cfg.dt` an extra runtime scalar, `cfg.step(x)` an
// inlined method with `self` bound to the instance, `cfg.inner.n` a member of a nested
// instance. The instance itself is never a value.
//
// `for c in obj` loops over an object whose class declares `__tack_iterate__` (one to three of
// its integer members, fastest first): with one, `c` is the integer index of a range; with two or
// three, the vector of indices, c[0] fastest. As the parallel loop it launches in that shape (an
// ndrange, so nothing divides to recover the indices); inside a body it is nested range loops.
#include "sema/lower_context.hpp"

namespace tack::sema::lower {

std::optional<Binding> Lowerer::template_of(const ast::Expr& e) const {
    if (const auto* n = e.as<ast::Name>()) {
        auto it = scope_->names.find(n->id);
        if (it != scope_->names.end() && it->second.is(Type::Kind::Template)) return it->second;
        return std::nullopt;
    }
    if (const auto* a = e.as<ast::Attribute>()) {
        const TemplateMember* m = member_of(*a);
        if (m && m->kind == TemplateMember::Kind::Template) {
            return Binding::of_template(m->template_id);
        }
    }
    return std::nullopt;
}

const TemplateMember* Lowerer::member_of(const ast::Attribute& a) const {
    std::optional<Binding> t = template_of(*a.value);
    if (!t) return nullptr;
    const TemplateInfo& info = template_info(t->template_id());
    const TemplateMember* m = info.find(a.attr);
    // A24: an attribute the instance does not have, or one of a kind kernels cannot use.
    if (!m || m->kind == TemplateMember::Kind::Unusable) {
        std::string why = m ? "is " + m->what : "is not an attribute it has";
        fail(ErrorKind::ValueError,
             "template class '" + info.class_name + "': attribute '" + a.attr + "' " + why +
                 "; kernels use class constants, instance fields and numbers, nested templates, "
                 "@tack.func methods and function attributes",
             a.range);
    }
    return m;
}

void Lowerer::name_template_args(int template_id, const std::string& path,
                                 std::map<int, std::string>& names) const {
    for (const auto& m : template_info(template_id).members) {
        if (m.kind == TemplateMember::Kind::Field || m.kind == TemplateMember::Kind::Scalar)
            names[m.arg] = path + "." + m.name;
        if (m.kind == TemplateMember::Kind::Template)
            name_template_args(m.template_id, path + "." + m.name, names);
    }
}

std::vector<ir::ExprPtr> Lowerer::iteration_extents(const ast::For& loop, int template_id) {
    const TemplateInfo& info = template_info(template_id);
    std::string what = dotted(*loop.iter);
    if (!info.iterate_error.empty())
        type_error("cannot loop over '" + what + "': " + info.iterate_error, loop.iter->range);
    size_t n = info.iterate.size();
    if (!loop.target->as<ast::Name>()) {
        type_error("a loop over '" + what + "' binds one name, the index (" +
                       (n == 1 ? std::string("an integer") : std::to_string(n) + "-vector") +
                       " here)",
                   loop.target->range);
    }
    std::vector<ir::ExprPtr> extents;
    for (const auto& name : info.iterate) {
        const TemplateMember& m = *info.find(name);  // checked when the view was read
        ir::ExprPtr e = m.kind == TemplateMember::Kind::Constant
                            ? constant_expr(m.constant, std::nullopt, loop.iter->range)
                            : ir::VarRef::make(arg_bindings_.at(m.arg).var, loop.iter->range);
        extents.push_back(convert(e, i64));
    }
    return extents;
}

void Lowerer::bind_object_index(const std::string& name, const std::vector<ir::VarPtr>& vars,
                                const ast::StmtList& body, ir::Block& body_out) {
    if (vars.size() == 1) {
        bind_loop_var(name, vars[0], body, body_out);
        return;
    }
    std::set<std::string> assigned;
    collect_assigned(body, assigned);
    std::vector<ir::VarPtr> bound = vars;
    if (assigned.count(name)) {
        // The body rebinds the index: it gets copies, so the loops are unaffected.
        for (auto& v : bound) {
            ir::VarPtr copy = new_var(name, i64, v->decl);
            body_out.push_back(ir::Assign::make(copy, ir::VarRef::make(v, v->decl), v->decl));
            v = copy;
        }
    }
    Shape shape{static_cast<int>(vars.size()), 0};
    scope_->names[name] = Binding::components(bound, shape);
}

void Lowerer::lower_object_for(const ast::For& s, int template_id, ir::Block& out) {
    std::vector<ir::ExprPtr> extents = iteration_extents(s, template_id);
    const std::string& target = s.target->as<ast::Name>()->id;
    if (extents.size() > 1) {
        // Nested loops: `break` would leave only the innermost one.
        bool breaks = false;
        std::function<void(const ast::StmtList&)> scan = [&](const ast::StmtList& body) {
            for (const auto& st : body) {
                if (st->as<ast::Break>()) breaks = true;
                if (const auto* i = st->as<ast::If>()) {
                    scan(i->body);
                    scan(i->orelse);
                }
            }
        };
        scan(s.body);
        if (breaks) {
            fail(ErrorKind::UnsupportedSyntax,
                 "break in a loop over the " + std::to_string(extents.size()) + "-D object '" +
                     dotted(*s.iter) +
                     "' is not supported (it would leave only the innermost dimension)",
                 s.range);
        }
    }
    std::vector<ir::VarPtr> vars;
    for (size_t d = 0; d < extents.size(); ++d)
        vars.push_back(new_var(target, i64, s.target->range));
    ir::Block body;
    ++loop_depth_;
    ++block_depth_;
    auto before = scope_->names;
    bind_object_index(target, vars, s.body, body);
    lower_stmts(s.body, body);
    --block_depth_;
    --loop_depth_;
    end_block_arrays(before);
    scope_->names[target] = Binding{};  // A7: the binding ends with the loop
    // c[0] runs fastest: the innermost loop.
    for (size_t d = 0; d < extents.size(); ++d) {
        ir::Block wrapped;
        wrapped.push_back(ir::For::make(vars[d], ir::IntImm::make_i64(0, s.range), extents[d],
                                        ir::IntImm::make_i64(1, s.range), std::move(body),
                                        s.range));
        body = std::move(wrapped);
    }
    for (auto& st : body)
        out.push_back(std::move(st));
}

void Lowerer::not_iterable(const ast::For& s) const {
    fail(ErrorKind::UnsupportedSyntax,
         "loop iterable '" + dotted(*s.iter) +
             "' is not range(...), tack.ndrange(...) or an object whose class declares "
             "__tack_iterate__",
         s.iter->range);
}

}  // namespace tack::sema::lower
