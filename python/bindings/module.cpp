// The extension module tack._tack. Order matters: errors first (translators), then the types
// later areas refer to.
#include <nanobind/stl/pair.h>

#include "bindings.hpp"
#include "builtins/builtins.hpp"
#include "frontend/definition.hpp"
#include "sema/sema.hpp"
#include "support/env.hpp"

namespace tack::python {

namespace {

nb::str py_str(std::string_view s) {
    return nb::str(s.data(), s.size());
}

// The builtin table for the Python package: its device-only objects (_intrinsics.py, math.py),
// its name resolution (_names.py), the stubs (scripts/gen_stubs.py) and the docs tables
// (scripts/docs_hooks.py). Rows (name, category, signature, doc, module), sorted by name;
// module is "tack" or "tack.math" where the package binds a device-only object, else "".
nb::list builtin_rows() {
    nb::list rows;
    for (const auto& b : builtins::all()) {
        rows.append(nb::make_tuple(py_str(b.name), py_str(builtins::to_string(b.category)),
                                   py_str(b.signature.text), py_str(b.doc),
                                   py_str(builtins::to_string(b.python))));
    }
    return rows;
}

// Rows (name, receiver, signature without the receiver, doc), sorted by name.
nb::list method_rows() {
    nb::list rows;
    for (const auto& m : builtins::methods()) {
        rows.append(nb::make_tuple(py_str(m.name), py_str(builtins::title(m.receiver)),
                                   py_str(m.signature.text), py_str(m.doc)));
    }
    return rows;
}

// (name, title) of each category, and (name, meaning) of each type signatures name: the
// docs tables' headings and legend.
nb::list category_rows() {
    nb::list rows;
    for (builtins::Category c : builtins::categories())
        rows.append(nb::make_tuple(py_str(builtins::to_string(c)), py_str(builtins::title(c))));
    return rows;
}

nb::list type_rows() {
    nb::list rows;
    for (const auto& t : builtins::types())
        rows.append(nb::make_tuple(py_str(t.name), py_str(t.meaning)));
    return rows;
}

}  // namespace

}  // namespace tack::python

NB_MODULE(_tack, m) {
    using namespace tack::python;
    m.doc() = "Tack's C++ core: devices, fields, kernels (use the `tack` package).";
    m.attr("__version__") = TACK_VERSION;
    nb::set_leak_warnings(false);  // module globals in cycles outlive the check at exit
    init_errors(m);
    init_dtypes(m);
    init_devices(m);
    init_fields(m);
    init_dlpack(m);
    init_environment(m);
    init_kernels(m);
    init_graphs(m);
    init_templates(m);
    init_aio(m);
    init_algorithms(m);
    init_profile(m);
    init_cli(m);
    m.def("_builtins", &builtin_rows);
    m.def("_builtin_methods", &method_rows);
    m.def("_builtin_categories", &category_rows);
    m.def("_builtin_types", &type_rows);
    // docs/environment.md's table: (variable, meaning) for every variable Tack reads.
    m.def("_environment", [] {
        std::vector<std::pair<std::string, std::string>> rows;
        for (size_t i = 0; i < tack::support::kEnvironmentSize; ++i)
            rows.emplace_back(tack::support::kEnvironment[i].name,
                              tack::support::kEnvironment[i].meaning);
        return rows;
    });
    // tack.Vector.field and tack.Matrix.field check their shapes against the core's limits.
    m.attr("_MAX_VECTOR_COMPONENTS") = tack::sema::kMaxVectorComponents;
    m.attr("_MAX_MATRIX_EXTENT") = tack::sema::kMaxMatrixExtent;
    m.def("_definition_lines",
          [](const std::string& text) { return tack::frontend::definition_lines(text); });
    // The same from byte `offset` of a whole file's UTF-8 text, read in place: each of a
    // module's definitions asks without copying the rest of the file (defect 11 of hardening
    // round three: importing N kernels was O(N^2)).
    m.def("_definition_lines_at", [](nb::bytes data, size_t offset) -> size_t {
        std::string_view text(data.c_str(), data.size());
        if (offset > text.size()) return 0;
        return tack::frontend::definition_lines(text.substr(offset));
    });
}
