#include "driver/driver.hpp"

#include <atomic>
#include <cstdio>

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

ir::Kernel lower(const KernelSource& src, const std::vector<sema::ArgType>& sig) {
    ir::Kernel k = sema::lower_kernel(src.fn, src.file, src.env, sig);
    dump("lower", k, pipeline_options());
    return k;
}

passes::DebugChecked add_debug_checks(ir::Kernel lowered) {
    passes::DebugChecked checked = passes::debug_checks(std::move(lowered));
    dump("debug_checks", checked.kernel, pipeline_options());
    return checked;
}

ir::Kernel optimize_template(ir::Kernel lowered) {
    lowered.stmt_files.clear();  // only debug_checks reads it, before this
    return passes::optimize(std::move(lowered), pipeline_options());
}

ir::Kernel specialize(const ir::Kernel& lowered, const passes::ShapeValues& shapes,
                      const passes::TextureInHardware& in_hardware) {
    passes::PipelineOptions opts = pipeline_options();
    ir::Kernel k = passes::specialize_shapes(lowered, shapes);
    k.stmt_files.clear();  // only debug_checks reads it, before this
    dump("specialize_shapes", k, opts);
    k = passes::lower_textures(std::move(k), in_hardware);
    dump("lower_textures", k, opts);
    return passes::optimize(std::move(k), opts);
}

}  // namespace tack::driver
