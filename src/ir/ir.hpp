#pragma once
// Tack's typed, structured IR.
//
// Shape: a Kernel has parameters, a prologue (statements before the parallel loop), the parallel
// loop's dimensions and its body. Statements are structured (If/For/While, no gotos); expressions
// are trees. Every node is immutable once built, carries its SourceRange and is built through a
// `make()` that checks its operand types and throws diag::InternalError on a violation (sema is
// responsible for user-facing type errors; a make() failure is a compiler bug).
//
// ---------------------------------------------------------------------------------------------
// SEMANTICS (every code generator implements exactly these; they are UB-free by construction)
// ---------------------------------------------------------------------------------------------
// * Expressions have no side effects. They may read memory (Load) and may be evaluated in any
//   order EXCEPT that Logical evaluates `b` only when needed and Select evaluates only the chosen
//   arm: a load in an unselected arm must not execute (it may be out of bounds). Everything with
//   a side effect (stores, atomics, print, barriers, collectives) is a statement; sema spills
//   earlier operands into temporaries when a later operand needs statements, which is how
//   left-to-right evaluation (CONTRACT B25) is kept.
// * Integer arithmetic wraps at the width of each node (two's complement): no nsw/nuw in LLVM,
//   unsigned carriers of at least 32 bits in C.
// * Binary Div is floating point only (sema lowers int / int to f32 casts, CONTRACT B15).
// * Integer FloorDiv rounds toward negative infinity and Mod takes the divisor's sign (B11).
//   Divisor 0 gives 0 for both; signed MIN // -1 gives MIN and MIN % -1 gives 0 (DECISIONS).
// * Float FloorDiv and Mod follow CPython's float_divmod (fmod, sign fix-up, snap to integral),
//   including the exceptional cases of CONTRACT B18.
// * Integer Pow: exact power modulo 2^N in the base's type by square-and-multiply over the bits
//   of the exponent (at most 64 steps); the exponent keeps its own integer type; a negative
//   exponent's bit pattern is used as is (caller constraint, B16). Float Pow calls pow().
// * Shl/Shr: result has the left operand's type; the count (any integer type) is taken modulo
//   the bit width of the left type (DECISIONS); Shr is arithmetic for signed, logical for
//   unsigned.
// * Min/Max on floats: if exactly one operand is NaN the other is returned; both NaN gives NaN;
//   the sign of a zero tie is unspecified (B22). On integers: ordinary min/max.
// * Compare yields i32 0/1; float compares are ordered except Ne, which is unordered
//   (NaN != NaN is 1).
// * Truthiness (If/While/Select conditions and Logical/Not operands): a value is true when it
//   is != 0 (NaN is true).
// * Cast: int->int reduces modulo 2^N at the destination, widening by the source's signedness
//   (B10); float->int truncates toward zero and SATURATES to the destination range, NaN -> 0
//   (DECISIONS); int->float rounds to nearest; f64->f32 rounds to nearest.
// * Float arithmetic: IEEE, round to nearest even, no fast-math flags. A multiply feeding an add
//   *within one expression tree* may be contracted (B23); a value that went through a variable
//   must not be (the C generators emit __fmul_rn or equivalent where the vendor compiler would
//   contract across statements).
// * Load/Store index: a flat i64 element index (sema flattens multi-dimensional subscripts with
//   row-major strides). No bounds checks (caller constraint) except in debug variants, which
//   passes/debug_checks.cpp makes. That pass recovers the per-axis subscripts from the form
//   sema's flat_index builds, ((i0 * ArrayDim(b,1) + i1) * ArrayDim(b,2) + i2) ..., every node of
//   it carrying the subscript's range, and a vector or matrix field's base `t = flat * count`
//   (the Mul and its IntImm on one range); any other index is checked as a flat element index.
// * Atomic: relaxed, device scope; the value has the buffer's element type; integer add wraps;
//   `result` (optional) receives the old value (DECISIONS G6).
// * For: start/end/step are evaluated once on entry; the loop runs var = start, start+step, ...
//   while var < end; a step <= 0 runs nothing (DECISIONS). The trip count is computed in a way
//   that cannot overflow (count = end > start ? (end - start + step - 1) / step : 0 in u64).
// * TexSample: trilinear interpolation of a texture parameter (CONTRACT A39), pure (no kernel
//   writes a texture). Coordinates are clamped to [0, 1] first (NaN reads as 0); 0 and 1 are the
//   centres of the first and last texels. Sema places it only as the whole value of an Assign
//   (the verifier checks this), so that a target without texture hardware can replace that
//   assignment by the software form's statements (passes::lower_textures). A hardware sampler
//   filters with 8-bit fixed-point weights: its values differ from the software form's by up to
//   about 1/256 of the difference between neighbouring texels.
// ---------------------------------------------------------------------------------------------

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "diag/source.hpp"
#include "tack/dtype.hpp"

