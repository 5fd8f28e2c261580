// Dead code removal. Expressions are pure, so dropping an assignment nobody reads, or an `if`
// whose condition is a known constant, never removes an observable effect.

#include <set>

#include "ir/eval.hpp"
#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;

// Every variable some expression reads.
struct ReadVars : IRVisitor {
    std::set<const Var*> read;
    void visit(const VarRef* n) override { read.insert(n->var.get()); }
};

// Every variable the kernel still mentions (read or written).
struct MentionedVars : ReadVars {
    using ReadVars::visit;
    void visit(const Assign* n) override {
        read.insert(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const For* n) override {
        read.insert(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const Atomic* n) override {
        if (n->result) read.insert(n->result.get());
        IRVisitor::visit(n);
    }
    void visit(const BlockReduce* n) override {
        read.insert(n->result.get());
        IRVisitor::visit(n);
    }
};

bool ends_flow(const StmtPtr& s) {
    return s->kind == StmtKind::Break || s->kind == StmtKind::Continue;
}

class DeadCode : public IRMutator {
  public:
    DeadCode(std::set<const Var*> read, std::set<const Var*> locals)
        : read_(std::move(read)), locals_(std::move(locals)) {}

    using IRMutator::mutate;
    // A constant `if` is replaced by its taken branch, spliced into the enclosing block.
    Block mutate(const Block& b) override {
        Block out;
        for (const auto& s : b) {
            for (auto& m : expand(s)) {
                bool stop = ends_flow(m);
                out.push_back(std::move(m));
                if (stop) return out;  // the rest of the block is unreachable
            }
        }
        return out;
    }

    StmtPtr visit(const Assign* n, const StmtPtr& self) override {
        if (locals_.count(n->var.get()) && !read_.count(n->var.get())) return nullptr;
        return IRMutator::visit(n, self);
    }

    // The old value nobody reads is not requested any more.
    StmtPtr visit(const Atomic* n, const StmtPtr& self) override {
        if (!n->result || read_.count(n->result.get())) return IRMutator::visit(n, self);
        return mutate(Atomic::make(n->op, n->buffer, n->index, n->value, nullptr, n->range));
    }

    StmtPtr visit(const While* n, const StmtPtr& self) override {
        auto c = constant_value(n->cond);
        if (c && !c->truthy()) return nullptr;
        return IRMutator::visit(n, self);
    }

  private:
    std::set<const Var*> read_, locals_;

    Block expand(const StmtPtr& s) {
        if (auto* i = s->as<If>()) {
            if (auto c = constant_value(i->cond))
                return mutate(c->truthy() ? i->then_body : i->else_body);
        }
        StmtPtr m = mutate(s);
        if (!m) return {};
        if (auto* i = m->as<If>(); i && i->then_body.empty() && i->else_body.empty()) return {};
        return {m};
    }
};

// The mutator keeps the identity of untouched statements.
bool same(const Block& a, const Block& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}

// One round; returns whether anything changed.
bool sweep(Kernel& k) {
    ReadVars reads;
    reads.visit_kernel(k);
    std::set<const Var*> locals;
    for (const auto& v : k.locals)
        locals.insert(v.get());
    DeadCode dc(std::move(reads.read), std::move(locals));
    Kernel out = dc.mutate_kernel(k);
    bool changed = !same(out.prologue, k.prologue) || !same(out.body, k.body);
    k = std::move(out);
    return changed;
}

}  // namespace

Kernel dead_code(Kernel k) {
    while (sweep(k)) {
    }
    MentionedVars mentioned;
    mentioned.visit_kernel(k);
    std::erase_if(k.locals, [&](const VarPtr& v) { return !mentioned.read.count(v.get()); });
    return k;
}

}  // namespace tack::passes
