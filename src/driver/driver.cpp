#include "driver/driver.hpp"

#include <atomic>
#include <cstdio>

#include "driver/cache_key.hpp"
#include "driver/checks.hpp"
#include "ir/printer.hpp"
#include "support/env.hpp"

namespace tack::driver {

namespace {

std::atomic<bool> g_print_after_all{false};

passes::PipelineOptions pipeline_options() {
    return {.print_after_all = g_print_after_all.load() || support::env_print_after_all()};
}

void dump(const char* stage, const ir::Kernel& k, const passes::PipelineOptions& opts) {
    if (opts.print_after_all)
        std::fprintf(stderr, "// IR after %s\n%s", stage, ir::print(k).c_str());
}

}  // namespace

void set_print_after_all(bool on) {
    g_print_after_all.store(on);
}

std::vector<diag::Diagnostic> validate(const KernelSource& src) {
    return sema::validate_with_callees(src.fn, src.file, src.env);
}

Template compile_template(const KernelSource& src, std::vector<sema::Type> sig,
                          const Capabilities& caps, bool debug) {
    passes::PipelineOptions opts = pipeline_options();
    check_dtypes(src.fn, sig, caps);  // CONTRACT D8: never narrow silently
    Template t;
    t.kernel = sema::lower_kernel(src.fn, src.file, src.env, sig);
    dump("lower", t.kernel, opts);
    // Facts and launch plan describe the kernel's own parameters, with or without debug checks;
    // unreachable code counts (D11, D14), so they come before any pass.
    t.facts = collect_facts(t.kernel);
    t.launch = LaunchPlan(t.kernel);
    // What the target refuses, from the kernel's own facts. The workgroup refusal is kept, not
    // thrown (dispatch raises it on every call, compile() at once); the other two throw here, so
    // every entry point reports a kernel's refusals in the same order.
    t.workgroup_error = workgroup_error(src.fn, t.facts, caps);
    check_atomic_dtypes(src.fn, t.facts, caps);
    check_private_bytes(src.fn, t.facts, caps);
    if (debug) {
        passes::DebugChecked checked = passes::debug_checks(std::move(t.kernel));
        t.kernel = std::move(checked.kernel);
        t.debug = static_cast<passes::DebugRecord&&>(checked);
        dump("debug_checks", t.kernel, opts);
    }
    t.dims_used = passes::shape_dims_used(t.kernel);
    return t;
}

ir::Kernel optimize_template(const Template& t) {
    ir::Kernel k = t.kernel;
    k.stmt_files.clear();  // only debug_checks and the facts read it, before this
    return passes::optimize(std::move(k), pipeline_options());
}

ir::Kernel specialize(const Template& t, const passes::ShapeValues& shapes,
                      const passes::TextureInHardware& textures) {
    passes::PipelineOptions opts = pipeline_options();
    ir::Kernel k = passes::specialize_shapes(t.kernel, shapes);
    k.stmt_files.clear();  // only debug_checks and the facts read it, before this
    dump("specialize_shapes", k, opts);
    k = passes::lower_textures(std::move(k), textures);
    dump("lower_textures", k, opts);
    return passes::optimize(std::move(k), opts);
}

std::string variant_cache_key(const ir::Kernel& variant, bool noalias, bool debug,
                              std::string_view target_fingerprint, std::string_view backend) {
    std::string variant_key = noalias ? "noalias" : "may-alias";
    if (debug) variant_key += "+debug";  // the IR differs too; the key says so outright
    return make_key({.ir_text = ir::print(variant),
                     .variant_key = variant_key,
                     .target_fingerprint = std::string(target_fingerprint),
                     .llvm_version = "",
                     .options = std::string(backend)});
}

Compiled compile(const KernelSource& src, std::vector<sema::Type> sig, const Capabilities& caps,
                 const CompileOptions& options) {
    if (std::vector<diag::Diagnostic> diags = validate(src); !diags.empty())
        throw diag::CompileError(std::move(diags));
    Compiled out{compile_template(src, std::move(sig), caps, options.debug), {}};
    if (!out.tmpl.workgroup_error.empty()) throw NotImplementedError(out.tmpl.workgroup_error);
    if (options.stop_after == Stage::Template) {
        out.ir = optimize_template(out.tmpl);
    } else {
        passes::ShapeValues shapes;
        if (options.shapes) shapes = options.shapes(out.tmpl);
        out.ir = specialize(out.tmpl, shapes, caps.textures);
    }
    return out;
}

}  // namespace tack::driver