namespace tack::ir {

using ScalarType = tack::DType;
using diag::SourceRange;

/// A scalar variable: a scalar parameter, a loop variable or a local. Identity is the object
/// (names may repeat after inlining; `id` is unique within a kernel and used by the printer).
struct Var {
    std::string name;
    ScalarType type;
    int id;
    SourceRange decl;
};
using VarPtr = std::shared_ptr<const Var>;

enum class BufferKind { Param, Local, Shared };

/// An array: a field parameter, a per-iteration local array or workgroup shared memory.
struct Buffer {
    std::string name;
    ScalarType elem;
    int rank;  // 1..4 for parameters; 1 for local/shared
    BufferKind kind;
    int param_index = -1;  // index into Kernel::params for BufferKind::Param
    int64_t size = 0;      // element count for Local/Shared
    int id = 0;
    SourceRange decl;
    int elem_rank = 0;  // Param: trailing storage extents that are a vector (1) or matrix (2)
};
using BufferPtr = std::shared_ptr<const Buffer>;

/// A constant table: the components of a typed or integer vector constant that a kernel reads
/// at a run-time index (CONTRACT A27). `values` are IntImm/FloatImm of type `elem`; `id` is
/// unique within a kernel (code generators declare each table once, by id).
struct Table {
    ScalarType elem;
    std::vector<std::shared_ptr<const struct Expr>> values;
    int id = 0;
};
using TablePtr = std::shared_ptr<const Table>;

// ----------------------------------------------------------------------------------------------
// Expressions
// ----------------------------------------------------------------------------------------------

#define TACK_IR_EXPRS(X) \
    X(IntImm)            \
    X(FloatImm)          \
    X(VarRef)            \
    X(ArrayDim)          \
    X(Cast)              \
    X(Unary)             \
    X(Binary)            \
    X(Compare)           \
    X(Logical)           \
    X(Select)            \
    X(Load)              \
    X(TableLoad)         \
    X(Call)              \
    X(ThreadId)          \
    X(TexSample)

enum class ExprKind {
#define TACK_X(n) n,
    TACK_IR_EXPRS(TACK_X)
#undef TACK_X
};

enum class UnaryOp { Neg, BitNot, Not };
enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Min,
    Max
};
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
enum class LogicalOp { And, Or };

/// Pure math builtins that survive into the IR (the GLSL-style helpers are expanded by sema).
/// Argument and result types are all the node's float type, except Abs which also takes ints.
/// Round rounds halves to even (Python's round(); C rint, LLVM roundeven), result stays float.
// clang-format off
#define TACK_IR_MATH(X) \
    X(Sqrt, sqrt, 1) \
    X(Sin, sin, 1) \
    X(Cos, cos, 1) \
    X(Tan, tan, 1) \
    X(Asin, asin, 1) \
    X(Acos, acos, 1) \
    X(Atan, atan, 1) \
    X(Atan2, atan2, 2) \
    X(Sinh, sinh, 1) \
    X(Cosh, cosh, 1) \
    X(Tanh, tanh, 1) \
    X(Exp, exp, 1) \
    X(Exp2, exp2, 1) \
    X(Log, log, 1) \
    X(Log2, log2, 1) \
    X(Log10, log10, 1) \
    X(Floor, floor, 1) \
    X(Ceil, ceil, 1) \
    X(Trunc, trunc, 1) \
    X(Round, round, 1) \
    X(Abs, abs, 1) \
    X(Pow, pow, 2) \
    X(Fmod, fmod, 2) \
    X(Copysign, copysign, 2)
// clang-format on

