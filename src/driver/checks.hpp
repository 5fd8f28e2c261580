#pragma once
// What a target refuses of a kernel, before any call: the checks driver::compile_template runs
// against the capabilities of the device (dispatch, tack.inspect) or of a target's row (tackc,
// no device), so all of them reject the same kernels with the same messages. Each throws the
// public tack:: exception the contract names, or a located diag::CompileError where the IR knows
// the construct's place. The checks of one call's arguments are the runtime's
// (runtime/checks.hpp).

#include <string>
#include <vector>

#include "driver/facts.hpp"
#include "driver/targets.hpp"
#include "frontend/ast.hpp"
#include "sema/sema.hpp"

namespace tack::driver {

/// "tack.f32", as the contract's messages spell dtypes.
std::string dtype_text(DType t);

/// CONTRACT D8: TypeError for an array argument whose dtype the target does not support.
void check_dtypes(const frontend::FunctionDef& fn, const std::vector<sema::Type>& sig,
                  const Capabilities& caps);

/// CONTRACT D11: the NotImplementedError message for workgroup constructs on a target without
/// workgroups; empty when the kernel may run there.
std::string workgroup_error(const frontend::FunctionDef& fn, const KernelFacts& facts,
                            const Capabilities& caps);

/// CONTRACT D14, cold part: TypeError for an atomic on a dtype the target cannot update,
/// unreachable atomics included.
void check_atomic_dtypes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps);

/// A located ValueError at the local array that takes one iteration's local arrays past the
/// target's private bytes (unreachable arrays included, as D14's atomics).
void check_private_bytes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps);

}  // namespace tack::driver
