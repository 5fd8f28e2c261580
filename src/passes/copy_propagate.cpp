// Conservative copy propagation (CONTRACT B26: the only IR optimization upstream allows).
//
// `x = c` (a constant) or `x = y` replaces later reads of x when:
//   * x is a local assigned exactly once in the whole kernel (by that statement);
//   * for `x = y`, y never changes after x copied it: y is a scalar parameter or loop dim that
//     is never assigned, or a local assigned exactly once, outside every sequential loop, by a
//     statement that dominates this one;
//   * the read is dominated by the assignment in the structured sense: it comes later in the
//     same block or inside a statement that follows it there. A read after a loop containing
//     the assignment is not dominated (the loop may run zero times), nor is a read in a loop
//     condition. Prologue statements dominate the body and the result.
// Loads are never propagated (memory may change between the copy and the read).

#include <map>
#include <set>
#include <vector>

#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;

struct AssignCounts : IRVisitor {
    std::map<const Var*, int> count;
    std::set<const Var*> in_loop;  // assigned somewhere inside a sequential loop
    int depth = 0;

    void target(const Var* v) {
        ++count[v];
        if (depth > 0) in_loop.insert(v);
    }
    void visit(const Assign* n) override {
        target(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const Atomic* n) override {
        if (n->result) target(n->result.get());
        IRVisitor::visit(n);
    }
    void visit(const BlockReduce* n) override {
        target(n->result.get());
        IRVisitor::visit(n);
    }
    void visit(const For* n) override {
        ++depth;
        target(n->var.get());
        IRVisitor::visit(n);
        --depth;
    }
    void visit(const While* n) override {
        ++depth;
        IRVisitor::visit(n);
        --depth;
    }
};

class CopyProp : public IRMutator {
  public:
    CopyProp(const Kernel& k) {
        counts_.visit_kernel(k);
        for (const auto& v : k.locals)
            locals_.insert(v.get());
        for (const auto& p : k.params) {
            if (p.scalar) fixed_.insert(p.scalar.get());
        }
        for (const auto& d : k.dims)
            fixed_.insert(d.var.get());
    }

    Kernel run(Kernel k) {
        for (auto& s : k.prologue)
            s = mutate(s);  // prologue scope stays open for body/result
        k.body = mutate(k.body);
        k.result = mutate(k.result);
        return k;
    }

    using IRMutator::mutate;
    Block mutate(const Block& b) override {
        scopes_.emplace_back();
        Block out = IRMutator::mutate(b);
        for (const Var* v : scopes_.back()) {
            subst_.erase(v);
            available_.erase(v);
        }
        scopes_.pop_back();
        return out;
    }

    ExprPtr visit(const VarRef* n, const ExprPtr& self) override {
        auto it = subst_.find(n->var.get());
        return it == subst_.end() ? self : it->second;
    }

    StmtPtr visit(const Assign* n, const StmtPtr& self) override {
        StmtPtr out = IRMutator::visit(n, self);
        const auto* a = out->as<Assign>();
        const Var* x = a->var.get();
        if (assigned(x) != 1) return out;
        if (!counts_.in_loop.count(x)) remember(available_, x);
        if (!locals_.count(x)) return out;
        const ExprKind k = a->value->kind;
        bool copyable = k == ExprKind::IntImm || k == ExprKind::FloatImm ||
                        (k == ExprKind::VarRef && stable(a->value->as<VarRef>()->var.get()));
        if (copyable) {
            subst_[x] = a->value;
            remember_scope(x);
        }
        return out;
    }

  private:
    AssignCounts counts_;
    std::set<const Var*> locals_, fixed_, available_;
    std::map<const Var*, ExprPtr> subst_;
    std::vector<std::vector<const Var*>> scopes_{1};

    int assigned(const Var* v) const {
        auto it = counts_.count.find(v);
        return it == counts_.count.end() ? 0 : it->second;
    }

    bool stable(const Var* y) const {
        if (fixed_.count(y)) return assigned(y) == 0;
        return available_.count(y) > 0;
    }

    void remember(std::set<const Var*>& set, const Var* v) {
        set.insert(v);
        remember_scope(v);
    }
    void remember_scope(const Var* v) { scopes_.back().push_back(v); }
};

}  // namespace

Kernel copy_propagate(Kernel k) {
    CopyProp cp(k);
    return cp.run(std::move(k));
}

}  // namespace tack::passes
