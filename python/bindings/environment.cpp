// The core's Environment interface answered from Python (CONTRACT A6, A22): a kernel's or
// device function's names resolve through its real closure, globals and builtins, which only
// Python can see. The package's resolver (tack/_names.py) classifies what a name is bound to;
// this file turns the answer into a sema::Resolution and memoizes it, so bindings are read
// once, when the IR template is first built.
#include <mutex>
#include <unordered_map>

#include "bindings.hpp"
#include "frontend/parser.hpp"
#include "runtime/errors.hpp"
#include "sema/sema.hpp"

namespace tack::python {

namespace {

using sema::Resolution;

class PyEnvironment final : public sema::ModuleEnvironment {
  public:
    PyEnvironment(std::shared_ptr<const frontend::Module> module, nb::object resolver)
        : ModuleEnvironment(std::move(module)), resolver_(std::move(resolver)) {}

    ~PyEnvironment() override {
        // The last reference may go away on a thread that does not hold the GIL.
        if (!Py_IsInitialized()) {
            (void)resolver_.release();
            return;
        }
        nb::gil_scoped_acquire gil;
        resolver_.reset();
    }

    Resolution resolve(std::string_view dotted_name) const override {
        std::string key(dotted_name);
        {
            std::lock_guard lock(mutex_);
            if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        }
        Resolution r = ask_python(key);
        std::lock_guard lock(mutex_);
        return memo_.try_emplace(key, std::move(r)).first->second;  // the first answer wins
    }

  private:
    Resolution ask_python(const std::string& name) const;

    nb::object resolver_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Resolution> memo_;
};

// A @tack.func's parsed source: built at decoration, resolved on demand by kernels that call it.
class FuncSource {
  public:
    FuncSource(const std::string& source, const std::string& path, int line_offset, int col_offset,
               nb::object resolver)
        : parsed_(parse_function(source, path, line_offset, col_offset, std::move(resolver))) {}

    sema::FuncRef ref() const {
        sema::FuncRef r;
        r.def = parsed_.fn;
        r.file = parsed_.file;
        r.env = parsed_.env;
        r.keep_alive = parsed_.module;
        return r;
    }
    const std::string& name() const { return parsed_.fn->name; }

  private:
    ParsedFunction parsed_;
};

std::optional<DType> dtype_named(nb::handle h) {
    if (h.is_none()) return std::nullopt;
    return dtype_arg(h);
}

// Python ints of any size; the core keeps tack.constant values as __int128.
__int128 to_int128(nb::handle v) {
    int overflow = 0;
    long long small = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow == 0) return small;
    unsigned long long big = PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw RuntimeError("tack.constant integer " + nb::cast<std::string>(nb::str(v)) +
                           " does not fit in 64 bits");
    }
    return static_cast<__int128>(big);
}

// The resolver's answer: ("unbound",), ("intrinsic", name), ("int", value, dtype|None),
// ("float", value, dtype|None), ("tuple", rows, cols, components, dtype|None),
// ("func", FuncSource), ("other", description).
Resolution convert(nb::handle answer) {
    nb::tuple t = nb::borrow<nb::tuple>(answer);
    std::string tag = nb::cast<std::string>(t[0]);
    Resolution r;
    if (tag == "unbound") return r;
    if (tag == "intrinsic") {
        r.kind = Resolution::Kind::Intrinsic;
        r.intrinsic = nb::cast<std::string>(t[1]);
    } else if (tag == "int") {
        r.kind = Resolution::Kind::Constant;
        r.constant = sema::Constant::integer(to_int128(t[1]), dtype_named(t[2]));
    } else if (tag == "float") {
        r.kind = Resolution::Kind::Constant;
        r.constant = sema::Constant::floating(nb::cast<double>(t[1]), dtype_named(t[2]));
    } else if (tag == "tuple") {
        // ("tuple", rows, cols, (components...), dtype|None): a vector or matrix constant.
        r.kind = Resolution::Kind::Constant;
        sema::Constant& c = r.constant;
        c.kind = sema::Constant::Kind::Tuple;
        c.rows = nb::cast<int>(t[1]);
        c.cols = nb::cast<int>(t[2]);
        c.dtype = dtype_named(t[4]);
        for (nb::handle item : nb::borrow<nb::tuple>(t[3])) {
            c.items.push_back(PyFloat_Check(item.ptr())
                                  ? sema::Constant::floating(nb::cast<double>(item), c.dtype)
                                  : sema::Constant::integer(to_int128(item), c.dtype));
        }
    } else if (tag == "func") {
        r.kind = Resolution::Kind::Func;
        r.func = nb::cast<const FuncSource&>(t[1]).ref();
    } else {
        r.kind = Resolution::Kind::Other;
        r.other_description = nb::cast<std::string>(t[1]);
    }
    return r;
}

Resolution PyEnvironment::ask_python(const std::string& name) const {
    nb::gil_scoped_acquire gil;
    try {
        return convert(resolver_(name));
    } catch (nb::python_error& e) {
        // Python errors must not cross the GIL-free compile path as Python objects.
        throw RuntimeError("resolving the name '" + name + "' failed: " + e.what());
    } catch (const nb::cast_error&) {
        throw RuntimeError("resolving the name '" + name + "' gave a malformed answer");
    }
}

}  // namespace

ParsedFunction parse_function(const std::string& source, const std::string& path, int line_offset,
                              int col_offset, nb::object resolver) {
    ParsedFunction p;
    p.file = std::make_shared<diag::SourceFile>(path, source, line_offset, col_offset);
    frontend::ParseResult parsed;
    try {
        parsed = frontend::parse_module(p.file);
    } catch (const diag::CompileError& e) {
        runtime::throw_public(e);
    }
    if (!parsed.errors.empty()) runtime::throw_public(parsed.errors.front());
    if (parsed.module.functions.size() != 1)
        throw RuntimeError("internal error: the captured source of a kernel holds " +
                           std::to_string(parsed.module.functions.size()) + " definitions");
    auto module = std::make_shared<const frontend::Module>(std::move(parsed.module));
    p.fn = module->functions.front().get();
    if (p.fn->def_kind == frontend::DefKind::Kernel) {
        // A misplaced or unannotated `return` is an error when the kernel is decorated (G7).
        auto result_errors = sema::validate_result(*p.fn, p.file);
        if (!result_errors.empty()) runtime::throw_public(result_errors.front());
    }
    p.env = std::make_shared<PyEnvironment>(module, std::move(resolver));
    p.module = std::move(module);
    return p;
}

std::optional<sema::FuncRef> func_ref_of(nb::handle source) {
    FuncSource* s = nullptr;
    if (!nb::try_cast<FuncSource*>(source, s) || !s) return std::nullopt;
    return s->ref();
}

void init_environment(nb::module_& m) {
    nb::class_<FuncSource>(m, "_FuncSource")
        .def(nb::init<const std::string&, const std::string&, int, int, nb::object>(),
             nb::arg("source"), nb::arg("path"), nb::arg("line_offset"), nb::arg("col_offset"),
             nb::arg("resolver"))
        .def_prop_ro("name", &FuncSource::name);
}

}  // namespace tack::python
