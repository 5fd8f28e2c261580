// Templates in kernels (CONTRACT A23-A25): `cfg.size` is a compiled-in class constant,
// `cfg.grid[i]` an extra field argument, `cfg.dt` an extra runtime scalar, `cfg.step(x)` an
// inlined method with `self` bound to the instance, `cfg.inner.n` a member of a nested
// instance. The instance itself is never a value.
#include "sema/lower_context.hpp"

namespace tack::sema::lower {

std::optional<Binding> Lowerer::template_of(const ast::Expr& e) const {
    if (const auto* n = e.as<ast::Name>()) {
        auto it = scope_->names.find(n->id);
        if (it != scope_->names.end() && it->second.kind == Binding::Kind::Template)
            return it->second;
        return std::nullopt;
    }
    if (const auto* a = e.as<ast::Attribute>()) {
        const TemplateMember* m = member_of(*a);
        if (m && m->kind == TemplateMember::Kind::Template) {
            Binding b;
            b.kind = Binding::Kind::Template;
            b.template_id = m->template_id;
            return b;
        }
    }
    return std::nullopt;
}

const TemplateMember* Lowerer::member_of(const ast::Attribute& a) const {
    std::optional<Binding> t = template_of(*a.value);
    if (!t) return nullptr;
    const TemplateInfo& info = template_info(t->template_id);
    const TemplateMember* m = info.find(a.attr);
    if (!m) {
        // A24: an attribute the instance does not have (or one of a kind kernels cannot use).
        fail(ErrorKind::ValueError,
             "template class '" + info.class_name + "' has no kernel-usable attribute '" + a.attr +
                 "' (class constants, instance fields and scalars, @tack.func methods and "
                 "function attributes are usable)",
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

}  // namespace tack::sema::lower
