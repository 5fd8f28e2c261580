#pragma once
// Typed IR -> C-family GPU source (CUDA C, HIP C, OpenCL C, MSL), one emitter for all four,
// parameterized by a Dialect table.
//
// Requires: a kernel whose ArrayDim nodes were specialized to constants (except in the parallel
// loop's outermost end, which the host evaluates and passes as `__n__`), whose dtypes the
// dialect supports (no f64 on Metal) and whose atomics target the dialect's atomic dtypes.
// Guarantees: deterministic text (byte-stable for golden tests) implementing the SEMANTICS of
// ir.hpp exactly, integer results bit-identical to the CPU's, free of C undefined behavior.
//
// Launch contract (the seed's GPU geometry, CONTRACT D10/E6):
//   * Groups of 256 lanes (Level Zero/Metal may pick fewer only for kernels without
//     collectives); ceil(n / group) groups. The iteration index is the 64-bit
//     group_id * group_size + local_id, never a 32-bit global id.
//   * `if (idx >= __n__) return;` unless the kernel has collectives (barrier, block reductions),
//     which need complete groups (CONTRACT D12: the host refuses a partial one).
//   * idx is decomposed row-major over the parallel dims exactly as the CPU does.
//   * Arguments, in order: every array parameter (a global pointer, or a texture for an array
//     the kernel samples in hardware, in parameter order), then
//     one `__pack_<dtype>__` array per scalar dtype used (DType order), then the 64-bit `__n__`.
//     KernelAbi records which pack and slot each scalar parameter occupies.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cfamily/dialect.hpp"
#include "ir/ir.hpp"

namespace tack::codegen::cfamily {

struct AbiParam {
    std::string name;
    bool is_array = false;
    DType dtype = DType::i32;  // element type for arrays
    int arg_index = -1;        // kernel argument of an array parameter
    int pack_slot = -1;        // element of `__pack_<dtype>__` for a scalar parameter
    /// An array sampled by texture hardware: the argument is the dialect's texture (a 64-bit
    /// object on CUDA/HIP, an image on OpenCL and Metal) made from the array, whose extents
    /// (W, H, D) the variant was specialized for.
    bool is_texture = false;
    std::array<std::int64_t, 3> texture_extent{};
};

struct AbiPack {
    DType dtype = DType::i32;
    int count = 0;
    int arg_index = -1;
};

/// What a runtime needs to launch the generated entry point.
struct KernelAbi {
    std::string entry;             // tack_kernel_<encoded name>
    std::vector<AbiParam> params;  // Kernel::params order
    std::vector<AbiPack> packs;    // argument order (after the arrays)
    int n_arg_index = -1;          // the 64-bit iteration count `__n__`
    int num_args = 0;
    int group_size = 256;
    bool uses_collectives = false;  // needs complete 256-lane groups (CONTRACT D12)
    bool uses_workgroups = false;   // shared memory, thread_id, barrier, block reductions
    bool uses_f64 = false;
    bool uses_int64_atomics = false;
    bool uses_print = false;

    /// The bytes of every pack array, in `packs` order. `scalar_bits[i]` holds parameter i's
    /// value as the CPU's slots do (integers zero-extended from their width, f32 as its IEEE
    /// bits, f64 as 64 bits); entries for array parameters are ignored.
    std::vector<std::vector<uint8_t>> pack_scalars(const std::vector<uint64_t>& scalar_bits) const;
};

struct GeneratedSource {
    std::string source;
    KernelAbi abi;
};

/// Raises diag::CompileError (TypeError) for f64 on a dialect without it and for an atomic
/// dtype the dialect lacks (CONTRACT D14 wording).
GeneratedSource generate(const ir::Kernel& k, const Dialect& d);

/// generate(k, d).source.
std::string emit(const ir::Kernel& k, const Dialect& d);

}  // namespace tack::codegen::cfamily
