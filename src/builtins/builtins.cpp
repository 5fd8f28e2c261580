// The intrinsic table (see builtins.hpp). One row per canonical name; the flags are read by
// validation (statement/value use, placement relative to the parallel loop, workgroup support)
// and lowering. Argument counts are the scalar forms; vector forms are checked by lowering.

#include "builtins/builtins.hpp"

#include <algorithm>
#include <array>
#include <iterator>

#include "ir/ir.hpp"

namespace tack::builtins {
namespace {

using C = Category;

// Row shorthands. `pure` intrinsics compute a value from their arguments and may appear anywhere
// (CONTRACT A12 allows local assignments outside the parallel loop, and these are expressions).
constexpr Builtin pure(std::string_view name, Category cat, int min_args, int max_args) {
    return {name, cat, min_args, max_args, true, true, false, true};
}
constexpr Builtin math(std::string_view name, int nargs) {
    return pure(name, C::Math, nargs, nargs);
}
constexpr Builtin helper(std::string_view name, int nargs) {
    return pure(name, C::Helper, nargs, nargs);
}
constexpr Builtin cast(std::string_view name) {
    return pure(name, C::Cast, 1, 1);
}
// Atomics return the old value (DECISIONS G6) and must stay inside the parallel loop (A12).
constexpr Builtin atomic(std::string_view name) {
    return {name, C::Atomic, 3, 3, true, true, false, false};
}
// Block reductions: every lane of the workgroup takes part, so never outside the loop (A12, A37).
constexpr Builtin block_reduce(std::string_view name) {
    return {name, C::Workgroup, 1, 1, true, true, true, false};
}

// Every intrinsic but the math functions, kept sorted by name for the reader (kTable sorts).
constexpr std::array kRows = {
    // Vector and matrix values (CONTRACT A28): scalarized by lowering.
    pure("Matrix", C::Construct, 1, 1),
    pure("Matrix.identity", C::Construct, 1, 1),
    pure("Vector", C::Construct, 1, 1),
    pure("all", C::Truth, 1, 1),
    pure("any", C::Truth, 1, 1),
    atomic("atomic_add"),
    atomic("atomic_max"),
    atomic("atomic_min"),
    // barrier(): statement only, takes no arguments, orders one workgroup (A5, A36).
    Builtin{"barrier", C::Workgroup, 0, 0, true, false, true, false},
    block_reduce("block_max"),
    block_reduce("block_min"),
    block_reduce("block_sum"),
    helper("clamp", 3),
    // tack.constant(value[, dtype]) is only meaningful at module level; in a kernel it is a value.
    Builtin{"constant", C::Constant, 1, 2, false, true, false, true},
    helper("distance", 2),
    cast("f32"),
    cast("f64"),
    cast("float"),
    helper("fract", 1),
    cast("i16"),
    cast("i32"),
    cast("i64"),
    cast("i8"),
    cast("int"),
    pure("len", C::Len, 1, 1),
    helper("length", 1),
    pure("local_array", C::Alloc, 2, 2),
    pure("local_array_like", C::Alloc, 2, 2),
    pure("max", C::MinMax, 2, -1),
    pure("min", C::MinMax, 2, -1),
    helper("mix", 3),
    Builtin{"ndrange", C::Range, 1, -1, false, true, false, true},
    helper("normalize", 1),
    // print(): statement only; emits printf per iteration, so never outside the loop (A40).
    Builtin{"print", C::Print, 0, -1, true, false, false, false},
    Builtin{"range", C::Range, 1, 3, false, true, false, true},
    helper("saturate", 1),
    pure("select", C::Select, 3, 3),
    Builtin{"shared", C::Alloc, 2, 2, true, true, true, true},
    Builtin{"shared_like", C::Alloc, 2, 2, true, true, true, true},
    helper("sign", 1),
    helper("smoothstep", 3),
    helper("step", 2),
    // thread_id(): the lane index; a pure read, allowed before the loop (A12).
    Builtin{"thread_id", C::Workgroup, 0, 0, true, true, true, true},
    cast("u16"),
    cast("u32"),
    cast("u64"),
    cast("u8"),
};

// The math functions are the IR's list (ir::MathFn), with its names and arities.
constexpr Builtin kMathRows[] = {
#define TACK_X(e, n, a) math(#n, a),
    TACK_IR_MATH(TACK_X)
#undef TACK_X
};

// Sorted by name so find() is a binary search.
constexpr auto kTable = [] {
    std::array<Builtin, kRows.size() + std::size(kMathRows)> table{};
    std::copy(kRows.begin(), kRows.end(), table.begin());
    std::copy(std::begin(kMathRows), std::end(kMathRows), table.begin() + kRows.size());
    std::sort(table.begin(), table.end(),
              [](const Builtin& a, const Builtin& b) { return a.name < b.name; });
    return table;
}();

constexpr bool names_unique() {
    for (size_t i = 1; i < kTable.size(); ++i) {
        if (!(kTable[i - 1].name < kTable[i].name)) return false;
    }
    return true;
}
static_assert(names_unique(), "an intrinsic's name is listed twice");

}  // namespace

namespace {

// Sorted by name, like kTable.
constexpr std::array kMethods = {
    Method{"cross", Receiver::Vector, 1, 1},
    Method{"determinant", Receiver::Matrix, 0, 0},
    Method{"dot", Receiver::Vector, 1, 1},
    Method{"inverse", Receiver::Matrix, 0, 0},
    Method{"max", Receiver::VectorOrMatrix, 0, 0},
    Method{"min", Receiver::VectorOrMatrix, 0, 0},
    Method{"norm", Receiver::VectorOrMatrix, 0, 1},  // norm(eps) = sqrt(norm_sqr() + eps)
    Method{"norm_sqr", Receiver::VectorOrMatrix, 0, 0},
    Method{"normalized", Receiver::Vector, 0, 1},  // normalized(eps) divides by norm() + eps
    Method{"outer_product", Receiver::Vector, 1, 1},
    Method{"sample", Receiver::Texture, 3, 3},
    Method{"sum", Receiver::VectorOrMatrix, 0, 0},
    Method{"trace", Receiver::Matrix, 0, 0},
    Method{"transpose", Receiver::Matrix, 0, 0},
};

constexpr bool methods_sorted() {
    for (size_t i = 1; i < kMethods.size(); ++i) {
        if (!(kMethods[i - 1].name < kMethods[i].name)) return false;
    }
    return true;
}
static_assert(methods_sorted(), "kMethods must stay sorted by name");

}  // namespace

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

}  // namespace tack::builtins
