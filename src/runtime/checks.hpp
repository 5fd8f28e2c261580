#pragma once
// The checks of one call's arguments, shared by dispatch (kernel_impl.cpp) and tack.inspect
// (inspect.cpp). What a target refuses before any call is the driver's (driver/checks.hpp).

#include <span>
#include <string>
#include <vector>

#include "driver/facts.hpp"
#include "frontend/ast.hpp"
#include "sema/sema.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

/// The signature a call's arguments select (CONTRACT D3 param_sig).
/// The kernel-side type of an array argument: logical rank and element shape (CONTRACT A28).
sema::Type array_type(const Array& a);
std::vector<sema::Type> signature_of(std::span<const detail::Arg> args);

/// CONTRACT D14, every call: ValueError when an atomic target is not naturally aligned.
void check_atomic_alignment(const frontend::FunctionDef& fn, const driver::KernelFacts& facts,
                            std::span<const detail::Arg> args);

/// CONTRACT D7: true when no written array's bytes overlap any other array argument (byte
/// ranges, never object identity; read-only arrays may overlap each other).
bool disjoint(const driver::KernelFacts& facts, std::span<const detail::Arg> args);

}  // namespace tack::runtime
