#include "ir/visitor.hpp"

#include <utility>

namespace tack::ir {

// ---------------------------------------------------------------------------------------------
// IRVisitor
// ---------------------------------------------------------------------------------------------

void IRVisitor::visit_expr(const ExprPtr& e) {
    dispatch(*e, [this](const auto* n) { visit(n); });
}

void IRVisitor::visit_stmt(const StmtPtr& s) {
    dispatch(*s, [this](const auto* n) { visit(n); });
}

void IRVisitor::visit_block(const Block& b) {
    for (const auto& s : b)
        visit_stmt(s);
}

void IRVisitor::visit_kernel(const Kernel& k) {
    visit_block(k.prologue);
    for (const auto& d : k.dims) {
        visit_expr(d.start);
        visit_expr(d.end);
        visit_expr(d.step);
    }
    visit_block(k.body);
    if (k.result) visit_expr(k.result);
}

void IRVisitor::visit(const IntImm*) {}
void IRVisitor::visit(const FloatImm*) {}
void IRVisitor::visit(const VarRef*) {}
void IRVisitor::visit(const ArrayDim*) {}
void IRVisitor::visit(const ThreadId*) {}
void IRVisitor::visit(const Cast* n) {
    visit_expr(n->value);
}
void IRVisitor::visit(const Unary* n) {
    visit_expr(n->a);
}
void IRVisitor::visit(const Binary* n) {
    visit_expr(n->a);
    visit_expr(n->b);
}
void IRVisitor::visit(const Compare* n) {
    visit_expr(n->a);
    visit_expr(n->b);
}
void IRVisitor::visit(const Logical* n) {
    visit_expr(n->a);
    visit_expr(n->b);
}
void IRVisitor::visit(const Select* n) {
    visit_expr(n->cond);
    visit_expr(n->a);
    visit_expr(n->b);
}
void IRVisitor::visit(const Load* n) {
    visit_expr(n->index);
}
void IRVisitor::visit(const TableLoad* n) {
    visit_expr(n->index);
}
void IRVisitor::visit(const Call* n) {
    for (const auto& a : n->args)
        visit_expr(a);
}
void IRVisitor::visit(const TexSample* n) {
    for (const auto& c : n->coord)
        visit_expr(c);
    for (const auto& e : n->extent)
        visit_expr(e);
}

void IRVisitor::visit(const Assign* n) {
    visit_expr(n->value);
}
void IRVisitor::visit(const Store* n) {
    visit_expr(n->index);
    visit_expr(n->value);
}
void IRVisitor::visit(const Atomic* n) {
    visit_expr(n->index);
    visit_expr(n->value);
}
void IRVisitor::visit(const If* n) {
    visit_expr(n->cond);
    visit_block(n->then_body);
    visit_block(n->else_body);
}
void IRVisitor::visit(const For* n) {
    visit_expr(n->start);
    visit_expr(n->end);
    visit_expr(n->step);
    visit_block(n->body);
}
void IRVisitor::visit(const While* n) {
    visit_expr(n->cond);
    visit_block(n->body);
}
void IRVisitor::visit(const Break*) {}
void IRVisitor::visit(const Continue*) {}
void IRVisitor::visit(const Print* n) {
    for (const auto& p : n->parts) {
        if (auto* e = std::get_if<ExprPtr>(&p)) visit_expr(*e);
    }
}
void IRVisitor::visit(const AllocArray*) {}
void IRVisitor::visit(const Barrier*) {}
void IRVisitor::visit(const BlockReduce* n) {
    visit_expr(n->value);
}

// ---------------------------------------------------------------------------------------------
// IRMutator
// ---------------------------------------------------------------------------------------------

ExprPtr IRMutator::mutate(const ExprPtr& e) {
    if (!e) return e;
    return dispatch(*e, [&](const auto* n) { return visit(n, e); });
}

StmtPtr IRMutator::mutate(const StmtPtr& s) {
    return dispatch(*s, [&](const auto* n) { return visit(n, s); });
}

Block IRMutator::mutate(const Block& b) {
    Block out;
    out.reserve(b.size());
    for (const auto& s : b) {
        if (StmtPtr m = mutate(s)) out.push_back(std::move(m));
    }
    return out;
}

Kernel IRMutator::mutate_kernel(Kernel k) {
    k.prologue = mutate(k.prologue);
    for (auto& d : k.dims) {
        d.start = mutate(d.start);
        d.end = mutate(d.end);
        d.step = mutate(d.step);
    }
    k.body = mutate(k.body);
    k.result = mutate(k.result);
    return k;
}

namespace {
bool same(const Block& a, const Block& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}
}  // namespace

ExprPtr IRMutator::visit(const IntImm*, const ExprPtr& self) {
    return self;
}
ExprPtr IRMutator::visit(const FloatImm*, const ExprPtr& self) {
    return self;
}
ExprPtr IRMutator::visit(const VarRef*, const ExprPtr& self) {
    return self;
}
ExprPtr IRMutator::visit(const ArrayDim*, const ExprPtr& self) {
    return self;
}
ExprPtr IRMutator::visit(const ThreadId*, const ExprPtr& self) {
    return self;
}

ExprPtr IRMutator::visit(const TexSample* n, const ExprPtr& self) {
    std::array<ExprPtr, 3> coord, extent;
    bool changed = false;
    for (size_t i = 0; i < 3; ++i) {
        coord[i] = mutate(n->coord[i]);
        extent[i] = mutate(n->extent[i]);
        changed = changed || coord[i] != n->coord[i] || extent[i] != n->extent[i];
    }
    return changed ? TexSample::make(n->texture, coord, extent, n->range) : self;
}

ExprPtr IRMutator::visit(const Cast* n, const ExprPtr& self) {
    ExprPtr v = mutate(n->value);
    return v == n->value ? self : Cast::make(n->type, v, n->range);
}

ExprPtr IRMutator::visit(const Unary* n, const ExprPtr& self) {
    ExprPtr a = mutate(n->a);
    return a == n->a ? self : Unary::make(n->op, a, n->range);
}

ExprPtr IRMutator::visit(const Binary* n, const ExprPtr& self) {
    ExprPtr a = mutate(n->a), b = mutate(n->b);
    return a == n->a && b == n->b ? self : Binary::make(n->op, a, b, n->range);
}

ExprPtr IRMutator::visit(const Compare* n, const ExprPtr& self) {
    ExprPtr a = mutate(n->a), b = mutate(n->b);
    return a == n->a && b == n->b ? self : Compare::make(n->op, a, b, n->range);
}

ExprPtr IRMutator::visit(const Logical* n, const ExprPtr& self) {
    ExprPtr a = mutate(n->a), b = mutate(n->b);
    return a == n->a && b == n->b ? self : Logical::make(n->op, a, b, n->range);
}

ExprPtr IRMutator::visit(const Select* n, const ExprPtr& self) {
    ExprPtr c = mutate(n->cond), a = mutate(n->a), b = mutate(n->b);
    if (c == n->cond && a == n->a && b == n->b) return self;
    return Select::make(c, a, b, n->range);
}

ExprPtr IRMutator::visit(const Load* n, const ExprPtr& self) {
    ExprPtr i = mutate(n->index);
    return i == n->index ? self : Load::make(n->buffer, i, n->range);
}

ExprPtr IRMutator::visit(const TableLoad* n, const ExprPtr& self) {
    ExprPtr i = mutate(n->index);
    return i == n->index ? self : TableLoad::make(n->table, i, n->range);
}

ExprPtr IRMutator::visit(const Call* n, const ExprPtr& self) {
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : n->args) {
        args.push_back(mutate(a));
        changed |= args.back() != a;
    }
    return changed ? Call::make(n->fn, std::move(args), n->range) : self;
}

