#pragma once
// The code one kernel variant becomes, without compiling or running it (CONTRACT C26): shared by
// tack.inspect (Python, on the active backend) and `tackc inspect --target`.

#include <span>
#include <string>
#include <string_view>

#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

class Backend;
struct ModuleImpl;

/// "ir", "source" or "optimized"; anything else raises tack::ValueError with the C26 message.
enum class InspectMode { Ir, Source, Optimized };
InspectMode inspect_mode(std::string_view mode);
/// Checks a target name render_variant accepts; tack::ValueError otherwise.
void check_inspect_target(std::string_view target);

/// The code of a specialized, optimized kernel for a backend name (cpu, opencl, cuda, hip,
/// level_zero, metal): LLVM IR for the CPU (after O3 when `mode` is Optimized; `noalias` is
/// the disjoint bit, CONTRACT D7), the backend's C dialect elsewhere, where Optimized raises
/// tack::ValueError "inspect mode 'optimized' is CPU only: ..." after the generator's checks.
/// Unknown targets raise tack::ValueError.
std::string render_variant(const ir::Kernel& kernel, std::string_view target, InspectMode mode,
                           bool noalias);

/// tack.inspect: validates, lowers and specializes `fn` for `args` as a call on `backend`
/// would (dtype, workgroup-support, atomic and alignment checks; not read-only or launch
/// size; the debug variant in debug mode), then renders it. Errors are the public tack::
/// exceptions, never wrapped.
std::string inspect_call(const ModuleImpl& module, const frontend::FunctionDef& fn,
                         const Backend& backend, std::span<const detail::Arg> args,
                         InspectMode mode);

}  // namespace tack::runtime
