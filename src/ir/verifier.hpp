#pragma once
#include "ir/ir.hpp"

namespace tack::ir {

/// Checks structural invariants the make() constructors cannot see: every Var used is a param,
/// loop var or listed local; Break/Continue placement; Barrier/BlockReduce/AllocArray placement;
/// ArrayDim only where allowed; buffers belong to the kernel. Throws diag::InternalError naming
/// the pass that ran last (`after`).
void verify(const Kernel& k, const char* after = "lowering");

}  // namespace tack::ir
