#pragma once
// IR passes. Each pass is one free function in its own .cpp; the pipeline is a straight line.
// Only passes the contract allows (CONTRACT B26): nothing moves loads or stores, nothing
// reassociates floats, nothing hoists out of a loop that may run zero times.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "ir/ir.hpp"

namespace tack::passes {

/// Concrete extents of array parameters: (param index, dim) -> extent.
using ShapeValues = std::map<std::pair<int, int>, int64_t>;

/// The (param, dim) extents that reach generated code: every ArrayDim except those that only
/// appear in the outermost parallel dimension's `end` (CONTRACT D3 shape_sig).
std::vector<std::pair<int, int>> shape_dims_used(const ir::Kernel& k);

/// Replaces every ArrayDim outside dims[0].end by its constant extent.
/// Requires: `shapes` has every pair shape_dims_used() returns.
ir::Kernel specialize_shapes(ir::Kernel k, const ShapeValues& shapes);

/// Whether a target samples a texture of extents (W, H, D) in hardware (CONTRACT E5); null
/// means never.
using TextureInHardware = std::function<bool(const std::array<int64_t, 3>& whd)>;

/// Replaces every `x = sample(...)` (TexSample) whose texture is not sampled in hardware by the
/// software form: inline trilinear interpolation over the texture's storage (lower_textures.cpp).
/// A TexSample whose extents are not constants (an unspecialized template) is always expanded.
/// Guarantees: TexSample remains only where `in_hardware` accepted its extents.
ir::Kernel lower_textures(ir::Kernel k, const TextureInHardware& in_hardware = {});

/// Folds operations on constants with exactly the IR's runtime semantics (wrapping, floor
/// division, saturating casts; float ops only where the result is exact IEEE arithmetic of the
/// node's type, never x*0 -> 0 or x-x -> 0).
ir::Kernel constant_fold(ir::Kernel k);

/// Removes assignments to locals that are never read and statements after break/continue;
/// removes `if` with a constant condition by keeping the taken branch.
ir::Kernel dead_code(ir::Kernel k);

/// Conservative copy propagation: replaces reads of a local assigned exactly once from a
/// constant or another never-reassigned variable.
ir::Kernel copy_propagate(ir::Kernel k);

/// CONTRACT D13: "" when every collective (barrier, block_sum/min/max) is on provably uniform
/// control flow, else the ValueError message "Kernel 'k': barrier at body[2].then[0] requires
/// uniform workgroup participation: ...". (participation.cpp; used by GPU-style backends.)
std::string check_participation(const ir::Kernel& k);

struct PipelineOptions {
    bool print_after_all = false;  // write the IR after each pass to stderr
};

/// verify -> constant_fold -> copy_propagate -> constant_fold -> dead_code -> verify.
ir::Kernel optimize(ir::Kernel k, const PipelineOptions& opts = {});

}  // namespace tack::passes
