#pragma once
// A C-family GPU dialect is data (STYLE habit 4): the spellings the one emitter (emitter.cpp)
// asks for. cuda.cpp, hip.cpp, opencl.cpp and metal.cpp each fill one table; nothing in the
// emitter branches on a dialect's name.
//
// Patterns: `{p}` is an element's address, `{v}` an operand, `{x}` a value to reinterpret,
// `{old}`/`{new}` the compare-and-swap operands, `{i}` an argument index.

#include <array>
#include <string_view>
#include <vector>

#include "tack/dtype.hpp"

namespace tack::codegen::cfamily {

/// A native atomic read-modify-write that returns the old value; empty means the emitter
/// builds a compare-and-swap loop on the element's bit pattern (same width, never wider).
struct AtomicSpelling {
    std::string_view add, min, max;
};

// Every text defaults to empty ("the dialect has none"): a dialect names only what it has.
struct Dialect {
    std::string_view name = {};  // "cuda", "hip", "opencl", "metal"
    std::string_view display_name = {};
    std::string_view compile_options = {};  // what the vendor compiler must be given (CONTRACT B20)
    std::array<std::string_view, kNumDTypes> type;      // empty: dtype unsupported (f64 on Metal)
    std::string_view i64_suffix = {}, u64_suffix = {};  // 64-bit integer literal suffixes
    std::string_view header = {};                       // first lines of every source
    std::string_view fp64_header = {};                  // added when the kernel uses f64
    std::string_view int64_atomics_header = {};         // added when it has 64-bit atomics
    std::string_view kernel_decl = {};                  // before the entry name
    std::string_view helper_decl = {};                  // before every prelude helper
    // Instead of helper_decl before signed negation below 32 bits and signed abs below 64 bits
    // (CONTRACT B17: Intel's Level Zero compiler gets them wrong inlined); empty: helper_decl.
    std::string_view narrow_neg_abs_decl = {};
    // f64 floor and ceil spelled copysign(floor(x), x) (CONTRACT B21: Intel's f64 floor/ceil
    // lose the sign of a zero result).
    bool f64_round_copysign = false;
    std::string_view global_qual = {};     // address space of array pointers
    std::string_view shared_qual = {};     // workgroup memory declarations
    std::string_view constant_qual = {};   // program-scope constant tables
    std::string_view param_suffix = {};    // after each kernel parameter ({i})
    std::string_view n_param = {};         // the 64-bit `__n__` parameter ({i})
    std::string_view builtin_params = {};  // extra entry parameters (Metal positions)
    // Arguments in one argument buffer (CONTRACT E13, Metal): the entry's only buffer parameter
    // ({s}: the struct of the kernel's arguments, one 8-byte word each, named tack_args);
    // empty: one parameter per argument.
    std::string_view argument_buffer = {};
    // The built-in iteration index of an exact grid (Metal's dispatchThreads runs exactly n
    // threads): no `__n__` argument and no guard. Empty: group_id * group_size + local_id.
    std::string_view exact_index = {};
    // CONTRACT E15 (Metal): the body as a function of its own with this declaration when a
    // sequential loop stores or does an atomic; empty: the body is the entry's.
    std::string_view body_decl = {};
    // CONTRACT B17 (Metal): 64-bit integer adds inside loops go through a helper declared so;
    // empty: as outside loops.
    std::string_view loop_add64_decl = {};
    std::string_view group_id = {}, local_id = {};  // 32-bit unsigned built-ins
    std::string_view group_size = {};
    std::string_view barrier = {};    // orders workgroup and global memory (CONTRACT E6)
    std::string_view printf_fn = {};  // empty: print is a no-op (Metal, CONTRACT A40)
    std::string_view i64_format = {}, u64_format = {};
    bool f32_math_suffix = false;  // sqrtf vs overloaded sqrt
    /// Spelling of a float product that must not be contracted with a later statement's add
    /// ({a}, {b}); empty: a plain `*` is safe because the dialect's header keeps contraction
    /// within one expression (see emitter.cpp, "Contraction").
    std::string_view fmul_rn_f32 = {}, fmul_rn_f64 = {};
    std::string_view as_u32 = {}, as_f32 = {}, as_u64 = {},
                     as_f64 = {};               // bit reinterpretation ({x})
    std::string_view load32 = {}, load64 = {};  // racy-safe read of a word ({p})
    std::string_view cas32 = {}, cas64 = {};    // returns the previous word
    std::string_view cas_support = {};          // prelude text cas32/cas64 rely on
    // Hardware 3-D textures (CONTRACT A39), for the TexSample nodes a target keeps: the kernel
    // parameter ({name}, {i}: its argument index), a prelude declaring `tack_sampler` (linear
    // filter, clamp to edge), the sample of texture {t} at ({x}, {y}, {z}), and whether those
    // are normalized coordinates (texel i's centre at (i + 0.5) / N) or texel units (i + 0.5).
    std::string_view texture_param = {}, texture_sampler = {}, texture_sample = {};
    bool texture_normalized = false;
    std::array<AtomicSpelling, kNumDTypes> atomic;
    std::array<bool, kNumDTypes> atomic_ok{};  // CONTRACT E1 atomic dtypes
    bool int64_atomics_optional = false;       // i64/u64 only with a device extension
};

/// "cuda", "hip", "opencl", "metal"; throws diag::InternalError for any other name.
const Dialect& dialect(std::string_view name);

/// The dialect's atomic dtypes (CONTRACT E1). OpenCL lists i64/u64 only when the device has
/// cl_khr_int64_base_atomics (pass `int64_atomics`); the other dialects ignore the flag.
std::vector<DType> supported_atomic_dtypes(const Dialect& d, bool int64_atomics = true);

const Dialect& cuda_dialect();
const Dialect& hip_dialect();
const Dialect& opencl_dialect();
/// OpenCL C for Level Zero (ocloc): the OpenCL table with Intel's workarounds (B17, B21).
const Dialect& level_zero_dialect();
const Dialect& metal_dialect();

}  // namespace tack::codegen::cfamily
