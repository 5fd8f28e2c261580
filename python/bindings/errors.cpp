// The core's exceptions as Python exceptions (CONTRACT C27-C28). The kinds map one to one;
// UnsupportedSyntaxError is the package's own class (a NotImplementedError), registered by
// tack/__init__.py at import.
#include <optional>
#include <sstream>

#include "bindings.hpp"

namespace tack::python {

namespace {

PyObject* g_unsupported = nullptr;  // tack.UnsupportedSyntaxError (a strong reference)

void set_unsupported_syntax_error(nb::handle cls) {
    Py_XINCREF(cls.ptr());
    Py_XDECREF(g_unsupported);
    g_unsupported = cls.ptr();
}

// The source and caret lines of a rendered diagnostic ("path:l:c: kind: msg\n    src\n    ^\n").
std::string source_lines(const char* rendered) {
    std::string text(rendered);
    size_t first_newline = text.find('\n');
    if (first_newline == std::string::npos) return "";
    std::string rest = text.substr(first_newline + 1);
    while (!rest.empty() && rest.back() == '\n')
        rest.pop_back();
    return rest;
}

void set_python_error(const Error& e);

// nanobind translators set the Python error and return; throwing would hand the exception to
// the next translator.
void translate(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const CompileError& e) {
        set_python_error(e);
    } catch (const ValueError& e) {
        set_python_error(e);
    } catch (const TypeError& e) {
        set_python_error(e);
    } catch (const NameError& e) {
        set_python_error(e);
    } catch (const RuntimeError& e) {
        set_python_error(e);
    } catch (const NotImplementedError& e) {
        set_python_error(e);
    } catch (const IndexError& e) {
        set_python_error(e);
    } catch (const ZeroDivisionError& e) {
        set_python_error(e);
    }
}

}  // namespace

PyObject* exception_type(ErrorKind kind) {
    static PyObject* const kTypes[] = {
        PyExc_SyntaxError,  nullptr,          PyExc_NameError,
        PyExc_TypeError,    PyExc_ValueError, PyExc_NotImplementedError,
        PyExc_RuntimeError, PyExc_IndexError, PyExc_ZeroDivisionError,
    };
    if (kind == ErrorKind::UnsupportedSyntax)
        return g_unsupported ? g_unsupported : PyExc_NotImplementedError;
    return kTypes[static_cast<int>(kind)];
}

namespace {

// A kernel source position: a CompileError's, or that of a debug-mode violation.
struct Located {
    const std::string& message;
    const std::string& file;
    int line, column;
    const char* rendered;
};

template <class E>
Located located(const E& e) {
    return {e.message(), e.file(), e.line(), e.column(), e.what()};
}

std::optional<Located> position_of(const Error& e) {
    if (const auto* c = dynamic_cast<const CompileError*>(&e)) return located(*c);
    if (const auto* f = dynamic_cast<const KernelIndexError*>(&e)) return located(*f);
    if (const auto* f = dynamic_cast<const KernelZeroDivisionError*>(&e)) return located(*f);
    return std::nullopt;
}

std::string python_text(const Located& e) {
    if (e.file.empty() || e.line == 0) return e.message;
    std::ostringstream out;
    out << e.message << "\n  File \"" << e.file << "\", line " << e.line << ", column " << e.column;
    std::string lines = source_lines(e.rendered);
    if (!lines.empty()) out << "\n" << lines;
    return out.str();
}

}  // namespace

std::string python_message(const CompileError& e) {
    return python_text(located(e));
}

void raise_python(PyObject* type, const std::string& message) {
    PyErr_SetString(type, message.c_str());
    throw nb::python_error();
}

nb::object exception_object(const Error& e) {
    PyObject* type = exception_type(e.kind());
    std::optional<Located> at = position_of(e);
    std::string text = at ? python_text(*at) : std::string(e.what());
    nb::object exc = nb::steal(PyObject_CallFunction(type, "s", text.c_str()));
    if (!exc.is_valid()) throw nb::python_error();
    // Positions as attributes, so tools need not parse the text.
    if (at && type != PyExc_SyntaxError) {
        exc.attr("filename") = at->file;
        exc.attr("lineno") = at->line;
        exc.attr("colno") = at->column;
        exc.attr("msg") = at->message;
    }
    return exc;
}

namespace {
void set_python_error(const Error& e) {
    nb::object exc = exception_object(e);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
}
}  // namespace

void raise_python(const Error& e) {
    set_python_error(e);
    throw nb::python_error();
}

void raise_chained(PyObject* outer, const std::string& message, nb::object cause) {
    nb::object exc = nb::steal(PyObject_CallFunction(outer, "s", message.c_str()));
    if (!exc.is_valid()) throw nb::python_error();
    PyException_SetCause(exc.ptr(), cause.release().ptr());  // steals the reference
    PyErr_SetObject(outer, exc.ptr());
    throw nb::python_error();
}

void init_errors(nb::module_& m) {
    nb::register_exception_translator(&translate);
    m.def("_set_unsupported_syntax_error", &set_unsupported_syntax_error);
}

}  // namespace tack::python
