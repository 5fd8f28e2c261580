// tack.Kernel: the call path from Python (argument conversion in C++, the GIL released while
// the core compiles and runs; name questions re-take it), the C27 exception translation and
// tack.inspect.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

#include "bindings.hpp"
#include "runtime/backend.hpp"
#include "runtime/inspect.hpp"
#include "runtime/kernel_impl.hpp"
#include "runtime/registry.hpp"

namespace tack::python {

namespace {

class PyKernel {
  public:
    PyKernel(const std::string& source, const std::string& path, int line_offset, int col_offset,
             nb::object resolver) {
        ParsedFunction p =
            parse_function(source, path, line_offset, col_offset, std::move(resolver));
        auto module = std::make_shared<runtime::ModuleImpl>();
        module->file = p.file;
        module->module = p.module;
        module->env = p.env;
        fn_ = p.fn;
        module_ = module;
        impl_ = std::make_shared<runtime::KernelImpl>(module_, fn_);
    }

    const std::string& name() const { return fn_->name; }
    const frontend::FunctionDef& def() const { return *fn_; }
    const runtime::ModuleImpl& module() const { return *module_; }
    runtime::KernelImpl& impl() const { return *impl_; }

    std::string param_name(size_t i) const {
        return i < fn_->params.size() ? fn_->params[i].name : "#" + std::to_string(i);
    }

  private:
    std::shared_ptr<runtime::ModuleImpl> module_;
    const frontend::FunctionDef* fn_ = nullptr;
    std::shared_ptr<runtime::KernelImpl> impl_;
};

// Arguments of one call, converted in C++ (CONTRACT B2, D9). Small calls stay on the stack.
class ArgPack {
  public:
    ArgPack(const PyKernel& k, const nb::tuple& args) : n_(args.size()) {
        if (n_ > kInline) heap_.resize(n_);
        detail::Arg* out = data();
        bool any_f64 = false;
        for (size_t i = 0; i < n_; ++i) {
            if (Field* f = field_ptr(args[i])) {
                out[i].array = &f->array;
                any_f64 |= f->array.dtype() == DType::f64;
            }
        }
        for (size_t i = 0; i < n_; ++i) {
            if (out[i].array) continue;
            nb::handle h = args[i];
            Scalar& s = out[i].scalar;
            if (!scalar_from_python(h, s, "argument for parameter '" + k.param_name(i) + "'")) {
                raise_python(PyExc_TypeError,
                             "Unsupported argument type for parameter '" + k.param_name(i) +
                                 "': " + nb::cast<std::string>(nb::repr(h.type())));
            }
            // CONTRACT B2: floats are f64 only next to an f64 field.
            if (s.dtype == DType::f64 && !any_f64) s = narrow_to_f32(s);
        }
    }
    std::span<const detail::Arg> span() const { return {data(), n_}; }

  private:
    static constexpr size_t kInline = 16;
    static Scalar narrow_to_f32(Scalar s) {
        double d;
        std::memcpy(&d, &s.bits, 8);
        return Scalar::of(static_cast<float>(d));
    }
    detail::Arg* data() { return n_ > kInline ? heap_.data() : inline_; }
    const detail::Arg* data() const { return n_ > kInline ? heap_.data() : inline_; }