enum class MathFn {
#define TACK_X(e, n, a) e,
    TACK_IR_MATH(TACK_X)
#undef TACK_X
};
const char* to_string(MathFn fn);
int arity(MathFn fn);

struct Expr {
    ExprKind kind;
    ScalarType type;
    SourceRange range;
    Expr(ExprKind k, ScalarType t, SourceRange r) : kind(k), type(t), range(r) {}
    virtual ~Expr() = default;
    template <class T>
    const T* as() const {
        return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
    }
};
using ExprPtr = std::shared_ptr<const Expr>;

#define TACK_IR_EXPR_BASE(Name_)                       \
    static constexpr ExprKind kKind = ExprKind::Name_; \
    Name_(ScalarType t, SourceRange r) : Expr(kKind, t, r) {}

/// Integer constant. `bits` holds the value reduced modulo 2^N and zero-extended.
struct IntImm : Expr {
    TACK_IR_EXPR_BASE(IntImm)
    uint64_t bits = 0;
    int64_t as_signed() const;  // sign-extended from the type's width
    static ExprPtr make(ScalarType t, uint64_t value_mod_2_64, SourceRange r = {});
    static ExprPtr make_i64(int64_t v, SourceRange r = {});
};
/// Float constant. For f32 the value is exactly representable in float (rounded once in make).
struct FloatImm : Expr {
    TACK_IR_EXPR_BASE(FloatImm)
    double value = 0;
    static ExprPtr make(ScalarType t, double v, SourceRange r = {});
};
struct VarRef : Expr {
    TACK_IR_EXPR_BASE(VarRef)
    VarPtr var;
    static ExprPtr make(VarPtr v, SourceRange r = {});
};
/// Extent `dim` of array parameter `buffer` (i64). Specialization replaces it with a constant
/// everywhere except in the parallel loop's outermost end (which the host evaluates per call).
struct ArrayDim : Expr {
    TACK_IR_EXPR_BASE(ArrayDim)
    BufferPtr buffer;
    int dim = 0;
    static ExprPtr make(BufferPtr b, int dim, SourceRange r = {});
};
struct Cast : Expr {
    TACK_IR_EXPR_BASE(Cast)
    ExprPtr value;
    static ExprPtr make(ScalarType to, ExprPtr value, SourceRange r = {});
};
/// Neg and BitNot keep the operand type (BitNot integers only); Not yields i32.
struct Unary : Expr {
    TACK_IR_EXPR_BASE(Unary)
    UnaryOp op;
    ExprPtr a;
    static ExprPtr make(UnaryOp op, ExprPtr a, SourceRange r = {});
};
/// Operands have the result type, except Shl/Shr/Pow(int) whose right operand may be any
/// integer type.
struct Binary : Expr {
    TACK_IR_EXPR_BASE(Binary)
    BinaryOp op;
    ExprPtr a, b;
    static ExprPtr make(BinaryOp op, ExprPtr a, ExprPtr b, SourceRange r = {});
};
/// Operands have the same type; result i32.
struct Compare : Expr {
    TACK_IR_EXPR_BASE(Compare)
    CompareOp op;
    ExprPtr a, b;
    static ExprPtr make(CompareOp op, ExprPtr a, ExprPtr b, SourceRange r = {});
};
/// Short-circuit and/or on truthiness; result i32 0/1; `b` evaluated only when needed.
struct Logical : Expr {
    TACK_IR_EXPR_BASE(Logical)
    LogicalOp op;
    ExprPtr a, b;
    static ExprPtr make(LogicalOp op, ExprPtr a, ExprPtr b, SourceRange r = {});
};
/// cond ? a : b, evaluating only the chosen arm. Arms have the result type.
struct Select : Expr {
    TACK_IR_EXPR_BASE(Select)
    ExprPtr cond, a, b;
    static ExprPtr make(ExprPtr cond, ExprPtr a, ExprPtr b, SourceRange r = {});
};
struct Load : Expr {
    TACK_IR_EXPR_BASE(Load)
    BufferPtr buffer;
    ExprPtr index;  // i64 flat element index
    static ExprPtr make(BufferPtr b, ExprPtr index, SourceRange r = {});
};
/// values[index] for 0 <= index < size, else the LAST value (never out of bounds: A27 reads an
/// out-of-range index as the last entry). index is i64; the result has the table's type.
struct TableLoad : Expr {
    TACK_IR_EXPR_BASE(TableLoad)
    TablePtr table;
    ExprPtr index;
    static ExprPtr make(TablePtr table, ExprPtr index, SourceRange r = {});
};
struct Call : Expr {
    TACK_IR_EXPR_BASE(Call)
    MathFn fn;
    std::vector<ExprPtr> args;
    static ExprPtr make(MathFn fn, std::vector<ExprPtr> args, SourceRange r = {});
};
/// Lane index within the 256-lane workgroup (i64). GPU only.
struct ThreadId : Expr {
    TACK_IR_EXPR_BASE(ThreadId)
    static ExprPtr make(SourceRange r = {});
};
/// texture.sample(u, v, w) (f32; see SEMANTICS). `texture` is a rank-3 f32 parameter, storage
/// shape (D, H, W) with x fastest; `coord` is (u, v, w) in f32, u along W; `extent` is (W, H, D)
/// in i64: ArrayDims of `texture` in the template, constants once specialized (so the variant is
/// keyed on them, and the generators read them as constants).
struct TexSample : Expr {
    TACK_IR_EXPR_BASE(TexSample)
    BufferPtr texture;
    std::array<ExprPtr, 3> coord, extent;
    static ExprPtr make(BufferPtr texture, std::array<ExprPtr, 3> coord,
                        std::array<ExprPtr, 3> extent, SourceRange r = {});
    /// The template's form: extents are ArrayDims 2, 1, 0 of `texture`.
    static ExprPtr make(BufferPtr texture, std::array<ExprPtr, 3> coord, SourceRange r = {});
};

