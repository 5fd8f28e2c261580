#pragma once
// The kernel-language AST: the subset of Python that Tack kernels are written in, plus nodes for
// the Python constructs Tack rejects (so that the validator can name them with a position rather
// than the parser failing with a generic syntax error). Every node carries its SourceRange.
//
// The tree is owned by unique_ptrs and is immutable after parsing; sema reads it, never edits it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diag/source.hpp"

namespace tack::frontend {

using diag::SourceRange;

// ----------------------------------------------------------------------------------------------
// Expressions
// ----------------------------------------------------------------------------------------------

#define TACK_AST_EXPRS(X)                                           \
    X(Name)        /* identifier */                                 \
    X(IntLit)      /* 42, 0x2A, 0o52, 0b101010, 1_000 */            \
    X(FloatLit)    /* 1.5, 1e-3, .5, 1_0.0 */                       \
    X(StrLit)      /* "label" (print labels and docstrings only) */ \
    X(BoolLit)     /* True / False */                               \
    X(NoneLit)     /* None (rejected) */                            \
    X(Unary)       /* -x +x ~x not x */                             \
    X(Binary)      /* x + y ... x @ y */                            \
    X(BoolOp)      /* a and b and c / a or b */                     \
    X(Compare)     /* a < b <= c (chain) */                         \
    X(IfExp)       /* a if c else b */                              \
    X(Call)        /* f(a, b) */                                    \
    X(Attribute)   /* x.shape, tack.f32, math.pi */                 \
    X(Subscript)   /* x[i], x[i, j], x.shape[0] */                  \
    X(Tuple)       /* (a, b) / a, b */                              \
    X(List)        /* [a, b] */                                     \
    X(Unsupported) /* lambda, comprehension, await, yield, dict, set, slice, starred, ... */

enum class ExprKind {
#define TACK_X(n) n,
    TACK_AST_EXPRS(TACK_X)
#undef TACK_X
};

enum class UnaryOp { Neg, Pos, Invert, Not };
enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
    MatMul
};
enum class BoolOpKind { And, Or };
enum class CompareOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* to_string(UnaryOp op);
const char* to_string(BinaryOp op);
const char* to_string(CompareOp op);

struct Expr {
    ExprKind kind;
    SourceRange range;
    explicit Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
    virtual ~Expr() = default;
    template <class T>
    const T* as() const {
        return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
    }
};
using ExprPtr = std::unique_ptr<Expr>;

#define TACK_AST_EXPR_BASE(Name_)                      \
    static constexpr ExprKind kKind = ExprKind::Name_; \
    explicit Name_(SourceRange r) : Expr(kKind, r) {}

