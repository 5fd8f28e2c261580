#pragma once
// The one table of kernel intrinsics. Validation (which names are callable, which are
// statement-only, which need workgroups, which may appear outside the parallel loop), lowering
// (how a call becomes IR) and documentation all read this table; nothing else lists intrinsics.

#include <span>
#include <string_view>

namespace tack::builtins {

enum class Category {
    Math,       // sqrt, sin, ... pow, abs, floor, ceil (CONTRACT A42)
    MinMax,     // min, max (>= 2 args)
    Helper,     // tack.math GLSL helpers: fract mix clamp saturate smoothstep step sign ...
    Cast,       // i8 ... f64, int, float
    Atomic,     // atomic_add, atomic_min, atomic_max
    Alloc,      // local_array, local_array_like, shared, shared_like
    Workgroup,  // barrier, thread_id, block_sum, block_min, block_max
    Range,      // range, ndrange
    Print,      // print
    Len,        // len
    Select,     // select(mask, a, b)
    Constant,   // tack.constant (module level only)
    Construct,  // tack.Vector([...]), tack.Matrix([[...]]), tack.Matrix.identity(n)
    Truth,      // any(mask), all(mask)
};

struct Builtin {
    std::string_view name;  // canonical: "sqrt", "atomic_add", "f32", "ndrange"
    Category category;
    int min_args;
    int max_args;               // -1: unbounded
    bool statement_ok;          // may be used as an expression statement
    bool value_ok;              // may be used as a value (atomics: DECISIONS G6 says yes)
    bool needs_workgroups;      // rejected on backends without supports_workgroups (CONTRACT D11)
    bool allowed_outside_loop;  // may appear before the parallel loop (CONTRACT A12)
};

/// nullptr when `name` is not an intrinsic.
const Builtin* find(std::string_view name);
std::span<const Builtin> all();

/// What a method's receiver must be (CONTRACT A30, A39).
enum class Receiver {
    Vector,          // dot, cross, normalized, outer_product
    Matrix,          // transpose, trace, determinant, inverse
    VectorOrMatrix,  // norm, norm_sqr, sum, min, max (masks included)
    Texture,         // sample
};

/// A method of a kernel value: `v.norm()`, `m.inverse()`, `tex.sample(u, v, w)`. The one list
/// that validation (which attribute calls are methods) and lowering (arity and receiver
/// checks; the semantics are lowering's table of the same names) read.
struct Method {
    std::string_view name;
    Receiver receiver;
    int min_args;
    int max_args;
};

/// nullptr when `name` is not a method.
const Method* find_method(std::string_view name);
std::span<const Method> methods();

}  // namespace tack::builtins
