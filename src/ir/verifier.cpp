// Structural checks between passes. make() already checked types node by node; this checks
// what only the whole kernel shows: which variables and buffers exist, and where control
// statements and side effects may appear.

#include "ir/verifier.hpp"

#include <map>
#include <set>
#include <string>

#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::ir {
namespace {

enum class Region { Prologue, Body, Dims, Result };

class Verifier : public IRVisitor {
  public:
    Verifier(const Kernel& k, const char* after) : k_(k), after_(after) { collect_vars(); }

    void run() {
        region_ = Region::Prologue;
        for (const auto& s : k_.prologue)
            checked_stmt(s);  // its arrays stay visible to the body
        region_ = Region::Dims;
        check_dims();
        region_ = Region::Body;
        visit_block(k_.body);
        region_ = Region::Result;
        if (k_.result) visit_expr(k_.result);
    }

  private:
    const Kernel& k_;
    const char* after_;
    Region region_ = Region::Prologue;
    std::set<const Var*> vars_;    // every scalar the kernel may use
    std::set<const Var*> params_;  // scalar parameters (the only vars dims may read)
    std::map<int, const Var*> ids_;
    std::vector<std::set<const Buffer*>> declared_{1};  // AllocArray scopes
    int loop_depth_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw diag::InternalError("internal error: IR verification failed after " +
                                  std::string(after_) + " in kernel '" + k_.name + "': " + what);
    }

    void add_var(const VarPtr& v, const char* what) {
        if (!v) fail(std::string("null ") + what);
        auto [it, fresh] = ids_.emplace(v->id, v.get());
        if (!fresh && it->second != v.get()) {
            fail("two variables share id " + std::to_string(v->id) + " ('" + it->second->name +
                 "' and '" + v->name + "')");
        }
        vars_.insert(v.get());
    }

    void collect_vars() {
        for (size_t i = 0; i < k_.params.size(); ++i)
            check_param(k_.params[i], static_cast<int>(i));
        for (const auto& d : k_.dims) {
            add_var(d.var, "loop dim var");
            if (d.var->type != DType::i64) fail("loop dim '" + d.var->name + "' is not i64");
        }
        for (const auto& v : k_.locals)
            add_var(v, "local");
        // Sequential loop variables are accepted even when sema does not list them as locals.
        struct ForVars : IRVisitor {
            Verifier* self;
            explicit ForVars(Verifier* v) : self(v) {}
            void visit_block(const Block& b) override {
                for (const auto& s : b) {
                    if (s) visit_stmt(s);
                }
            }
            void visit(const For* n) override {
                self->add_var(n->var, "loop var");
                IRVisitor::visit(n);
            }
        } for_vars(this);
        for_vars.visit_block(k_.prologue);
        for_vars.visit_block(k_.body);
    }

    void check_param(const Param& p, int index) {
        if ((p.scalar != nullptr) == (p.buffer != nullptr)) {
            fail("parameter '" + p.name + "' must be exactly one of scalar or array");
        }
        if (p.scalar) {
            add_var(p.scalar, "parameter");
            params_.insert(p.scalar.get());
            return;
        }
        if (p.buffer->kind != BufferKind::Param || p.buffer->param_index != index) {
            fail("array parameter '" + p.name + "' has a wrong kind or param_index");
        }
        // Up to 4 dimensions of elements, plus a vector or matrix element shape (A28).
        if (p.buffer->rank < 1 || p.buffer->rank > 6) fail("array '" + p.name + "' has bad rank");
    }

    void check_dims() {
        for (const auto& d : k_.dims) {
            if (!d.start || !d.end || !d.step) fail("loop dim '" + d.var->name + "' lacks a bound");
            for (const auto* e : {&d.start, &d.end, &d.step}) {
                if ((*e)->type != DType::i64) fail("loop dim bound is not i64");
                visit_expr(*e);
            }
        }
    }

