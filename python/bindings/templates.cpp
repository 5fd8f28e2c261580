// @tack.data_oriented instances as kernel arguments (CONTRACT A23-A26): the instance is read
// here, once per call, into the core's TemplateInfo (interned, so equal views share variants)
// and a list of extra arguments (its fields, then its scalars, each sorted by name, then those
// of nested instances). Class constants are compiled in; instance scalars are runtime values.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "bindings.hpp"
#include "sema/templates.hpp"

namespace tack::python {

namespace {

uint64_t next_token = 1;

// A token per class object, kept in the class's own __dict__ (never inherited, never reused),
// so an equivalent class defined again (e.g. inside a function) never shares variants (D5).
uint64_t class_token(nb::handle cls) {
    nb::dict d =
        nb::borrow<nb::dict>(nb::handle(reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict));
    if (d.contains("_tack_class_token")) return nb::cast<uint64_t>(d["_tack_class_token"]);
    uint64_t t = next_token++;
    nb::setattr(cls, "_tack_class_token", nb::int_(t));
    return t;
}

nb::handle func_type() {
    static nb::object t = nb::module_::import_("tack._kernels").attr("Func");
    return t;
}

bool is_number(nb::handle v) {
    return PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr());
}

sema::Constant constant_of(nb::handle v) {
    if (PyFloat_Check(v.ptr())) return sema::Constant::floating(nb::cast<double>(v));
    int overflow = 0;
    long long small = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow == 0) return sema::Constant::integer(small);
    unsigned long long big = PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        raise_python(PyExc_ValueError, "a template class constant does not fit in 64 bits");
    }
    return sema::Constant::integer(static_cast<__int128>(big));
}

std::optional<sema::FuncRef> func_of(nb::handle v) {
    if (!nb::isinstance(v, func_type())) return std::nullopt;
    return func_ref_of(v.attr("_source"));
}

struct Expander {
    std::vector<detail::Arg>& extras;
    size_t first_index;
    std::vector<PyObject*> stack;  // instances being expanded (self-cycles)

    int expand(nb::handle obj, const std::string& what) {
        if (std::find(stack.begin(), stack.end(), obj.ptr()) != stack.end()) {
            raise_python(PyExc_ValueError, "template " + what +
                                               " contains itself; a template may hold other "
                                               "templates, not a cycle");
        }
        stack.push_back(obj.ptr());
        nb::handle cls = nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())));
        sema::TemplateInfo info;
        info.class_name = nb::cast<std::string>(cls.attr("__qualname__"));
        info.class_token = class_token(cls);
        std::map<std::string, sema::TemplateMember> members;
        // Class attributes along the MRO (the nearest definition wins): constants and methods.
        for (nb::handle klass : nb::borrow<nb::tuple>(cls.attr("__mro__"))) {
            if (klass.ptr() == reinterpret_cast<PyObject*>(&PyBaseObject_Type)) continue;
            nb::dict d = nb::borrow<nb::dict>(
                nb::handle(reinterpret_cast<PyTypeObject*>(klass.ptr())->tp_dict));
            for (auto [k, v] : d) {
                std::string name = nb::cast<std::string>(k);
                // Private data is ignored (A23), but a private @tack.func method (`_l1d`) is
                // still one the class's other methods call.
                bool dunder = name.rfind("__", 0) == 0;
                if (name.empty() || dunder || members.count(name)) continue;
                if (name[0] == '_' && !func_of(v) &&
                    !PyObject_TypeCheck(v.ptr(), &PyStaticMethod_Type))
                    continue;
                sema::TemplateMember m;
                m.name = name;
                if (is_number(v)) {
                    m.kind = sema::TemplateMember::Kind::Constant;
                    m.constant = constant_of(v);
                } else if (auto f = func_of(v)) {
                    m.kind = sema::TemplateMember::Kind::Method;
                    m.func = *f;
                } else if (PyObject_TypeCheck(v.ptr(), &PyStaticMethod_Type)) {
                    auto g = func_of(v.attr("__func__"));
                    if (!g) continue;
                    m.kind = sema::TemplateMember::Kind::Func;
                    m.func = *g;
                } else {
                    continue;
                }
                members.emplace(name, std::move(m));
            }
        }
        // Instance attributes: fields, runtime scalars, nested templates, function attributes.
        std::map<std::string, Field*> fields;
        std::map<std::string, nb::handle> scalars, nested;
        if (PyObject* dict_ptr = PyObject_GenericGetDict(obj.ptr(), nullptr)) {
            nb::dict d = nb::steal<nb::dict>(dict_ptr);
            for (auto [k, v] : d) {
                std::string name = nb::cast<std::string>(k);
                if (name.empty() || name[0] == '_') continue;
                auto cls_member = members.find(name);
                bool shadows_constant =
                    cls_member != members.end() &&
                    cls_member->second.kind == sema::TemplateMember::Kind::Constant;
                if (is_number(v) && shadows_constant) {
                    cls_member->second.constant = constant_of(v);  // A23: instance shadows class
                } else if (is_number(v)) {
                    scalars[name] = v;
                } else if (Field* f = field_ptr(v)) {
                    fields[name] = f;
                } else if (Field* t = texture_storage(v)) {
                    fields[name] = t;
                } else if (is_template_instance(v)) {
                    nested[name] = v;
                } else if (auto f = func_of(v)) {
                    sema::TemplateMember m;
                    m.name = name;
                    m.kind = sema::TemplateMember::Kind::Func;
                    m.func = *f;
                    members[name] = std::move(m);
                }
            }
        } else {
            PyErr_Clear();
        }
        for (auto& [name, f] : fields) {
            sema::TemplateMember m;
            m.name = name;
            m.kind = sema::TemplateMember::Kind::Field;
            m.arg = static_cast<int>(first_index + extras.size());
            extras.push_back(detail::Arg{&f->kernel, {}, -1});
            members[name] = std::move(m);
        }
        for (auto& [name, v] : scalars) {
            sema::TemplateMember m;
            m.name = name;
            m.kind = sema::TemplateMember::Kind::Scalar;
            m.arg = static_cast<int>(first_index + extras.size());
            detail::Arg a;
            scalar_from_python(v, a.scalar, what + "." + name);
            extras.push_back(a);
            members[name] = std::move(m);
        }
        for (auto& [name, v] : nested) {
            sema::TemplateMember m;
            m.name = name;
            m.kind = sema::TemplateMember::Kind::Template;
            m.template_id = expand(v, what + "." + name);
            members[name] = std::move(m);
        }
        for (auto& [name, m] : members)
            info.members.push_back(std::move(m));
        stack.pop_back();
        return sema::intern_template(std::move(info));
    }
};

}  // namespace

bool is_template_instance(nb::handle h) {
    // Asked only of arguments that are neither fields nor numbers, so no cache is needed.
    PyTypeObject* t = Py_TYPE(h.ptr());
    bool yes = false;
    if (PyObject* flag = PyObject_GetAttrString(reinterpret_cast<PyObject*>(t), "_data_oriented")) {
        yes = PyObject_IsTrue(flag) == 1;
        Py_DECREF(flag);
    } else {
        PyErr_Clear();
    }
    return yes;
}

int expand_template(nb::handle obj, size_t first_index, std::vector<detail::Arg>& extras,
                    const std::string& what) {
    Expander e{extras, first_index, {}};
    return e.expand(obj, what);
}

}  // namespace tack::python
