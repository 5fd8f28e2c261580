#pragma once
// The checks one call makes against a device's declared capabilities, shared by dispatch
// (kernel_impl.cpp), inspection (inspect.cpp) and tackc (a target's row, no device) so all
// three reject the same kernels with the same messages. Each throws the public tack::
// exception the contract names.

#include <span>
#include <string>
#include <vector>

#include "frontend/ast.hpp"
#include "runtime/backend.hpp"
#include "runtime/ir_facts.hpp"
#include "runtime/targets.hpp"
#include "sema/sema.hpp"

namespace tack::runtime {

/// "tack.f32", as the contract's messages spell dtypes.
std::string dtype_text(DType t);

/// The signature a call's arguments select (CONTRACT D3 param_sig).
/// The kernel-side type of an array argument: logical rank and element shape (CONTRACT A28).
sema::ArgType array_type(const Array& a);
std::vector<sema::ArgType> signature_of(std::span<const detail::Arg> args);

/// CONTRACT D8: TypeError for an array argument whose dtype the backend does not support.
void check_dtypes(const frontend::FunctionDef& fn, const std::vector<sema::ArgType>& sig,
                  const Capabilities& caps);

/// CONTRACT D11: the NotImplementedError message for workgroup constructs on a backend without
/// workgroups; empty when the kernel may run there.
std::string workgroup_error(const frontend::FunctionDef& fn, const KernelFacts& facts,
                            const Capabilities& caps);

/// CONTRACT D14, cold part: TypeError for an atomic on a dtype the backend cannot update,
/// unreachable atomics included.
void check_atomic_dtypes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps);

/// A located ValueError at the local array that takes one iteration's local arrays past the
/// target's private bytes (unreachable arrays included, as D14's atomics).
void check_private_bytes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps);

/// What tackc checks against a target's row once `lowered` is lowered for `sig` (check_dtypes
/// ran before lowering, as in dispatch): D11 (NotImplementedError), D14's dtypes, and the
/// target's bound on one iteration's local arrays (a located ValueError at the array).
void check_lowered(const frontend::FunctionDef& fn, const ir::Kernel& lowered,
                   const Capabilities& caps);

/// CONTRACT D14, every call: ValueError when an atomic target is not naturally aligned.
void check_atomic_alignment(const frontend::FunctionDef& fn, const KernelFacts& facts,
                            std::span<const detail::Arg> args);

/// CONTRACT D7: true when no written array's bytes overlap any other array argument (byte
/// ranges, never object identity; read-only arrays may overlap each other).
bool disjoint(const KernelFacts& facts, std::span<const detail::Arg> args);

}  // namespace tack::runtime