// ----------------------------------------------------------------------------------------------
// Statements
// ----------------------------------------------------------------------------------------------

#define TACK_IR_STMTS(X) \
    X(Assign)            \
    X(Store)             \
    X(Atomic)            \
    X(If)                \
    X(For)               \
    X(While)             \
    X(Break)             \
    X(Continue)          \
    X(Print)             \
    X(AllocArray)        \
    X(Barrier)           \
    X(BlockReduce)

enum class StmtKind {
#define TACK_X(n) n,
    TACK_IR_STMTS(TACK_X)
#undef TACK_X
};

enum class AtomicOp { Add, Min, Max };
enum class ReduceOp { Sum, Min, Max };

struct Stmt {
    StmtKind kind;
    SourceRange range;
    Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
    virtual ~Stmt() = default;
    template <class T>
    const T* as() const {
        return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
    }
};
using StmtPtr = std::shared_ptr<const Stmt>;
using Block = std::vector<StmtPtr>;

#define TACK_IR_STMT_BASE(Name_)                       \
    static constexpr StmtKind kKind = StmtKind::Name_; \
    explicit Name_(SourceRange r) : Stmt(kKind, r) {}

struct Assign : Stmt {
    TACK_IR_STMT_BASE(Assign)
    VarPtr var;
    ExprPtr value;  // value->type == var->type
    static StmtPtr make(VarPtr var, ExprPtr value, SourceRange r = {});
};
struct Store : Stmt {
    TACK_IR_STMT_BASE(Store)
    BufferPtr buffer;
    ExprPtr index;  // i64
    ExprPtr value;  // buffer->elem
    static StmtPtr make(BufferPtr b, ExprPtr index, ExprPtr value, SourceRange r = {});
};
struct Atomic : Stmt {
    TACK_IR_STMT_BASE(Atomic)
    AtomicOp op;
    BufferPtr buffer;  // always a Param buffer
    ExprPtr index;     // i64
    ExprPtr value;     // buffer->elem
    VarPtr result;     // may be null; else receives the old value (type buffer->elem)
    static StmtPtr make(AtomicOp op, BufferPtr b, ExprPtr index, ExprPtr value, VarPtr result,
                        SourceRange r = {});
};
struct If : Stmt {
    TACK_IR_STMT_BASE(If)
    ExprPtr cond;
    Block then_body, else_body;
    static StmtPtr make(ExprPtr cond, Block then_body, Block else_body, SourceRange r = {});
};
struct For : Stmt {
    TACK_IR_STMT_BASE(For)
    VarPtr var;                // i64
    ExprPtr start, end, step;  // i64
    Block body;
    static StmtPtr make(VarPtr var, ExprPtr start, ExprPtr end, ExprPtr step, Block body,
                        SourceRange r = {});
};
struct While : Stmt {
    TACK_IR_STMT_BASE(While)
    ExprPtr cond;
    Block body;
    static StmtPtr make(ExprPtr cond, Block body, SourceRange r = {});
};
struct Break : Stmt {
    TACK_IR_STMT_BASE(Break)
    static StmtPtr make(SourceRange r = {});
};
/// Inside the parallel loop's body (outside any sequential loop), Continue ends the iteration.
struct Continue : Stmt {
    TACK_IR_STMT_BASE(Continue)
    static StmtPtr make(SourceRange r = {});
};
/// print("label", x, ...): parts are printed separated by one space, then a newline.
struct Print : Stmt {
    TACK_IR_STMT_BASE(Print)
    std::vector<std::variant<std::string, ExprPtr>> parts;
    static StmtPtr make(std::vector<std::variant<std::string, ExprPtr>> parts, SourceRange r = {});
};
/// Declares a Local (per iteration, uninitialized) or Shared (per workgroup) array.
struct AllocArray : Stmt {
    TACK_IR_STMT_BASE(AllocArray)
    BufferPtr buffer;
    static StmtPtr make(BufferPtr b, SourceRange r = {});
};
struct Barrier : Stmt {
    TACK_IR_STMT_BASE(Barrier)
    static StmtPtr make(SourceRange r = {});
};
/// block_sum/min/max over the 256-lane group; every lane's `result` (f32) gets the value.
struct BlockReduce : Stmt {
    TACK_IR_STMT_BASE(BlockReduce)
    ReduceOp op;
    VarPtr result;  // f32
    ExprPtr value;  // f32
    static StmtPtr make(ReduceOp op, VarPtr result, ExprPtr value, SourceRange r = {});
};

