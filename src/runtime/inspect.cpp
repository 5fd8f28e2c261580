// tack.inspect and tackc inspect: one kernel variant's typed IR, LLVM IR or C-dialect source.
#include "runtime/inspect.hpp"

#include <algorithm>

#include "codegen/cfamily/emitter.hpp"
#include "driver/driver.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "runtime/backend.hpp"
#include "runtime/checks.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/debug_mode.hpp"
#include "runtime/errors.hpp"
#include "runtime/ir_facts.hpp"
#include "runtime/kernel_impl.hpp"
#include "runtime/targets.hpp"
#include "sema/sema.hpp"

namespace tack::runtime {

namespace {

std::string inspect_lowered(ir::Kernel lowered, const Backend& backend,
                            std::span<const detail::Arg> args, InspectMode mode, bool noalias) {
    if (mode == InspectMode::Ir) return ir::print(driver::optimize_template(std::move(lowered)));
    passes::ShapeValues shapes;
    for (auto [p, d] : passes::shape_dims_used(lowered))
        shapes[{p, d}] = args[static_cast<size_t>(p)].array->shape()[d];
    return render_variant(driver::specialize(lowered, shapes, textures_of(backend)), backend.name(),
                          mode, noalias);
}

}  // namespace

void check_inspect_target(std::string_view target) {
    find_target(target);
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
    const Target& t = find_target(target);
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
        driver::KernelSource src{fn, module.file, *module.env};
        std::vector<diag::Diagnostic> diags = driver::validate(src);
        if (!diags.empty()) throw_public(diags.front());
        std::vector<sema::ArgType> sig = signature_of(args);
        const Capabilities caps = capabilities_of(backend);
        check_dtypes(fn, sig, caps);
        ir::Kernel lowered = driver::lower(src, sig);
        KernelFacts facts = collect_facts(lowered);
        if (std::string e = workgroup_error(fn, facts, caps); !e.empty())
            throw NotImplementedError(e);
        check_atomic_dtypes(fn, facts, caps);
        check_private_bytes(fn, facts, caps);
        check_atomic_alignment(fn, facts, args);
        bool noalias = backend.specializes_disjoint() && disjoint(facts, args);
        if (debug_enabled(backend)) lowered = driver::add_debug_checks(std::move(lowered)).kernel;
        return inspect_lowered(std::move(lowered), backend, args, mode, noalias);
    } catch (const diag::CompileError& e) {
        throw_public(e);
    }
}

}  // namespace tack::runtime
