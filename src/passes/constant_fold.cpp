// Constant folding with exactly the IR's runtime semantics: every computation goes through
// ir/eval, the same code the host uses for loop ranges. Only nodes whose operands are all
// constants fold (never x*0 or x-x: with a NaN or inf operand they are not 0), except that a
// Select or Logical with a constant deciding operand keeps only what would be evaluated.

#include "ir/eval.hpp"
#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;

class Folder : public IRMutator {
  public:
    ExprPtr visit(const Cast* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* c = e->as<Cast>();
        if (!c) return e;
        if (auto v = constant_value(c->value))
            return make_constant(eval_cast(c->type, *v), c->range);
        return e;
    }

    ExprPtr visit(const Unary* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* u = e->as<Unary>();
        if (!u) return e;
        if (auto v = constant_value(u->a)) return make_constant(eval_unary(u->op, *v), u->range);
        return e;
    }

    ExprPtr visit(const Binary* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* b = e->as<Binary>();
        if (!b) return e;
        auto x = constant_value(b->a), y = constant_value(b->b);
        if (!x || !y) return e;
        auto r = eval_binary(b->op, *x, *y);
        return r ? make_constant(*r, b->range) : e;
    }

    ExprPtr visit(const Compare* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* c = e->as<Compare>();
        if (!c) return e;
        auto x = constant_value(c->a), y = constant_value(c->b);
        if (!x || !y) return e;
        return make_constant(eval_compare(c->op, *x, *y), c->range);
    }

    // `a and b` with a false a is 0 and `a or b` with a true a is 1 whatever b is; otherwise
    // both must be constants (b alone cannot be returned: the result is 0/1, not b).
    ExprPtr visit(const Logical* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* l = e->as<Logical>();
        if (!l) return e;
        auto x = constant_value(l->a);
        if (!x) return e;
        bool decides = (l->op == LogicalOp::And) != x->truthy();
        if (decides) return IntImm::make(DType::i32, x->truthy() ? 1 : 0, l->range);
        auto y = constant_value(l->b);
        if (!y) return e;
        return make_constant(eval_logical(l->op, *x, *y), l->range);
    }

    ExprPtr visit(const Select* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* s = e->as<Select>();
        if (!s) return e;
        if (auto c = constant_value(s->cond)) return c->truthy() ? s->a : s->b;
        return e;
    }

    ExprPtr visit(const Call* n, const ExprPtr& self) override {
        ExprPtr e = IRMutator::visit(n, self);
        auto* c = e->as<Call>();
        if (!c) return e;
        std::vector<Value> args;
        for (const auto& a : c->args) {
            auto v = constant_value(a);
            if (!v) return e;
            args.push_back(*v);
        }
        auto r = eval_call(c->fn, args);
        return r ? make_constant(*r, c->range) : e;
    }
};

}  // namespace

Kernel constant_fold(Kernel k) {
    Folder f;
    return f.mutate_kernel(std::move(k));
}

}  // namespace tack::passes
