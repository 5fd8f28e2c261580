// tack.inspect and tackc inspect: one kernel variant's typed IR, LLVM IR or C-dialect source.
#include "runtime/inspect.hpp"

#include <algorithm>

#include "codegen/cfamily/emitter.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "runtime/backend.hpp"
#include "runtime/errors.hpp"
#include "runtime/ir_facts.hpp"
#include "runtime/kernel_impl.hpp"
#include "sema/sema.hpp"

namespace tack::runtime {

namespace {

/// A backend name and the C dialect it generates; empty for the CPU (LLVM IR).
struct Target {
    std::string_view name;
    std::string_view dialect;
};

// Level Zero compiles OpenCL C to SPIR-V, so it shows the OpenCL dialect.
constexpr Target kTargets[] = {
    {"cpu", ""},    {"opencl", "opencl"},     {"cuda", "cuda"},
    {"hip", "hip"}, {"level_zero", "opencl"}, {"metal", "metal"},
};

const Target& find_target(std::string_view name) {
    for (const Target& t : kTargets) {
        if (t.name == name) return t;
    }
    throw ValueError("unknown inspect target '" + std::string(name) +
                     "'. Use cpu, opencl, cuda, hip, level_zero or metal.");
}

std::string dtype_text(DType t) {
    return std::string("tack.") + tack::name(t);
}

bool overlaps(const Array& a, const Array& b) {
    return a.span_begin() < b.span_end() && b.span_begin() < a.span_end();
}

// CONTRACT D7: the disjoint bit a call with these arrays selects.
bool disjoint(const KernelFacts& facts, std::span<const detail::Arg> args) {
    for (int w : facts.written_params) {
        for (size_t j = 0; j < args.size(); ++j) {
            if (int(j) != w && args[j].array && overlaps(*args[size_t(w)].array, *args[j].array))
                return false;
        }
    }
    return true;
}

// The checks a call performs before building a variant (the wording of KernelImpl's).
void check_backend(const ir::Kernel& k, const frontend::FunctionDef& fn, const KernelFacts& facts,
                   const Backend& backend, std::span<const detail::Arg> args) {
    std::string who = "Kernel '" + fn.name + "'";
    std::string on = std::string(backend.display_name());
    if (!facts.workgroup_uses.empty() && !backend.supports_workgroups()) {
        std::vector<std::string> names;
        for (const auto& u : facts.workgroup_uses)
            names.push_back(u.construct);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        std::string list;
        for (const auto& n : names)
            list += (list.empty() ? "" : ", ") + n;
        const WorkgroupUse& first = facts.workgroup_uses.front();
        throw NotImplementedError(
            who + ": " + on + " backend does not support workgroup execution required by " + list +
            " (" + first.construct + " at line " + std::to_string(first.line) +
            "). Use `local_array` or `local_array_like` for per-iteration "
            "scratch memory.");
    }
    for (const auto& a : facts.atomics) {
        if (!backend.supported_atomic_dtypes().contains(a.dtype)) {
            throw TypeError(who + ": " + std::string(backend.name()) + " " + atomic_op_name(a.op) +
                            " does not support target dtype " + dtype_text(a.dtype));
        }
        auto align = static_cast<uint64_t>(size_bytes(a.dtype));
        if (args[static_cast<size_t>(a.param)].array->address() % align != 0) {
            throw ValueError(who + ": atomic target parameter " + k.params[size_t(a.param)].name +
                             " requires " + std::to_string(align) + "-byte alignment");
        }
    }
}

std::vector<sema::ArgType> signature(const frontend::FunctionDef& fn, const Backend& backend,
                                     std::span<const detail::Arg> args) {
    std::vector<sema::ArgType> sig;
    for (size_t i = 0; i < args.size(); ++i) {
        const Array* a = args[i].array;
        if (!a) {
            sig.push_back({false, args[i].scalar.dtype, 0});
            continue;
        }
        if (!backend.supported_dtypes().contains(a->dtype())) {  // CONTRACT D8
            throw TypeError("Kernel '" + fn.name + "': parameter '" + fn.params[i].name +
                            "' has dtype " + dtype_text(a->dtype()) +
                            ", which is not supported on " + std::string(backend.display_name()) +
                            ". Supported dtypes: " + to_string(backend.supported_dtypes()));
        }
        sig.push_back({true, a->dtype(), a->rank()});
    }
    return sig;
}

std::string inspect_lowered(ir::Kernel lowered, const Backend& backend,
                            std::span<const detail::Arg> args, InspectMode mode, bool noalias) {
    if (mode == InspectMode::Ir) return ir::print(passes::optimize(std::move(lowered)));
    passes::ShapeValues shapes;
    for (auto [p, d] : passes::shape_dims_used(lowered))
        shapes[{p, d}] = args[static_cast<size_t>(p)].array->shape()[d];
    ir::Kernel k = passes::optimize(passes::specialize_shapes(std::move(lowered), shapes));
    return render_variant(k, backend.name(), mode, noalias);
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
        return codegen::llvm_cpu::emit_llvm_ir(kernel, {.noalias = noalias},
                                               mode == InspectMode::Optimized);
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
        std::vector<diag::Diagnostic> diags =
            sema::validate_with_callees(fn, module.file, *module.env);
        if (!diags.empty()) throw_public(diags.front());
        ir::Kernel lowered =
            sema::lower_kernel(fn, module.file, *module.env, signature(fn, backend, args));
        KernelFacts facts = collect_facts(lowered);
        check_backend(lowered, fn, facts, backend, args);
        bool noalias = backend.specializes_disjoint() && disjoint(facts, args);
        return inspect_lowered(std::move(lowered), backend, args, mode, noalias);
    } catch (const diag::CompileError& e) {
        throw_public(e);
    }
}

}  // namespace tack::runtime
