// @tack.data_oriented instances as kernel arguments (CONTRACT A23-A26): the instance is read
// here, once per call, into the core's TemplateInfo (interned, so equal views share variants)
// and a list of extra arguments (its fields, then its scalars, each sorted by name, then those
// of nested instances). Class constants are compiled in; instance scalars are runtime values.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "bindings.hpp"
#include "runtime/kernel_impl.hpp"
#include "sema/templates.hpp"

namespace tack::python {

namespace {

uint64_t next_token = 1;  // guarded by the GIL

// A token per class object, kept in the class's own __dict__ (never inherited, never reused),
// so an equivalent class defined again (e.g. inside a function) never shares variants (D5).
// A finalizer on the class forgets its views and drops what was built for them when the
// class is collected (D6; tack/_templates.py holds the finalizer).
uint64_t class_token(nb::handle cls) {
    nb::dict d =
        nb::borrow<nb::dict>(nb::handle(reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict));
    if (d.contains("_tack_class_token")) return nb::cast<uint64_t>(d["_tack_class_token"]);
    uint64_t t = next_token++;
    nb::setattr(cls, "_tack_class_token", nb::int_(t));
    // Leaked on purpose: a static nb::object would be released after the interpreter is gone.
    static nb::handle watch =
        nb::object(nb::module_::import_("tack._templates").attr("_watch_class")).release();
    watch(cls, t);
    return t;
}

void forget_template_class(uint64_t token) {
#if PY_VERSION_HEX >= 0x030D0000
    if (Py_IsFinalizing()) return;  // classes collected at exit: nothing left to serve
#else
    if (_Py_IsFinalizing()) return;
#endif
    // With the GIL held: no kernel holds its lock while waiting for the GIL, and what is
    // dropped may own Python state (a method's namespace).
    runtime::forget_templates(sema::forget_template_class(token));
}

// The class's `__tack_iterate__` (what `for c in obj` runs over), or why it cannot be used.
struct IterationSpace {
    std::vector<std::string> names;
    std::string error;
};

IterationSpace declared_space(nb::handle cls) {
    IterationSpace space;
    std::string cname = nb::cast<std::string>(cls.attr("__qualname__"));
    if (!nb::hasattr(cls, "__tack_iterate__")) {
        space.error = "template class '" + cname +
                      "' declares no __tack_iterate__, the one to three integer attributes a "
                      "`for` loop over it runs through (fastest first)";
        return space;
    }
    nb::object decl = cls.attr("__tack_iterate__");
    if (PyUnicode_Check(decl.ptr())) {
        space.names.push_back(nb::cast<std::string>(decl));
    } else if (PyTuple_Check(decl.ptr()) || PyList_Check(decl.ptr())) {
        for (nb::handle n : decl) {
            if (!PyUnicode_Check(n.ptr())) {
                space.names.clear();
                space.error = "template class '" + cname +
                              "': __tack_iterate__ must be an attribute name or a tuple of "
                              "names, got an item " +
                              nb::cast<std::string>(nb::repr(n));
                return space;
            }
            space.names.push_back(nb::cast<std::string>(n));
        }
    } else {
        space.error = "template class '" + cname +
                      "': __tack_iterate__ must be an attribute name or a tuple of names, got " +
                      nb::cast<std::string>(nb::repr(decl.type()));
        return space;
    }
    if (space.names.empty() || space.names.size() > 3) {
        space.error = "template class '" + cname +
                      "': __tack_iterate__ must name one to three attributes (fastest first); "
                      "it names " +
                      std::to_string(space.names.size());
        space.names.clear();
    }
    return space;
}

nb::handle func_type() {
    static nb::object t = nb::module_::import_("tack._kernels").attr("Func");
    return t;
}

// Python numbers and NumPy scalars (np.float32(0.5) as an attribute is a number too; hardening
// round three, defect 19).
bool is_number(nb::handle v) {
    if (PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())) return true;
    Scalar s;
    try {
        return scalar_from_python(v, s, "a template attribute");
    } catch (const nb::python_error&) {
        return false;
    }
}

sema::Constant constant_of(nb::handle v) {
    if (PyFloat_Check(v.ptr())) return sema::Constant::floating(nb::cast<double>(v));
    if (!PyLong_Check(v.ptr())) {  // a NumPy scalar: its value, typed as a Python number's
        Scalar s;
        scalar_from_python(v, s, "a template class constant");
        if (s.dtype == DType::f64) {
            double d;
            std::memcpy(&d, &s.bits, 8);
            return sema::Constant::floating(d);
        }
        if (s.dtype == DType::u64) return sema::Constant::integer(static_cast<__int128>(s.bits));
        if (s.dtype == DType::i64) return sema::Constant::integer(static_cast<int64_t>(s.bits));
        return sema::Constant::integer(static_cast<int32_t>(static_cast<uint32_t>(s.bits)));
    }
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

// What an attribute a kernel cannot use is, for the error where a kernel uses it (A24).
std::string unusable(nb::handle v) {
    if (PyFunction_Check(v.ptr()))
        return "a plain Python method, which kernels cannot call (decorate it with @tack.func)";
    if (PyObject_TypeCheck(v.ptr(), &PyStaticMethod_Type) ||
        PyObject_TypeCheck(v.ptr(), &PyClassMethod_Type))
        return "a static or class method that is not a @tack.func";
    static nb::handle kernel_type =
        nb::object(nb::module_::import_("tack._tack").attr("Kernel")).release();
    if (nb::isinstance(v, kernel_type)) return "a @tack.kernel (launch it from the host)";
    return "of type " + nb::cast<std::string>(nb::repr(v.type()));
}

using Members = std::map<std::string, sema::TemplateMember>;
using Kind = sema::TemplateMember::Kind;

// Class attributes along the MRO (the nearest definition wins): constants, methods, static
// @tack.func functions, and what kernels cannot use (named if a kernel reads it).
Members class_members(nb::handle cls) {
    Members members;
    for (nb::handle klass : nb::borrow<nb::tuple>(cls.attr("__mro__"))) {
        if (klass.ptr() == reinterpret_cast<PyObject*>(&PyBaseObject_Type)) continue;
        nb::dict d =
            nb::borrow<nb::dict>(nb::handle(reinterpret_cast<PyTypeObject*>(klass.ptr())->tp_dict));
        for (auto [k, v] : d) {
            std::string name = nb::cast<std::string>(k);
            // Private data is ignored (A23), but a private @tack.func method (`_l1d`) is still
            // one the class's other methods call.
            bool dunder = name.rfind("__", 0) == 0;
            bool static_method = PyObject_TypeCheck(v.ptr(), &PyStaticMethod_Type);
            if (name.empty() || dunder || members.count(name)) continue;
            if (name[0] == '_' && !func_of(v) && !static_method) continue;
            sema::TemplateMember m;
            m.name = name;
            if (is_number(v)) {
                m.kind = Kind::Constant;
                m.constant = constant_of(v);
            } else if (auto f = func_of(v)) {
                m.kind = Kind::Method;
                m.func = *f;
            } else if (static_method) {
                auto g = func_of(v.attr("__func__"));
                if (!g) continue;
                m.kind = Kind::Func;
                m.func = *g;
            } else {
                m.kind = Kind::Unusable;
                m.what = unusable(v);
            }
            members.emplace(name, std::move(m));
        }
    }
    return members;
}

// Instance attributes by what they become; numbers shadowing a class constant, function
// attributes and unusable ones go straight into `members`.
struct InstanceAttrs {
    std::map<std::string, Field*> fields;
    std::map<std::string, nb::handle> scalars, nested;
    std::vector<std::pair<std::string, nb::object>> keep;  // owns what properties returned
};

// The class's public data descriptors (properties, __slots__ members) and their values on
// `obj`, read now: to a kernel they are attributes of the instance like those in its __dict__
// (hardening round three, defect 19: they were refused). An unset slot is left out.
// A getter that raises leaves the attribute unusable, with what it raised, for the error a
// kernel reading it gets; a launch that does not read it is unaffected.
std::vector<std::pair<std::string, nb::object>> descriptor_values(
    nb::handle obj, std::map<std::string, std::string>& failed) {
    std::vector<std::pair<std::string, nb::object>> out;
    std::set<std::string> seen;
    for (nb::handle klass : nb::borrow<nb::tuple>(obj.type().attr("__mro__"))) {
        nb::dict d =
            nb::borrow<nb::dict>(nb::handle(reinterpret_cast<PyTypeObject*>(klass.ptr())->tp_dict));
        for (auto [k, v] : d) {
            std::string name = nb::cast<std::string>(k);
            if (name.empty() || name[0] == '_' || !seen.insert(name).second) continue;
            if (Py_TYPE(v.ptr())->tp_descr_get == nullptr ||
                Py_TYPE(v.ptr())->tp_descr_set == nullptr)
                continue;  // not a data descriptor: a method, a constant, a plain attribute
            PyObject* value = PyObject_GetAttr(obj.ptr(), k.ptr());
            if (!value) {
                if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
                    nb::python_error e;  // takes and clears the error
                    failed[name] = std::string("a property whose getter raised ") +
                                   nb::cast<std::string>(nb::str(e.type().attr("__name__"))) +
                                   ": " + nb::cast<std::string>(nb::str(e.value()));
                }
                PyErr_Clear();  // an unset slot, or a property that has no value here
                continue;
            }
            out.emplace_back(name, nb::steal(value));
        }
    }
    return out;
}

InstanceAttrs instance_attrs(nb::handle obj, Members& members) {
    InstanceAttrs attrs;
    std::vector<std::pair<std::string, nb::object>> entries;
    if (PyObject* dict_ptr = PyObject_GenericGetDict(obj.ptr(), nullptr)) {
        nb::dict d = nb::steal<nb::dict>(dict_ptr);
        for (auto [k, v] : d)
            entries.emplace_back(nb::cast<std::string>(k), nb::borrow(v));
    } else {
        PyErr_Clear();  // no __dict__ (__slots__ only)
    }
    std::map<std::string, std::string> failed;
    for (auto& entry : descriptor_values(obj, failed))
        entries.push_back(std::move(entry));
    for (const auto& [name, why] : failed) {
        sema::TemplateMember& m = members[name] = sema::TemplateMember{};
        m.name = name;
        m.kind = Kind::Unusable;
        m.what = why;
    }
    attrs.keep = entries;
    for (const auto& [name, v] : entries) {
        if (name.empty() || name[0] == '_') continue;
        auto cls_member = members.find(name);
        bool shadows_constant =
            cls_member != members.end() && cls_member->second.kind == Kind::Constant;
        if (is_number(v) && shadows_constant) {
            cls_member->second.constant = constant_of(v);  // A23: the instance value, compiled in
        } else if (is_number(v)) {
            attrs.scalars[name] = v;
        } else if (Field* f = field_ptr(v)) {
            attrs.fields[name] = f;
        } else if (nb::object storage; Field* t = texture_storage(v, storage)) {
            attrs.fields[name] = t;
            attrs.keep.emplace_back(name, std::move(storage));
        } else if (is_template_instance(v)) {
            attrs.nested[name] = v;
        } else {
            sema::TemplateMember m;
            m.name = name;
            if (auto f = func_of(v)) {
                m.kind = Kind::Func;
                m.func = *f;
            } else {
                m.kind = Kind::Unusable;
                m.what = unusable(v);
            }
            members[name] = std::move(m);
        }
    }
    return attrs;
}

// Why `space` cannot be iterated over an instance with `members`, or "".
std::string iteration_error(const std::string& class_name, const IterationSpace& space,
                            const Members& members, const InstanceAttrs& attrs) {
    if (!space.error.empty()) return space.error;
    for (const auto& n : space.names) {
        auto it = members.find(n);
        const char* why = nullptr;
        if (it == members.end()) {
            why = "not an attribute it has";
        } else if (it->second.kind == Kind::Constant) {
            if (it->second.constant.kind != sema::Constant::Kind::Int) why = "not an integer";
        } else if (it->second.kind == Kind::Scalar) {
            if (!PyLong_Check(attrs.scalars.at(n).ptr())) why = "not an integer";
        } else {
            why = "not a scalar attribute";
        }
        if (why) {
            return "template class '" + class_name + "': __tack_iterate__ names '" + n +
                   "', which is " + why +
                   " (each name must be an integer class constant or instance attribute)";
        }
    }
    return "";
}

// How deep templates may hold templates (kernel argument t, t.child, t.child.child, ...).
constexpr size_t kMaxTemplateDepth = 256;

struct Expander {
    std::vector<detail::Arg>& extras;
    size_t first_index;
    std::vector<PyObject*> stack;  // instances being expanded (self-cycles)
    // Instances already expanded in this argument: one held at several paths (t.a and t.b the
    // same child) is expanded once and its template and extra arguments are shared, so a DAG
    // costs its size, not its number of paths (hardening round three, defect 7: 2^depth).
    std::unordered_map<PyObject*, int> expanded;