struct Name : Expr {
    TACK_AST_EXPR_BASE(Name)
    std::string id;
};
/// Python ints are unbounded; the lexer keeps values up to 2^64-1 and flags larger ones.
struct IntLit : Expr {
    TACK_AST_EXPR_BASE(IntLit)
    uint64_t value = 0;
    bool overflow = false;  // literal >= 2^64 (rejected by sema with a TypeError)
};
struct FloatLit : Expr {
    TACK_AST_EXPR_BASE(FloatLit)
    double value = 0;  // the exact Python value (correctly rounded double)
    std::string spelling;
};
struct StrLit : Expr {
    TACK_AST_EXPR_BASE(StrLit)
    std::string value;  // decoded (escapes processed)
};
struct BoolLit : Expr {
    TACK_AST_EXPR_BASE(BoolLit)
    bool value = false;
};
struct NoneLit : Expr {
    TACK_AST_EXPR_BASE(NoneLit)
};
struct Unary : Expr {
    TACK_AST_EXPR_BASE(Unary)
    UnaryOp op = UnaryOp::Neg;
    ExprPtr operand;
};
struct Binary : Expr {
    TACK_AST_EXPR_BASE(Binary)
    BinaryOp op = BinaryOp::Add;
    ExprPtr lhs, rhs;
};
struct BoolOp : Expr {
    TACK_AST_EXPR_BASE(BoolOp)
    BoolOpKind op = BoolOpKind::And;
    std::vector<ExprPtr> values;  // >= 2
};
/// a < b <= c: operands.size() == ops.size() + 1
struct Compare : Expr {
    TACK_AST_EXPR_BASE(Compare)
    std::vector<CompareOp> ops;
    std::vector<ExprPtr> operands;
};
struct IfExp : Expr {
    TACK_AST_EXPR_BASE(IfExp)
    ExprPtr cond, then_value, else_value;
};
struct Keyword {
    std::string name;  // empty for **kwargs
    ExprPtr value;
    SourceRange range;
};
struct Call : Expr {
    TACK_AST_EXPR_BASE(Call)
    ExprPtr func;
    std::vector<ExprPtr> args;  // positional; a starred argument appears as Unsupported("Starred")
    std::vector<Keyword> keywords;  // always rejected in kernels; kept for the diagnostic
};
struct Attribute : Expr {
    TACK_AST_EXPR_BASE(Attribute)
    ExprPtr value;
    std::string attr;
    SourceRange attr_range;
};
/// x[i] has one index; x[i, j] has two (the parser splits a top-level tuple).
struct Subscript : Expr {
    TACK_AST_EXPR_BASE(Subscript)
    ExprPtr value;
    std::vector<ExprPtr> indices;
};
struct Tuple : Expr {
    TACK_AST_EXPR_BASE(Tuple)
    std::vector<ExprPtr> elts;
};
struct List : Expr {
    TACK_AST_EXPR_BASE(List)
    std::vector<ExprPtr> elts;
};
/// A Python expression the kernel language rejects. `what` is the Python AST class name
/// ("Lambda", "ListComp", "Starred", "Slice", "Dict", "Set", "Await", "Yield", "JoinedStr", ...)
/// so the diagnostic reads like upstream's ("unsupported Lambda at line 3, column 12").
struct Unsupported : Expr {
    TACK_AST_EXPR_BASE(Unsupported)
    std::string what;
};

// ----------------------------------------------------------------------------------------------
// Statements
// ----------------------------------------------------------------------------------------------

#define TACK_AST_STMTS(X)                                                        \
    X(ExprStmt)  /* call as a statement; docstring */                            \
    X(Assign)    /* a = b = expr (targets: Name, Subscript, Attribute, Tuple) */ \
    X(AugAssign) /* a += expr */                                                 \
    X(AnnAssign) /* a: int = 1 (rejected) */                                     \
    X(If)                                                                        \
    X(For)                                                                       \
    X(While)                                                                     \
    X(Break)                                                                     \
    X(Continue)                                                                  \
    X(Pass)                                                                      \
    X(Return)                                                                    \
    X(FunctionDef)     /* nested def (rejected inside kernels) */                \
    X(UnsupportedStmt) /* import, try, with, assert, raise, del, global, class, ... */

enum class StmtKind {
#define TACK_X(n) n,
    TACK_AST_STMTS(TACK_X)
#undef TACK_X
};

struct Stmt {
    StmtKind kind;
    SourceRange range;
    explicit Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
    virtual ~Stmt() = default;
    template <class T>
    const T* as() const {
        return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
    }
};
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

#define TACK_AST_STMT_BASE(Name_)                      \
    static constexpr StmtKind kKind = StmtKind::Name_; \
    explicit Name_(SourceRange r) : Stmt(kKind, r) {}

struct ExprStmt : Stmt {
    TACK_AST_STMT_BASE(ExprStmt)
    ExprPtr value;
};
struct Assign : Stmt {
    TACK_AST_STMT_BASE(Assign)
    std::vector<ExprPtr> targets;  // a = b = 1 has two targets
    ExprPtr value;
};
struct AugAssign : Stmt {
    TACK_AST_STMT_BASE(AugAssign)
    ExprPtr target;
    BinaryOp op = BinaryOp::Add;
    ExprPtr value;
};
struct AnnAssign : Stmt {
    TACK_AST_STMT_BASE(AnnAssign)
    ExprPtr target, annotation, value;  // value may be null
};
struct If : Stmt {
    TACK_AST_STMT_BASE(If)
    ExprPtr cond;
    StmtList body;
    StmtList orelse;  // `elif` is an If nested alone in orelse
};
struct For : Stmt {
    TACK_AST_STMT_BASE(For)
    ExprPtr target;  // Name or Tuple of Names
    ExprPtr iter;
    StmtList body;
    StmtList orelse;  // for/else is rejected; kept for the diagnostic
};
struct While : Stmt {
    TACK_AST_STMT_BASE(While)
    ExprPtr cond;
    StmtList body;
    StmtList orelse;
};
struct Break : Stmt {
    TACK_AST_STMT_BASE(Break)
};
struct Continue : Stmt {
    TACK_AST_STMT_BASE(Continue)
};
struct Pass : Stmt {
    TACK_AST_STMT_BASE(Pass)
};
struct Return : Stmt {
    TACK_AST_STMT_BASE(Return)
    ExprPtr value;  // may be null; a tuple return is a Tuple
};