// ----------------------------------------------------------------------------------------------
// Kernel
// ----------------------------------------------------------------------------------------------

struct Param {
    std::string name;
    VarPtr scalar;     // set for scalar parameters
    BufferPtr buffer;  // set for array parameters
    bool is_array() const { return buffer != nullptr; }
    ScalarType type() const;
};

/// One dimension of the parallel loop: `var` (i64) runs start, start+step, ... < end.
/// start/end/step are host-evaluable (constants, scalar params, ArrayDim, + - * //).
struct LoopDim {
    VarPtr var;
    ExprPtr start, end, step;
};

struct Kernel {
    std::string name;
    diag::SourceFilePtr file;
    SourceRange range;
    std::vector<Param> params;
    std::vector<VarPtr> locals;  // every scalar Var that is neither a parameter nor a loop dim
    Block prologue;              // runs before the parallel loop, any number of times
    std::vector<LoopDim> dims;   // the parallel loop (ndrange: several, row-major)
    Block body;                  // one iteration
    ExprPtr result;              // `return expr` after the loop (DECISIONS G7); may be null
    /// Statements sema lowered from a @tack.func whose text is another SourceFile than `file`
    /// (Python captures each function's source on its own), so a pass that reports positions
    /// inside them (debug_checks) names the right file and line; a statement nested in a mapped
    /// one takes the innermost mapping. Only sema's output carries it: the driver drops it
    /// before the passes that rebuild statements. Not printed, not read by code generators.
    std::map<StmtPtr, diag::SourceFilePtr> stmt_files;
    /// Code generators may ask for the `continue`-of-the-parallel-loop target etc.; nothing else.
};

// Utilities every layer uses.
std::string to_string(BinaryOp op);
std::string to_string(CompareOp op);
std::string to_string(UnaryOp op);
/// The per-axis subscripts of `index` when it is sema's flattening of `rank` subscripts into
/// `b` (the form the SEMANTICS block states: the chain's Add, Mul and ArrayDim share the
/// subscript's range, which a user-written flat index `i * a.shape[1] + j` never does); nullopt
/// for any other index. Debug mode's checks read it in kernels and in `return` expressions.
std::optional<std::vector<ExprPtr>> split_flat_index(const ExprPtr& index, const Buffer& b,
                                                     int rank);

}  // namespace tack::ir
