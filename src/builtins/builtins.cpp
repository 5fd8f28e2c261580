// The intrinsic table (see builtins.hpp). One row per canonical name, its signature first: the
// name and the argument counts are parsed from it when this file compiles.

#include "builtins/builtins.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "ir/ir.hpp"

namespace tack::builtins {
namespace {

using C = Category;

// Row shorthands. `pure` intrinsics compute a value from their arguments and may appear anywhere
// (CONTRACT A12 allows local assignments outside the parallel loop, and these are expressions).
constexpr Builtin pure(std::string_view sig, Category cat, std::string_view doc,
                       PyName py = PyName::Own) {
    return {sig, cat, doc, {}, py};
}
constexpr Builtin math(std::string_view sig) {
    return pure(sig, C::Math,
                "The C library function of that name, per component, in f32 (f64 when an "
                "argument is f64); abs and pow of integers stay integers.");
}
constexpr Builtin helper(std::string_view sig, std::string_view doc) {
    return pure(sig, C::Helper, doc, PyName::TackMath);
}
constexpr Builtin cast(std::string_view sig) {
    return pure(sig, C::Cast,
                "Converts to the dtype of its name, per component (int: i32, "
                "float: f32).");
}
// Atomics return the old value (DECISIONS G6) and must stay inside the parallel loop (A12).
constexpr Builtin atomic(std::string_view sig, std::string_view doc) {
    return {sig, C::Atomic, doc, {.allowed_outside_loop = false}, PyName::Tack};
}
// Block reductions: every lane of the workgroup takes part, so never outside the loop (A12, A37).
constexpr Builtin block_reduce(std::string_view sig, std::string_view doc) {
    return {sig,
            C::Workgroup,
            doc,
            {.needs_workgroups = true, .allowed_outside_loop = false},
            PyName::Tack};
}
// Local arrays are private to an iteration; shared arrays belong to the workgroup (A35, A36).
constexpr Builtin alloc(std::string_view sig, std::string_view doc, bool shared) {
    return {sig, C::Alloc, doc, {.needs_workgroups = shared}, PyName::Tack};
}

// Every intrinsic but the math functions, kept sorted by name for the reader (kTable sorts).
constexpr std::array kRows = {
    // Vector and matrix values (CONTRACT A28): scalarized by lowering.
    pure("Matrix(rows: List) -> Matrix", C::Construct,
         "A matrix from a list of rows, each a list of numbers."),
    pure("Matrix.identity(n: Int) -> Matrix", C::Construct, "The n x n identity matrix."),
    pure("Vector(components: List) -> Vector", C::Construct, "A vector from a list of numbers."),
    pure("all(mask: Mask) -> Bool", C::Truth, "True when every component of the mask is."),
    pure("any(mask: Mask) -> Bool", C::Truth, "True when some component of the mask is."),
    atomic("atomic_add(field: Field, index: Index, value: Value) -> Value",
           "Adds value to field[index] atomically and returns the element's old value."),
    atomic("atomic_max(field: Field, index: Index, value: Value) -> Value",
           "Raises field[index] to value atomically and returns the element's old value."),
    atomic("atomic_min(field: Field, index: Index, value: Value) -> Value",
           "Lowers field[index] to value atomically and returns the element's old value."),
    // Statement only: it orders one workgroup, reached by all its lanes (A5, A36).
    Builtin{"barrier() -> None",
            C::Workgroup,
            "Waits for every lane of the workgroup; orders its memory accesses.",
            {.value_ok = false, .needs_workgroups = true, .allowed_outside_loop = false},
            PyName::Tack},
    block_reduce("block_max(value: Float) -> Float",
                 "The largest f32 value of the workgroup's lanes, on every lane."),
    block_reduce("block_min(value: Float) -> Float",
                 "The smallest f32 value of the workgroup's lanes, on every lane."),
    block_reduce("block_sum(value: Float) -> Float",
                 "The sum of the workgroup's f32 values, on every lane."),
    helper("clamp(x: Value, lo: Value, hi: Value) -> Value", "min(max(x, lo), hi)."),
    // Only meaningful at module level; validation rejects it in a kernel.
    Builtin{"constant(value: Scalar, dtype: DType = ...) -> Scalar",
            C::Constant,
            "A module-level name kernels read as a compile-time constant.",
            {.statement_ok = false}},
    helper("distance(a: Value, b: Value) -> Float", "length(a - b)."),
    cast("f32(x: Value) -> Value"),
    cast("f64(x: Value) -> Value"),
    cast("float(x: Value) -> Value"),
    helper("fract(x: Value) -> Value", "x - floor(x)."),
    cast("i16(x: Value) -> Value"),
    cast("i32(x: Value) -> Value"),
    cast("i64(x: Value) -> Value"),
    cast("i8(x: Value) -> Value"),
    cast("int(x: Value) -> Value"),
    pure("len(x: Array) -> Int", C::Len, "The extent of the array's first dimension."),
    helper("length(x: Value) -> Float",
           "The Euclidean length sqrt(dot(x, x)); abs(x) of a scalar."),
    alloc("local_array(dtype: DType, size: Int) -> Array",
          "A zeroed array private to the iteration; size is a literal.", false),
    alloc("local_array_like(like: Array, size: Int) -> Array",
          "A local array of like's dtype; size is a literal.", false),
    pure("max(a: Value, b: Value, *rest: Value) -> Value", C::MinMax,
         "The largest argument, per component."),
    pure("min(a: Value, b: Value, *rest: Value) -> Value", C::MinMax,
         "The smallest argument, per component."),
    helper("mix(x: Value, y: Value, a: Value) -> Value", "x * (1 - a) + y * a."),
    Builtin{"ndrange(extent: Extent, *extents: Extent) -> Range",
            C::Range,
            "The indices of several extents, row-major (the last varies fastest).",
            {.statement_ok = false},
            PyName::Tack},
    helper("normalize(x: Value) -> Value", "x / length(x)."),
    // Statement only; emits printf per iteration, so never outside the loop (A40).
    Builtin{"print(*values: Any) -> None",
            C::Print,
            "Prints its values and string labels from the device.",
            {.value_ok = false, .allowed_outside_loop = false}},
    Builtin{"range(start: Int, stop: Int = ..., step: Int = 1) -> Range",
            C::Range,
            "range(stop) or range(start, stop[, step]), the step positive.",
            {.statement_ok = false}},
    helper("saturate(x: Value) -> Value", "clamp(x, 0, 1)."),
    pure("select(mask: Mask, a: Value, b: Value) -> Value", C::Select,
         "a where the mask is true, else b, per component.", PyName::Tack),
    alloc("shared(dtype: DType, size: Int) -> Array",
          "An uninitialized array shared by the workgroup; size is a literal.", true),
    alloc("shared_like(like: Array, size: Int) -> Array",
          "A shared array of like's dtype; size is a literal.", true),
    helper("sign(x: Value) -> Value", "-1, 0 or 1 by the sign of x."),
    helper("smoothstep(edge0: Value, edge1: Value, x: Value) -> Value",
           "Hermite interpolation from 0 at edge0 to 1 at edge1."),
    helper("step(edge: Value, x: Value) -> Value", "0 where x < edge, else 1."),
    // The lane index: a pure read, allowed before the loop (A12).
    Builtin{"thread_id() -> Int",
            C::Workgroup,
            "The lane's index in its workgroup.",
            {.needs_workgroups = true},
            PyName::Tack},
    cast("u16(x: Value) -> Value"),
    cast("u32(x: Value) -> Value"),
    cast("u64(x: Value) -> Value"),
    cast("u8(x: Value) -> Value"),
};

// The math functions are the IR's list (ir::MathFn): its names, and their signature from the
// arity (an arity with no signature here is a build error).
#define TACK_MATH_PARAMS_1 "(x: Value) -> Value"
#define TACK_MATH_PARAMS_2 "(a: Value, b: Value) -> Value"
#define TACK_MATH_PARAMS(arity) TACK_MATH_PARAMS_##arity
constexpr Builtin kMathRows[] = {
#define TACK_X(e, n, a) math(#n TACK_MATH_PARAMS(a)),
    TACK_IR_MATH(TACK_X)
#undef TACK_X
};
#undef TACK_MATH_PARAMS
#undef TACK_MATH_PARAMS_2
#undef TACK_MATH_PARAMS_1

// Sorted by name so find() is a binary search.
constexpr auto kTable = [] {
    std::array<Builtin, kRows.size() + std::size(kMathRows)> table{};
    std::copy(kRows.begin(), kRows.end(), table.begin());
    std::copy(std::begin(kMathRows), std::end(kMathRows), table.begin() + kRows.size());
    std::sort(table.begin(), table.end(),
              [](const Builtin& a, const Builtin& b) { return a.name < b.name; });
    return table;
}();

template <class Row, size_t N>
constexpr bool sorted_unique_documented(const std::array<Row, N>& rows) {
    for (size_t i = 0; i < N; ++i) {
        if (rows[i].doc.empty() || !rows[i].doc.ends_with('.')) return false;
        if (i > 0 && !(rows[i - 1].name < rows[i].name)) return false;
    }
    return true;
}
static_assert(sorted_unique_documented(kTable),
              "an intrinsic's name is listed twice, or a row has no one-sentence doc");

// Sorted by name, like kTable. The signatures leave the receiver out.
constexpr std::array kMethods = {
    Method{"cross(other: Vector) -> Vector", Receiver::Vector, "The cross product of 3-vectors."},
    Method{"determinant() -> Scalar", Receiver::Matrix, "The determinant of a square matrix."},
    Method{"dot(other: Vector) -> Scalar", Receiver::Vector, "The dot product."},
    Method{"inverse() -> Matrix", Receiver::Matrix, "The inverse of a square matrix."},
    Method{"max() -> Scalar", Receiver::VectorOrMatrix, "The largest component."},
    Method{"min() -> Scalar", Receiver::VectorOrMatrix, "The smallest component."},
    Method{"norm(eps: Float = 0) -> Float", Receiver::VectorOrMatrix,
           "The Euclidean norm sqrt(norm_sqr() + eps)."},
    Method{"norm_sqr() -> Scalar", Receiver::VectorOrMatrix, "The sum of the squared components."},
    Method{"normalized(eps: Float = 0) -> Vector", Receiver::Vector,
           "The vector divided by norm() + eps."},
    Method{"outer_product(other: Vector) -> Matrix", Receiver::Vector,
           "The matrix of every component times every component of other."},
    Method{"sample(u: Float, v: Float, w: Float) -> Float", Receiver::Texture,
           "Trilinear interpolation at u, v, w from 0 to 1 (texel centres at 0 and 1, clamped)."},
    Method{"sum() -> Scalar", Receiver::VectorOrMatrix, "The sum of the components."},
    Method{"trace() -> Scalar", Receiver::Matrix, "The sum of the diagonal of a square matrix."},
    Method{"transpose() -> Matrix", Receiver::Matrix, "The transposed matrix."},
};
static_assert(sorted_unique_documented(kMethods),
              "kMethods must stay sorted by name, each row with a one-sentence doc");

constexpr Category kCategories[] = {
#define TACK_X(name, title) Category::name,
    TACK_BUILTIN_CATEGORIES(TACK_X)
#undef TACK_X
};
constexpr std::string_view kCategoryNames[] = {
#define TACK_X(name, title) #name,
    TACK_BUILTIN_CATEGORIES(TACK_X)
#undef TACK_X
};
constexpr std::string_view kCategoryTitles[] = {
#define TACK_X(name, title) title,
    TACK_BUILTIN_CATEGORIES(TACK_X)
#undef TACK_X
};
constexpr std::string_view kReceiverTitles[] = {
#define TACK_X(name, words) words,
    TACK_BUILTIN_RECEIVERS(TACK_X)
#undef TACK_X
};

}  // namespace

std::string_view to_string(Category c) {
    return kCategoryNames[static_cast<int>(c)];
}

std::string_view title(Category c) {
    return kCategoryTitles[static_cast<int>(c)];
}

std::span<const Category> categories() {
    return kCategories;
}

std::string_view to_string(PyName p) {
    switch (p) {
        case PyName::Own:
            return "";
        case PyName::Tack:
            return "tack";
        case PyName::TackMath:
            return "tack.math";
    }
    return "";
}

std::string_view title(Receiver r) {
    return kReceiverTitles[static_cast<int>(r)];
}

const Method* find_method(std::string_view name) {
    auto it = std::lower_bound(kMethods.begin(), kMethods.end(), name,
                               [](const Method& m, std::string_view n) { return m.name < n; });
    return it != kMethods.end() && it->name == name ? &*it : nullptr;
}

std::span<const Method> methods() {
    return kMethods;
}

const Builtin* find(std::string_view name) {
    auto it = std::lower_bound(kTable.begin(), kTable.end(), name,
                               [](const Builtin& b, std::string_view n) { return b.name < n; });
    return it != kTable.end() && it->name == name ? &*it : nullptr;
}

std::span<const Builtin> all() {
    return kTable;
}

std::string call_form(const Signature& s) {
    std::string form = std::string(s.name) + "(";
    for (const Param& p : s.parameters()) {
        if (&p != s.params.data()) form += ", ";
        if (p.variadic) form += "*";
        form += p.name;
        if (p.optional) form += "=" + std::string(p.default_value);
    }
    return form + ")";
}

std::string arity_error(const Signature& s, std::size_t given) {
    auto args = [](int n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); };
    int lo = s.min_args(), hi = s.max_args();
    std::string want = hi == 0    ? "no arguments"
                       : hi < 0   ? "at least " + args(lo)
                       : lo == hi ? args(lo)
                       : lo == 0  ? "at most " + args(hi)
                                  : std::to_string(lo) + " to " + args(hi);
    std::string text = "takes " + want + " (" + std::to_string(given) + " given)";
    return s.param_count == 0 ? text : text + ": " + call_form(s);
}

}  // namespace tack::builtins
