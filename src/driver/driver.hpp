#pragma once
// The one compile driver: the order in which a kernel becomes the IR a backend compiles, and
// what each step learns on the way. Dispatch (runtime/kernel_impl.cpp) calls its three steps
// apart, because it caches between them; tack.inspect, `tackc inspect` and `tackc check`, the
// benchmarks and the tests call compile(), which runs them in a row. The stage sequence lives
// here only, so the goldens test the order dispatch runs:
//
//   validate (kernel + reached @tack.func)                                   once per kernel
//   -> check_dtypes -> lower (one argument signature, the pristine template, CONTRACT D17)
//   -> facts, launch plan, target checks (D11, D14, private bytes)
//   [-> debug_checks, debug templates only]                               once per signature
//   -> specialize_shapes (the call's extents, D3) -> lower_textures (the target's texture
//   form, E5) -> optimize (passes)                                    once per shape signature
//
// Inspect mode "ir" stops after the template and optimizes it with its extents symbolic
// (CONTRACT C26). With TACK_PRINT_AFTER_ALL (or set_print_after_all(true), tackc's
// --print-after-all) the IR after lowering, debug checks, specialization and each pass goes
// to stderr.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.hpp"
#include "driver/facts.hpp"
#include "driver/launch_plan.hpp"
#include "driver/targets.hpp"
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

/// What one argument signature compiles to on one target before any extent is known; dispatch
/// keeps one per signature and device and builds its variants from it.
struct Template {
    ir::Kernel kernel;  // lowered (with its checks in a debug template); never modified (D17)
    KernelFacts facts;  // of the kernel's own code, without debug checks
    LaunchPlan launch;  // the launch length from a call's values
    std::vector<std::pair<int, int>> dims_used;  // (parameter, dim) extents specialization reads
    std::string workgroup_error;  // D11's message where the target lacks workgroups, else empty
    std::optional<passes::DebugRecord> debug;  // a debug template's record (DECISIONS "Debug mode")
};

/// Every diagnostic of the kernel and the functions it reaches (CONTRACT A2); empty when valid.
std::vector<diag::Diagnostic> validate(const KernelSource& src);

/// The template of `sig` on a target with `caps`. Throws tack::TypeError for a dtype the target
/// lacks (D8), the located error of an atomic dtype (D14) or of local arrays past the target's
/// private bytes, diag::CompileError for a lowering error. A target without workgroups leaves
/// its refusal in workgroup_error (dispatch raises it per call). A debug template carries the
/// checks of DECISIONS "Debug mode"; a plain one never passes there, so its code is what it
/// would be without debug mode. Requires: validate() returned no diagnostic.
Template compile_template(const KernelSource& src, std::vector<sema::Type> sig,
                          const Capabilities& caps, bool debug);

/// The template optimized with its extents left symbolic (inspect mode "ir").
ir::Kernel optimize_template(const Template& t);

/// What a backend compiles: the template's extents replaced by `shapes`, texture samples the
/// target does not run in hardware (`textures`, null: none; CONTRACT E5) expanded to the
/// software form, then optimized. Requires: `shapes` covers t.dims_used.
ir::Kernel specialize(const Template& t, const passes::ShapeValues& shapes,
                      const passes::TextureInHardware& textures);

/// The disk-cache key of a variant built from `variant` (specialize()'s result) with or without
/// noalias (CONTRACT D7), for a device whose code depends on `target_fingerprint`.
std::string variant_cache_key(const ir::Kernel& variant, bool noalias, bool debug,
                              std::string_view target_fingerprint, std::string_view backend);

/// Where compile() stops.
enum class Stage {
    Template,  // the template, optimized with symbolic extents (inspect mode "ir")
    Variant,   // the specialized variant a call with `shapes` compiles
};

struct CompileOptions {
    bool debug = false;
    Stage stop_after = Stage::Variant;
    /// The variant's extents, covering the template's dims_used (Stage::Variant). Without it
    /// the variant keeps its extents symbolic, as the template (benchmarks of the generators).
    std::function<passes::ShapeValues(const Template& t)> shapes = {};
};

struct Compiled {
    Template tmpl;
    ir::Kernel ir;  // at the stage compile() stopped after
};

/// The whole pipeline for one kernel and signature on a target: validate, compile_template
/// (raising its workgroup refusal, tack::NotImplementedError), then optimize_template or
/// specialize. Throws diag::CompileError for the kernel's diagnostics.
Compiled compile(const KernelSource& src, std::vector<sema::Type> sig, const Capabilities& caps,
                 const CompileOptions& options);

/// Turns IR dumps on for this process in addition to TACK_PRINT_AFTER_ALL (tackc).
void set_print_after_all(bool on);

}  // namespace tack::driver
