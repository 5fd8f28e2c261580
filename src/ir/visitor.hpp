#pragma once
// Traversal of the IR. Both classes are generated from the node lists in ir.hpp
// (TACK_IR_EXPRS / TACK_IR_STMTS), so adding a node means adding it to the list and writing its
// default child walk in visitor.cpp.
//
// IRVisitor: override visit(const X*) for the nodes you care about and call the base version to
// keep recursing into children. Entry points: visit_expr, visit_stmt, visit_block, visit_kernel.
//
// IRMutator: override visit(const X*, const ExprPtr& self) (or the StmtPtr form) and return the
// replacement; the defaults rebuild a node only when a child changed and otherwise return `self`
// unchanged, so an untouched tree keeps its identity. A statement visitor may return nullptr to
// delete the statement from its block. A subclass that overrides one `mutate` overload should
// add `using IRMutator::mutate;` so the other overloads stay visible.

#include "diag/diagnostic.hpp"
#include "ir/ir.hpp"

namespace tack::ir {

class IRVisitor {
  public:
    virtual ~IRVisitor() = default;

    virtual void visit_expr(const ExprPtr& e);
    virtual void visit_stmt(const StmtPtr& s);
    virtual void visit_block(const Block& b);
    /// Prologue, every dim's start/end/step, body, result, in that order.
    virtual void visit_kernel(const Kernel& k);

#define TACK_X(n) virtual void visit(const n* node);
    TACK_IR_EXPRS(TACK_X)
    TACK_IR_STMTS(TACK_X)
#undef TACK_X
};

class IRMutator {
  public:
    virtual ~IRMutator() = default;

    virtual ExprPtr mutate(const ExprPtr& e);
    /// May return nullptr (statement deleted).
    virtual StmtPtr mutate(const StmtPtr& s);
    /// Mutates each statement, dropping the ones that became nullptr.
    virtual Block mutate(const Block& b);
    /// Prologue, every dim's start/end/step, body, result, in that order.
    virtual Kernel mutate_kernel(Kernel k);

#define TACK_X(n) virtual ExprPtr visit(const n* node, const ExprPtr& self);
    TACK_IR_EXPRS(TACK_X)
#undef TACK_X
#define TACK_X(n) virtual StmtPtr visit(const n* node, const StmtPtr& self);
    TACK_IR_STMTS(TACK_X)
#undef TACK_X
};

/// Calls `f(const X*)` for the concrete node type of `e` (or `s`).
template <class F>
decltype(auto) dispatch(const Expr& e, F&& f) {
    switch (e.kind) {
#define TACK_X(n)     \
    case ExprKind::n: \
        return f(static_cast<const n*>(&e));
        TACK_IR_EXPRS(TACK_X)
#undef TACK_X
    }
    throw diag::InternalError("internal error: corrupt expression kind");
}

template <class F>
decltype(auto) dispatch(const Stmt& s, F&& f) {
    switch (s.kind) {
#define TACK_X(n)     \
    case StmtKind::n: \
        return f(static_cast<const n*>(&s));
        TACK_IR_STMTS(TACK_X)
#undef TACK_X
    }
    throw diag::InternalError("internal error: corrupt statement kind");
}

}  // namespace tack::ir
