#pragma once
// The one compile driver: the order in which a kernel becomes the IR a backend compiles. Dispatch
// (runtime/kernel_impl.cpp), tack.inspect and `tackc inspect` (runtime/inspect.cpp,
// tools/tackc/inspect.cpp) and the C++ API all call it, so the goldens test the order dispatch
// runs:
//
//   validate (kernel + reached @tack.func) -> lower (one argument signature, the pristine
//   template, CONTRACT D17) [-> debug_checks, debug variants only] -> specialize_shapes (the
//   call's extents, D3) -> lower_textures (the target's texture form, E5) -> optimize (passes)
//
// Inspect mode "ir" shows the template after optimize, without shapes (CONTRACT C26); every
// other output is the specialized variant. With TACK_PRINT_AFTER_ALL (or
// set_print_after_all(true), tackc's --print-after-all) the IR after lowering, specialization
// and each pass goes to stderr.

#include <vector>

#include "diag/diagnostic.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "passes/passes.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::driver {

/// One kernel of a parsed module, with what name resolution needs.
struct KernelSource {
    const frontend::FunctionDef& fn;
    const diag::SourceFilePtr& file;
    const sema::Environment& env;
};

/// Every diagnostic of the kernel and the functions it reaches (CONTRACT A2); empty when valid.
std::vector<diag::Diagnostic> validate(const KernelSource& src);

/// The lowered template for one signature; throws diag::CompileError. Requires validate() to
/// have returned no diagnostic.
ir::Kernel lower(const KernelSource& src, const std::vector<sema::ArgType>& sig);

/// The debug variant's template (DECISIONS "Debug mode"): passes::debug_checks over a lowered
/// template, which specialize() and optimize_template() then take like any other. Plain
/// variants never pass here, so their code is what it would be without debug mode.
passes::DebugChecked add_debug_checks(ir::Kernel lowered);

/// The template optimized with its extents left symbolic (inspect mode "ir").
ir::Kernel optimize_template(ir::Kernel lowered);

/// What dispatch compiles: the template's extents replaced by `shapes`, texture samples the
/// target does not run in hardware (`in_hardware`, null: none; CONTRACT E5) expanded to the
/// software form, then optimized. Requires: `shapes` covers passes::shape_dims_used(lowered).
/// `lowered` is not modified.
ir::Kernel specialize(const ir::Kernel& lowered, const passes::ShapeValues& shapes,
                      const passes::TextureInHardware& in_hardware = {});

/// Turns IR dumps on for this process in addition to TACK_PRINT_AFTER_ALL (tackc).
void set_print_after_all(bool on);

}  // namespace tack::driver