    void check_buffer(const BufferPtr& b, const char* use) {
        if (b->kind == BufferKind::Param) {
            int i = b->param_index;
            if (i < 0 || i >= static_cast<int>(k_.params.size()) || k_.params[i].buffer != b) {
                fail(std::string(use) + " of array '" + b->name + "' that is not a parameter");
            }
            return;
        }
        for (const auto& scope : declared_) {
            if (scope.count(b.get())) return;
        }
        fail(std::string(use) + " of array '" + b->name + "' before its declaration");
    }

    void no_prologue(const char* what) {
        if (region_ == Region::Prologue) fail(std::string(what) + " in the prologue");
    }

    void checked_stmt(const StmtPtr& s) {
        if (!s) fail("null statement");
        visit_stmt(s);
    }

    void visit_block(const Block& b) override {
        declared_.emplace_back();
        for (const auto& s : b)
            checked_stmt(s);
        declared_.pop_back();
    }

    void visit(const VarRef* n) override {
        if (!vars_.count(n->var.get())) fail("use of undeclared variable '" + n->var->name + "'");
        if (region_ == Region::Dims && !params_.count(n->var.get())) {
            fail("loop dim bound reads '" + n->var->name + "', which is not a scalar parameter");
        }
    }
    void visit(const ArrayDim* n) override { check_buffer(n->buffer, "dim"); }
    void visit(const Load* n) override {
        if (region_ == Region::Dims) fail("load in a loop dim bound");
        check_buffer(n->buffer, "load");
        IRVisitor::visit(n);
    }
    void visit(const TableLoad* n) override {
        if (region_ == Region::Dims) fail("table load in a loop dim bound");
        IRVisitor::visit(n);
    }
    void visit(const ThreadId*) override {
        // CONTRACT A12: thread_id() reads are allowed before the parallel loop too.
        if (region_ != Region::Body && region_ != Region::Prologue)
            fail("thread_id outside the parallel body and prologue");
    }

    void target(const VarPtr& v) {
        if (!vars_.count(v.get())) fail("assignment to undeclared variable '" + v->name + "'");
    }

    void visit(const Assign* n) override {
        target(n->var);
        if (const auto* t = n->value->as<TexSample>()) {
            check_buffer(t->texture, "texture sample");
            IRVisitor::visit(t);  // its operands; TexSample elsewhere fails below
            return;
        }
        IRVisitor::visit(n);
    }
    void visit(const TexSample*) override {
        fail("texture sample that is not the whole value of an assignment");
    }
    void visit(const Store* n) override {
        no_prologue("store");
        check_buffer(n->buffer, "store");
        IRVisitor::visit(n);
    }
    void visit(const Atomic* n) override {
        no_prologue("atomic");
        check_buffer(n->buffer, "atomic");
        if (n->result) target(n->result);
        IRVisitor::visit(n);
    }
    void visit(const For* n) override {
        target(n->var);
        visit_expr(n->start);
        visit_expr(n->end);
        visit_expr(n->step);
        ++loop_depth_;
        visit_block(n->body);
        --loop_depth_;
    }
    void visit(const While* n) override {
        visit_expr(n->cond);
        ++loop_depth_;
        visit_block(n->body);
        --loop_depth_;
    }
    void visit(const Break*) override {
        if (loop_depth_ == 0) fail("break outside a loop");
    }
    void visit(const Continue*) override {
        if (loop_depth_ == 0 && region_ != Region::Body) fail("continue outside a loop");
    }
    void visit(const Print* n) override {
        no_prologue("print");
        IRVisitor::visit(n);
    }
    void visit(const AllocArray* n) override {
        if (!declared_.back().insert(n->buffer.get()).second) {
            fail("array '" + n->buffer->name + "' declared twice");
        }
    }
    void visit(const Barrier*) override { no_prologue("barrier"); }
    void visit(const BlockReduce* n) override {
        no_prologue("block reduction");
        target(n->result);
        IRVisitor::visit(n);
    }
};

}  // namespace

void verify(const Kernel& k, const char* after) {
    Verifier(k, after).run();
}

}  // namespace tack::ir
