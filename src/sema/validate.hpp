#pragma once
// Internals of source validation (sema::validate, CONTRACT A2-A22) shared by its files, and the
// call-resolution rule lowering needs too: which object a call's callee names.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "builtins/builtins.hpp"
#include "diag/diagnostic.hpp"
#include "frontend/ast.hpp"
#include "sema/environment.hpp"

namespace tack::sema {

/// How deep @tack.func calls may nest (kernel -> f -> g counts 2). Every call is inlined, and
/// the passes that follow a chain recurse along it, so an unbounded chain would end in a stack
/// overflow (hardening round three, defect 4: 3,000 chained calls crashed); 256 leaves room on
/// a thread with a 1 MiB stack. Deeper nesting is a located error at the call past the limit.
inline constexpr int kMaxCallDepth = 256;
/// How many @tack.func calls one kernel may inline in all. Calls within calls multiply (a
/// function calling the next twice, 14 deep, is 2^15 inlined bodies), and lowering, the passes
/// and LLVM all pay for every copy (hardening round three, defect 8: 14 levels compiled for
/// over 30 s, 30 ended in std::bad_alloc). The call that would pass the budget is a located
/// error naming the chain; the largest kernels of tack-vis and tack-rendering stay far below.
inline constexpr int kMaxInlinedCalls = 4096;

/// The names a function binds itself: parameters, and every name it assigns anywhere (plain,
/// augmented and tuple assignment, loop targets). They shadow outer bindings (CONTRACT A22).
struct FunctionNames {
    std::set<std::string, std::less<>> params;
    std::set<std::string, std::less<>> locals;
    bool binds(std::string_view name) const {
        return params.count(name) != 0 || locals.count(name) != 0;
    }
};
FunctionNames collect_names(const frontend::FunctionDef& fn);

/// What a call's callee expression names (CONTRACT A22).
struct Callee {
    enum class Kind {
        Builtin,  // an intrinsic: `builtin` is set
        Func,     // a statically bound @tack.func: `func` is set
        Method,   // a vector/texture method on a local value (`v.norm()`), checked by lowering
        Invalid,  // neither: `why` says what it is bound to, or is empty
    };
    Kind kind = Kind::Invalid;
    const builtins::Builtin* builtin = nullptr;
    FuncRef func;
    std::string why;
};
/// Whether some kernel value has attribute `name`: a field's shape/size, a vector component
/// (.x .y .z .w) or a vector/matrix/texture method.
bool is_value_attribute(std::string_view name);

Callee resolve_callee(const frontend::Expr& func, const FunctionNames& names,
                      const Environment& env);

/// "a.b.c" for a Name/Attribute chain; nullopt for anything else.
std::optional<std::string> dotted_name(const frontend::Expr& e);
/// The Python `ast` class name of a node ("Constant", "UnaryOp", "Assign", ...) for messages.
std::string python_class_name(const frontend::Expr& e);
std::string python_class_name(const frontend::Stmt& s);

/// Every direct child expression of `e`, and every expression directly in statement `s`
/// (not in its nested blocks).
void for_each_child(const frontend::Expr& e, const std::function<void(const frontend::Expr&)>& f);
void for_each_expr(const frontend::Stmt& s, const std::function<void(const frontend::Expr&)>& f);
/// Calls `f` on every statement of `body`, recursing into nested blocks (not nested defs).
void for_each_stmt(const frontend::StmtList& body,
                   const std::function<void(const frontend::Stmt&)>& f);
/// Every Call node in `s`'s own expressions, outermost first.
void for_each_call(const frontend::Stmt& s, const std::function<void(const frontend::Call&)>& f);

/// True when assigning to `target` writes memory (a field, array or element component) rather
/// than binding a local: `x[i] = ...`, `vf[i].z = ...`, or a tuple holding one of those.
bool is_store_target(const frontend::Expr& target);
/// True when `s` is an assignment with a store target.
bool is_store(const frontend::Stmt& s);

/// The number of values a @tack.func returns when it returns a tuple; 0 otherwise.
size_t tuple_return_size(const frontend::FunctionDef& fn);

// ---- the type rules that need no argument types (validate_types.cpp) ----
// `tackc check` without --args runs validation only, so what lowering refuses whatever the
// arguments are must be found here too (hardening round three, defect 17). The messages are
// lowering's own: both layers build them with these functions.

/// Shifts and bitwise operators: both operands must be integers.
bool integer_only(frontend::BinaryOp op);
/// The spelling of a binary operator in messages: "+", "<<", "@".
const char* operator_spelling(frontend::BinaryOp op);
std::string no_common_type_message(DType a, DType b);
std::string integer_operands_message(frontend::BinaryOp op, DType a, DType b);
std::string unpack_message(size_t values, size_t targets);
std::string alloc_size_message(std::string_view builtin);

/// A type known from the source alone: a literal's (weak: it takes its partner's type) or an
/// explicit cast's (strong). Names, loads and calls have none without argument types.
struct StaticType {
    DType type;
    bool weak;
};
std::optional<StaticType> static_type(const frontend::Expr& e, const FunctionNames& names,
                                      const Environment& env);
/// The message lowering raises for `a op b` when both operand types are known, or nullopt.
std::optional<std::string> binary_type_error(frontend::BinaryOp op, StaticType a, StaticType b);
/// The most elements a local or shared array may have (a size past it is refused where it is
/// written).
inline constexpr __int128 kMaxLocalArrayElements = __int128(1) << 40;
/// True when `e` can never be the static integer a local array's size must be (lowering's
/// static_int, 1 ..= kMaxLocalArrayElements): it reads a parameter or local, is a float, or
/// folds from literals to a size outside that range.
bool never_static_size(const frontend::Expr& e, const FunctionNames& names);

/// "Kernel 'k'" / "Device function 'f'".
std::string function_label(const frontend::FunctionDef& fn);

/// Why code outside the parallel loop may not have effects (CONTRACT A12).
extern const char* const kOutsideLoopReason;

/// Cross-function checks for a function being validated (validate_callees.cpp): recursion
/// through `fn` (each call site of `fn` that starts a cycle, with the chain) and, for a kernel,
/// effects that the calls outside its parallel loop (`calls_outside_loop`) would inline.
void check_recursion(const frontend::FunctionDef& fn, const diag::SourceFilePtr& file,
                     const Environment& env, std::vector<diag::Diagnostic>& out);
void check_inlined_effects(const frontend::FunctionDef& kernel,
                           const std::vector<FuncRef>& calls_outside_loop,
                           std::vector<diag::Diagnostic>& out);

}  // namespace tack::sema