struct Param {
    std::string name;
    ExprPtr annotation;  // may be null; host metadata only
    SourceRange range;
    /// Non-plain parameter forms are parsed so they can be rejected with a position:
    /// "*args", "**kw", keyword-only, positional-only marker or a default value.
    std::string rejected_form;  // empty when the parameter is plain
};

/// What decorated a definition, as far as Tack is concerned.
enum class DefKind { Kernel, Func, Other };

struct FunctionDef : Stmt {
    TACK_AST_STMT_BASE(FunctionDef)
    std::string name;
    SourceRange name_range;
    DefKind def_kind = DefKind::Other;
    std::vector<ExprPtr> decorators;
    std::vector<Param> params;
    ExprPtr returns;  // return annotation, may be null
    StmtList body;
    bool is_async = false;
    /// The file the definition was parsed from (set by the parser); lets dump() print line:col.
    diag::SourceFilePtr file;
    /// Where it was defined: -1 at module level, else an index into Module::scopes.
    int scope = -1;
};

/// A statement the kernel language rejects. `what` is the Python AST class name ("Import",
/// "ImportFrom", "Try", "With", "Assert", "Raise", "Delete", "Global", "Nonlocal", "ClassDef",
/// "Match", "AsyncFor", ...).
struct UnsupportedStmt : Stmt {
    TACK_AST_STMT_BASE(UnsupportedStmt)
    std::string what;
};

// ----------------------------------------------------------------------------------------------
// Module
// ----------------------------------------------------------------------------------------------

/// `import a.b as c` / `from a import b as c`: the names a module binds, used to resolve
/// `tack.`, `math.` and module-qualified `@tack.func` spellings.
struct ImportBinding {
    std::string local_name;  // "tk", "sqrt", "np"
    std::string module;      // "tack", "math", "numpy", "mymod"
    std::string member;      // for `from m import x`: "x"; empty for `import m`
    SourceRange range;
};

/// `NAME = tack.constant(value[, dtype])` at module level.
struct ConstantDef {
    std::string name;
    ExprPtr value;  // literal expression (numeric, unary minus, tuple/list of those)
    ExprPtr dtype;  // may be null
    SourceRange range;
};

/// The body of a host function that defines kernels or funcs of its own (closures, test
/// helpers). Its imports and tack.constant assignments bind names for those definitions only,
/// in front of its enclosing function's and the module's, as Python's closures do. A class body
/// is not a scope (Python's methods do not see class-level names).
struct Scope {
    int parent = -1;  // -1: the module
    std::vector<ImportBinding> imports;
    std::vector<ConstantDef> constants;
    std::vector<ConstantDef> globals;  // as Module::globals
};

/// A parsed source file: what the kernel language understands of a Python module. Everything
/// else is host code and is skipped by the parser (bodies of host functions are scanned for
/// definitions of their own).
struct Module {
    diag::SourceFilePtr file;
    std::vector<ImportBinding> imports;
    std::vector<ConstantDef> constants;
    // `NAME = value` in host code (not a tack.constant): kernels cannot read NAME, and the error
    // says what it is. `value` is set when it is a number literal (the message shows it).
    std::vector<ConstantDef> globals;
    std::vector<std::unique_ptr<FunctionDef>> functions;  // module-level @tack.kernel / @tack.func
    std::vector<Scope> scopes;
    /// @tack.kernel / @tack.func defined inside host functions (their `scope` says where); kept
    /// apart from `functions`, which module-level name resolution and lookup by name read.
    std::vector<std::unique_ptr<FunctionDef>> nested;

    const FunctionDef* find(std::string_view name) const;
};

}  // namespace tack::frontend