    // `path`: where the instance is, unquoted ("cells", "cells.base").
    int expand(nb::handle obj, const std::string& path) {
        if (std::find(stack.begin(), stack.end(), obj.ptr()) != stack.end()) {
            raise_python(PyExc_TypeError, "template '" + path +
                                              "' holds itself; a template may hold other "
                                              "templates, but not in a cycle");
        }
        // Each nesting level is expanded, interned and lowered recursively; an unbounded depth
        // would end in a stack overflow (hardening round three, defect 3: 20,000 nested
        // instances crashed).
        if (stack.size() >= kMaxTemplateDepth) {
            std::string shown = path.size() > 160
                                    ? path.substr(0, 70) + "..." + path.substr(path.size() - 70)
                                    : path;
            raise_python(PyExc_TypeError, "templates nest deeper than " +
                                              std::to_string(kMaxTemplateDepth) + " ('" + shown +
                                              "'); a template may hold templates at most " +
                                              std::to_string(kMaxTemplateDepth) + " deep");
        }
        if (auto done = expanded.find(obj.ptr()); done != expanded.end()) return done->second;
        stack.push_back(obj.ptr());
        nb::handle cls = nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())));
        sema::TemplateInfo info;
        info.class_name = nb::cast<std::string>(cls.attr("__qualname__"));
        info.class_token = class_token(cls);
        Members members = class_members(cls);
        InstanceAttrs attrs = instance_attrs(obj, members);
        // Extra arguments: fields, then scalars, each sorted by name, then nested templates'.
        for (auto& [name, f] : attrs.fields) {
            sema::TemplateMember& m = member(members, name, Kind::Field);
            auto shape = f->array.shape();
            m.shape.assign(shape.begin(), shape.end());
            extras.push_back(detail::Arg{&f->array, {}, -1});
        }
        for (auto& [name, v] : attrs.scalars) {
            member(members, name, Kind::Scalar);
            detail::Arg a;
            scalar_from_python(v, a.scalar, "'" + path + "." + name + "'");
            extras.push_back(a);
        }
        for (auto& [name, v] : attrs.nested) {
            int id = expand(v, path + "." + name);
            new_member(members, name, Kind::Template).template_id = id;
        }
        IterationSpace space = declared_space(cls);
        info.iterate_error = iteration_error(info.class_name, space, members, attrs);
        if (info.iterate_error.empty()) info.iterate = space.names;
        for (auto& [name, m] : members)
            info.members.push_back(std::move(m));
        stack.pop_back();
        int id = sema::intern_template(std::move(info));
        expanded.emplace(obj.ptr(), id);
        return id;
    }

    // A field or scalar member taking the next extra argument.
    sema::TemplateMember& member(Members& members, const std::string& name, Kind kind) {
        sema::TemplateMember& m = new_member(members, name, kind);
        m.arg = static_cast<int>(first_index + extras.size());
        return m;
    }

    static sema::TemplateMember& new_member(Members& members, const std::string& name, Kind kind) {
        sema::TemplateMember& m = members[name] = sema::TemplateMember{};
        m.name = name;
        m.kind = kind;
        return m;
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
    std::string path = what;  // the kernels' "'cells'"
    if (path.size() >= 2 && path.front() == '\'' && path.back() == '\'')
        path = path.substr(1, path.size() - 2);
    Expander e{extras, first_index, {}, {}};
    return e.expand(obj, path);
}

void init_templates(nb::module_& m) {
    m.def("_forget_template_class", &forget_template_class, nb::arg("token"));
    // The names a `for c in obj` loop over instances of `cls` runs through, fastest first.
    m.def(
        "_iteration_space",
        [](nb::handle cls) {
            IterationSpace space = declared_space(cls);
            if (!space.error.empty()) raise_python(PyExc_TypeError, space.error);
            nb::list names;
            for (const auto& n : space.names)
                names.append(n);
            return nb::tuple(names);
        },
        nb::arg("cls"));
}

}  // namespace tack::python
