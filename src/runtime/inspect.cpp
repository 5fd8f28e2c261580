// tack.inspect and tackc inspect: one kernel variant's typed IR, LLVM IR or C-dialect source.
#include "runtime/inspect.hpp"

#include <algorithm>

#include "codegen/cfamily/emitter.hpp"
#include "driver/driver.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "runtime/backend.hpp"
#include "runtime/capabilities.hpp"
#include "runtime/checks.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/debug_mode.hpp"
#include "runtime/errors.hpp"
#include "runtime/kernel_impl.hpp"

namespace tack::runtime {

void check_inspect_target(std::string_view target) {
    driver::find_target(target);
}

InspectMode inspect_mode(std::string_view mode) {
    if (mode == "ir") return InspectMode::Ir;
    if (mode == "source") return InspectMode::Source;
    if (mode == "optimized") return InspectMode::Optimized;
    throw ValueError("Unknown inspect mode: '" + std::string(mode) +
                     "'. Use 'ir', 'source', or 'optimized'.");
}

std::string render_variant(const ir::Kernel& kernel, std::string_view target, InspectMode mode,
                           bool noalias) {
    const driver::Target& t = driver::find_target(target);
    if (mode == InspectMode::Ir) return ir::print(kernel);
    if (t.dialect.empty()) {
        return cpu::render_llvm_ir(kernel, noalias, mode == InspectMode::Optimized);
    }
    // The generator's dtype and atomic checks run first (CONTRACT C26: "after the checks").
    const auto& dialect = codegen::cfamily::dialect(t.dialect);
    std::string source = codegen::cfamily::emit(kernel, dialect);
    if (mode == InspectMode::Optimized) {
        throw ValueError("inspect mode 'optimized' is CPU only: target '" + std::string(t.name) +
                         "' generates " + std::string(dialect.display_name) +
                         " source; use mode 'source'");
    }
    return source;
}

std::string inspect_call(const ModuleImpl& module, const frontend::FunctionDef& fn,
                         const Backend& backend, std::span<const detail::Arg> args,
                         InspectMode mode) {
    try {
        driver::CompileOptions options{
            .debug = debug_enabled(backend),
            .stop_after =
                mode == InspectMode::Ir ? driver::Stage::Template : driver::Stage::Variant,
            .shapes = [&](const driver::Template& t) {
                passes::ShapeValues shapes;
                for (auto [p, d] : t.dims_used)
                    shapes[{p, d}] = args[static_cast<size_t>(p)].array->shape()[d];
                return shapes;
            }};
        driver::Compiled c = driver::compile({fn, module.file, *module.env}, signature_of(args),
                                             capabilities_of(backend), options);
        check_atomic_alignment(fn, c.tmpl.facts, args);
        if (mode == InspectMode::Ir) return ir::print(c.ir);
        bool noalias = backend.specializes_disjoint() && disjoint(c.tmpl.facts, args);
        return render_variant(c.ir, backend.name(), mode, noalias);
    } catch (const diag::CompileError& e) {
        throw_public(e);
    }
}

}  // namespace tack::runtime
