#pragma once
// The one table of kernel intrinsics. Every row carries its signature (signature.hpp), a
// one-line doc and where the Python package binds the name; the name and the argument counts
// are derived from the signature. Validation (which names are callable, with how many
// arguments, which are statement-only, which need workgroups, which may appear outside the
// parallel loop), lowering (how a call becomes IR), the docs tables (scripts/docs_hooks.py) and
// the Python package (its device-only objects and their stubs, through _tack._builtins()) all
// read this table; nothing else lists intrinsics.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "builtins/signature.hpp"

namespace tack::builtins {

// What kind of builtin a row is (lowering dispatches on it), with the docs table's title.
// clang-format off
#define TACK_BUILTIN_CATEGORIES(X)                                                     \
    X(Math, "math functions")                  /* sqrt, sin, ... pow, abs (A42) */     \
    X(MinMax, "min and max")                   /* two or more arguments */             \
    X(Helper, "shading helpers (tack.math)")   /* with their GLSL definitions (A42) */ \
    X(Cast, "casts")                           /* i8 ... f64, int, float */            \
    X(Atomic, "atomics")                       /* A38, DECISIONS G6 */                 \
    X(Alloc, "local and shared arrays")                                                \
    X(Workgroup, "workgroups")                 /* barrier, thread_id, block_* (A36) */ \
    X(Range, "loops")                                                                  \
    X(Print, "printing")                       /* A40 */                               \
    X(Len, "length")                                                                   \
    X(Select, "per-component choice")          /* A31 */                               \
    X(Constant, "constants (module level)")                                            \
    X(Construct, "vectors and matrices")       /* A28 */                               \
    X(Truth, "mask reductions")                /* any, all */
// clang-format on

enum class Category {
#define TACK_X(name, title) name,
    TACK_BUILTIN_CATEGORIES(TACK_X)
#undef TACK_X
};
std::string_view to_string(Category c);  // "Math"
std::string_view title(Category c);      // "math functions"
std::span<const Category> categories();  // in the order above

/// The object the Python package gives the name, so that Python resolves it in kernel source
/// (python/tack/_names.py) and the stubs type it (python/tack/*.pyi).
enum class PyName {
    Own,       // Python's own: a builtin or math function, a dtype, tack.Vector, tack.constant
    Tack,      // a device-only object tack.NAME (python/tack/_intrinsics.py)
    TackMath,  // a device-only object tack.math.NAME (python/tack/math.py)
};
std::string_view to_string(PyName p);  // "", "tack", "tack.math"

/// Where a call may stand; validation reads it.
struct Placement {
    bool statement_ok = true;          // may be used as an expression statement
    bool value_ok = true;              // may be used as a value (atomics: DECISIONS G6 says yes)
    bool needs_workgroups = false;     // rejected on backends without supports_workgroups (D11)
    bool allowed_outside_loop = true;  // may appear before the parallel loop (CONTRACT A12)
};

struct Builtin {
    Signature signature;   // "clamp(x: Value, lo: Value, hi: Value) -> Value"
    std::string_view doc;  // one sentence, for the docs table and the stubs' docstrings
    Category category = Category::Math;
    PyName python = PyName::Own;
    // Derived from `signature` (no row states them): the canonical name ("sqrt", "atomic_add",
    // "f32", "Matrix.identity") and the argument counts of the scalar forms (vector forms are
    // checked by lowering).
    std::string_view name;
    int min_args = 0;
    int max_args = 0;  // -1: unbounded
    bool statement_ok = true;
    bool value_ok = true;
    bool needs_workgroups = false;
    bool allowed_outside_loop = true;

    constexpr Builtin() = default;
    constexpr Builtin(std::string_view sig, Category c, std::string_view doc_, Placement p = {},
                      PyName py = PyName::Own)
        : signature(parse_signature(sig)),
          doc(doc_),
          category(c),
          python(py),
          name(signature.name),
          min_args(signature.min_args()),
          max_args(signature.max_args()),
          statement_ok(p.statement_ok),
          value_ok(p.value_ok),
          needs_workgroups(p.needs_workgroups),
          allowed_outside_loop(p.allowed_outside_loop) {}
};

/// nullptr when `name` is not an intrinsic.
const Builtin* find(std::string_view name);
std::span<const Builtin> all();  // sorted by name

// What a method's receiver must be (CONTRACT A30, A39), with the docs table's word for it.
// clang-format off
#define TACK_BUILTIN_RECEIVERS(X)                                               \
    X(Vector, "vectors")                       /* dot, cross, normalized ... */ \
    X(Matrix, "matrices")                      /* transpose, inverse ... */     \
    X(VectorOrMatrix, "vectors and matrices")  /* norm, sum, min ... (masks included) */ \
    X(Texture, "textures")                     /* sample */
// clang-format on

enum class Receiver {
#define TACK_X(name, words) name,
    TACK_BUILTIN_RECEIVERS(TACK_X)
#undef TACK_X
};
std::string_view title(Receiver r);  // "vectors and matrices"

/// A method of a kernel value: `v.norm()`, `m.inverse()`, `tex.sample(u, v, w)`. The one list
/// that validation (which attribute calls are methods) and lowering (arity and receiver
/// checks; the semantics are lowering's table of the same names) read.
struct Method {
    Signature signature;  // the arguments after the receiver: "norm(eps: Float = 0) -> Float"
    std::string_view doc;
    Receiver receiver = Receiver::Vector;
    std::string_view name;  // derived from `signature`, like the counts
    int min_args = 0;
    int max_args = 0;

    constexpr Method() = default;
    constexpr Method(std::string_view sig, Receiver r, std::string_view doc_)
        : signature(parse_signature(sig)),
          doc(doc_),
          receiver(r),
          name(signature.name),
          min_args(signature.min_args()),
          max_args(signature.max_args()) {}
};

/// nullptr when `name` is not a method.
const Method* find_method(std::string_view name);
std::span<const Method> methods();  // sorted by name

/// The call as a user writes it: the parameters' names with their defaults and the `*`,
/// without the types (the vocabulary is the docs' and the stubs', not the caller's):
/// "clamp(x, lo, hi)", "range(start, stop=..., step=1)", "max(a, b, *rest)", "norm(eps=0)".
std::string call_form(const Signature& s);

/// What validation and lowering say to a call with `given` arguments that `s` refuses, after
/// the callee's name: "takes 3 arguments (2 given): clamp(x, lo, hi)"; a signature without
/// parameters is its name already, "takes no arguments (1 given)".
std::string arity_error(const Signature& s, std::size_t given);

}  // namespace tack::builtins
