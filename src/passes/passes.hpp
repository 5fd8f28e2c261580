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
#include <vector>

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

/// One check of a debug variant: what debug_checks tests at one source position.
struct CheckSite {
    enum class Kind { Read, Write, Update, Atomic, FloorDiv, Mod };
    Kind kind = Kind::Read;
    diag::SourceFilePtr file;  // the kernel's, or an inlined @tack.func's (Kernel::stmt_files)
    ir::SourceRange range;
    ir::BufferPtr buffer;   // accesses: the array
    bool per_axis = false;  // accesses: values are one subscript per axis of the field's
                            // logical shape (else one flat element index of its storage)
    int values = 1;         // i64 values the record holds (subscripts, or the dividend)
    ir::ScalarType dtype = ir::ScalarType::i64;  // divisions: the operands' type
};

/// What the host needs to read a debug variant's record.
struct DebugRecord {
    std::vector<CheckSite> sites;  // site id s (>= 1) is sites[s - 1]
    int errors_param = -1;         // the i32 record parameter, kDebugRecordWords elements
    /// The i64 scalar parameters after it: (array parameter, dim) extents the checks compare
    /// with; dim -1 is the array's element count (its storage, vector components included).
    std::vector<std::pair<int, int>> extents;
};

/// The debug variant of a kernel and its record.
struct DebugChecked : DebugRecord {
    ir::Kernel kernel;
};

/// The record: [0] set to 1 by the first violation (atomic max), [1] its site id, then
/// kDebugRecordValues i64 values as (low, high) i32 word pairs.
inline constexpr int kDebugRecordValues = 4;
inline constexpr int kDebugRecordWords = 2 + 2 * kDebugRecordValues;

/// DECISIONS "Debug mode" (debug_checks.cpp). Requires: sema's lowered template (before
/// specialize_shapes: extents are still ArrayDim, Kernel::stmt_files is valid). Guarantees:
/// every field, local-array and shared-array index (Load, Store, Atomic) is compared with its
/// extents, per axis where the index is sema's flattening, and every integer `//` and `%`
/// whose divisor is not a non-zero constant is compared with 0; the first failing check of a
/// launch records its site and values. An out-of-bounds access is skipped (a read yields 0,
/// an atomic's old value is 0); a division by zero keeps its defined result 0; every thread
/// runs on. Checks in the prologue (which may not store) are held in variables and recorded
/// by the first iteration. The parallel loop's bounds and `return expr` are not checked.
DebugChecked debug_checks(ir::Kernel k);

struct PipelineOptions {
    bool print_after_all = false;  // write the IR after each pass to stderr
};

/// verify -> constant_fold -> copy_propagate -> constant_fold -> dead_code -> verify.
ir::Kernel optimize(ir::Kernel k, const PipelineOptions& opts = {});

}  // namespace tack::passes
