// The extension module tack._tack. Order matters: errors first (translators), then the types
// later areas refer to.
#include "bindings.hpp"
#include "builtins/builtins.hpp"
#include "frontend/definition.hpp"
#include "sema/sema.hpp"

namespace tack::python {

namespace {

nb::list builtin_names() {
    nb::list names;
    for (const auto& b : builtins::all())
        names.append(std::string(b.name));
    return names;
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
    m.def("_builtin_names", &builtin_names);
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