StmtPtr IRMutator::visit(const Assign* n, const StmtPtr& self) {
    ExprPtr v = mutate(n->value);
    return v == n->value ? self : Assign::make(n->var, v, n->range);
}

StmtPtr IRMutator::visit(const Store* n, const StmtPtr& self) {
    ExprPtr i = mutate(n->index), v = mutate(n->value);
    return i == n->index && v == n->value ? self : Store::make(n->buffer, i, v, n->range);
}

StmtPtr IRMutator::visit(const Atomic* n, const StmtPtr& self) {
    ExprPtr i = mutate(n->index), v = mutate(n->value);
    if (i == n->index && v == n->value) return self;
    return Atomic::make(n->op, n->buffer, i, v, n->result, n->range);
}

StmtPtr IRMutator::visit(const If* n, const StmtPtr& self) {
    ExprPtr c = mutate(n->cond);
    Block t = mutate(n->then_body), e = mutate(n->else_body);
    if (c == n->cond && same(t, n->then_body) && same(e, n->else_body)) return self;
    return If::make(c, std::move(t), std::move(e), n->range);
}

StmtPtr IRMutator::visit(const For* n, const StmtPtr& self) {
    ExprPtr s = mutate(n->start), e = mutate(n->end), st = mutate(n->step);
    Block b = mutate(n->body);
    if (s == n->start && e == n->end && st == n->step && same(b, n->body)) return self;
    return For::make(n->var, s, e, st, std::move(b), n->range);
}

StmtPtr IRMutator::visit(const While* n, const StmtPtr& self) {
    ExprPtr c = mutate(n->cond);
    Block b = mutate(n->body);
    if (c == n->cond && same(b, n->body)) return self;
    return While::make(c, std::move(b), n->range);
}

StmtPtr IRMutator::visit(const Break*, const StmtPtr& self) {
    return self;
}
StmtPtr IRMutator::visit(const Continue*, const StmtPtr& self) {
    return self;
}
StmtPtr IRMutator::visit(const AllocArray*, const StmtPtr& self) {
    return self;
}
StmtPtr IRMutator::visit(const Barrier*, const StmtPtr& self) {
    return self;
}

StmtPtr IRMutator::visit(const Print* n, const StmtPtr& self) {
    auto parts = n->parts;
    bool changed = false;
    for (auto& p : parts) {
        if (auto* e = std::get_if<ExprPtr>(&p)) {
            ExprPtr m = mutate(*e);
            changed |= m != *e;
            *e = std::move(m);
        }
    }
    return changed ? Print::make(std::move(parts), n->range) : self;
}

StmtPtr IRMutator::visit(const BlockReduce* n, const StmtPtr& self) {
    ExprPtr v = mutate(n->value);
    return v == n->value ? self : BlockReduce::make(n->op, n->result, v, n->range);
}

}  // namespace tack::ir
