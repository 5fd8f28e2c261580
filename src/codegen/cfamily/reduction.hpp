#pragma once
// Device reductions of a whole f32 array (seed "Device reductions", CONTRACT C14-C18, E4): one
// kernel text per dialect from the same table the emitter reads.
//
// Launch contract: groups of exactly 256 lanes; each lane folds the elements
// idx, idx + __stride__, ... below __n__ (idx = group_id * 256 + local_id, 64-bit), lanes past
// the end contribute the identity, the group folds its 256 values in a tree in workgroup
// memory, and lane 0 combines the group's partial into out[0] atomically. The host
// initializes out[0] to reduction_identity(op) and launches G groups with __stride__ = G * 256.
// Arguments, in order: `const float* x`, `float* out`, the 64-bit `__n__`, the 64-bit
// `__stride__` (then Metal's position built-ins).
//
// Combines: sum is an f32 add (CONTRACT C16/C18: any grouping); min/max propagate NaN and break
// zero ties toward -0.0 (min) / +0.0 (max) in the tree and in the atomic compare-and-swap
// loop alike (CONTRACT C17), so the result does not depend on lane or group order.

#include <string>
#include <string_view>

#include "codegen/cfamily/dialect.hpp"
#include "ir/ir.hpp"

namespace tack::codegen::cfamily {

using ir::ReduceOp;  // the IR's list; a device reduction of an array is one of its kinds

inline constexpr int kReductionGroupSize = 256;

/// tack_reduce_<sum|min|max>_f32.
std::string array_reduction_entry(ReduceOp op);

/// 0.0f for sum, +inf for min, -inf for max: what out[0] holds before the launch.
float reduction_identity(ReduceOp op);

/// The complete source (header, helpers, entry point) for `d`.
std::string array_reduction_source(const Dialect& d, ReduceOp op);

}  // namespace tack::codegen::cfamily