    size_t n_;
    detail::Arg inline_[kInline];
    std::vector<detail::Arg> heap_;
};

std::string backend_class() {
    return std::string(runtime::default_backend().display_name()) + "Backend";
}

std::string strip_prefix(const std::string& message, const std::string& prefix) {
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// CONTRACT C27: a message carrying a vendor compiler's log ("compilation failed"; OpenCL's
// "clBuildProgram failed") is shortened to its `error:` lines; one with none stays whole.
constexpr const char* kCompilerFailures[] = {"compilation failed", "clBuildProgram failed"};

std::string shorten_compiler_log(const std::string& text) {
    auto has = [&](const char* marker) { return text.find(marker) != std::string::npos; };
    if (std::none_of(std::begin(kCompilerFailures), std::end(kCompilerFailures), has)) return text;
    std::string out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (line.find("error:") != std::string::npos) out += (out.empty() ? "" : "\n") + line;
        start = end + 1;
    }
    return out.empty() ? text : out;
}

// CONTRACT C27: what a failed call raises.
[[noreturn]] void raise_call_error(const PyKernel& k, const Error& e) {
    std::string prefix = "Kernel '" + k.name() + "'";
    const auto* c = dynamic_cast<const CompileError*>(&e);
    std::string text = c ? python_message(*c) : std::string(e.what());
    switch (e.kind()) {
        case ErrorKind::TypeError:
            if (text.rfind(prefix, 0) == 0) raise_python(e);
            raise_chained(PyExc_TypeError, prefix + ": " + text, exception_object(e));
        case ErrorKind::NotImplemented:
        case ErrorKind::Runtime:
            raise_chained(PyExc_RuntimeError,
                          prefix + " failed on " + backend_class() + ": " +
                              shorten_compiler_log(strip_prefix(text, prefix + ": ")),
                          exception_object(e));
        default:
            raise_python(e);
    }
}

void check_count(const PyKernel& k, size_t given) {
    size_t want = k.def().params.size();
    if (given != want) {
        try {  // an unsupported parameter form is reported, located, before the arity
            k.impl().check_valid();
        } catch (const Error& e) {
            raise_python(e);
        }
        raise_python(PyExc_TypeError, "Kernel '" + k.name() + "' expects " + std::to_string(want) +
                                          " arguments, got " + std::to_string(given));
    }
}

nb::object call(PyKernel& k, nb::args args, nb::kwargs kwargs) {
    if (kwargs.size() != 0) {
        const char* msg = "Keyword arguments not supported in kernels";
        raise_chained(PyExc_RuntimeError,
                      "Kernel '" + k.name() + "' failed on " + backend_class() + ": " + msg,
                      nb::steal(PyObject_CallFunction(PyExc_NotImplementedError, "s", msg)));
    }
    check_count(k, args.size());
    ArgPack pack(k, args);
    note_device_used();
    std::exception_ptr failure;
    std::optional<Scalar> result;
    {
        nb::gil_scoped_release release;
        try {
            result = k.impl().call(pack.span());
        } catch (...) {
            failure = std::current_exception();
        }
        std::fflush(stdout);  // kernel print() writes through C stdio
    }
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const Error& e) {
            raise_call_error(k, e);
        } catch (const nb::python_error&) {
            throw;
        } catch (const std::exception& e) {
            raise_python(PyExc_RuntimeError, "Kernel '" + k.name() + "' failed on " +
                                                 backend_class() + ": " + e.what());
        }
    }
    return result ? scalar_to_python(*result) : nb::none();
}

// --- tack.inspect (CONTRACT C26): the pipeline for these arguments on the active backend,
// never run or cached (the core's runtime/inspect.hpp, shared with tackc) --------------------

std::string inspect(PyKernel& k, nb::tuple args, const std::string& mode) {
    try {
        runtime::InspectMode m = runtime::inspect_mode(mode);
        check_count(k, args.size());
        ArgPack pack(k, args);
        return runtime::inspect_call(k.module(), k.def(), runtime::default_backend(), pack.span(),
                                     m);
    } catch (const Error& e) {
        raise_python(e);
    } catch (const diag::InternalError& e) {
        raise_python(PyExc_RuntimeError, e.what());
    }
}

// Benchmarking only (benchmarks/bench_python.py): seconds per call of `calls` native calls
// with the same converted arguments, no Python in the loop.
std::vector<double> time_native_calls(PyKernel& k, nb::tuple args, int calls) {
    check_count(k, args.size());
    ArgPack pack(k, args);
    std::vector<double> seconds;
    nb::gil_scoped_release release;
    for (int i = 0; i < calls; ++i) {
        auto start = std::chrono::steady_clock::now();
        k.impl().call(pack.span());
        runtime::default_backend().synchronize();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
}

}  // namespace

void init_kernels(nb::module_& m) {
    nb::class_<PyKernel>(m, "Kernel", nb::dynamic_attr(), nb::is_weak_referenceable(),
                         "A @tack.kernel: call it with fields and scalars.")
        .def(nb::init<const std::string&, const std::string&, int, int, nb::object>(),
             nb::arg("source"), nb::arg("path"), nb::arg("line_offset"), nb::arg("col_offset"),
             nb::arg("resolver"))
        .def("__call__", &call)
        .def_prop_ro("name", &PyKernel::name)
        .def("__repr__", [](const PyKernel& k) { return "<tack.kernel '" + k.name() + "'>"; })
        .def_prop_ro("params",
                     [](const PyKernel& k) {
                         nb::list l;
                         for (const auto& p : k.def().params)
                             l.append(p.name);
                         return nb::tuple(l);
                     })
        .def("_num_variants",
             [](const PyKernel& k) { return k.impl().num_variants(runtime::default_backend()); });
    m.def("_inspect", &inspect, nb::arg("kernel"), nb::arg("args"), nb::arg("mode"));
    m.def("_time_native_calls", &time_native_calls, nb::arg("kernel"), nb::arg("args"),
          nb::arg("calls"));
}

}  // namespace tack::python
