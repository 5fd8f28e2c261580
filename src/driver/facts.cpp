#include "driver/facts.hpp"

#include <algorithm>

#include "ir/visitor.hpp"

namespace tack::driver {

namespace {

class FactsVisitor : public ir::IRVisitor {
  public:
    FactsVisitor(const ir::Kernel& k, KernelFacts& out) : kernel_(k), out_(out), file_(k.file) {}

    // The file positions refer to: an inlined @tack.func's own (Kernel::stmt_files).
    void visit_stmt(const ir::StmtPtr& s) override {
        diag::SourceFilePtr saved = file_;
        if (auto it = kernel_.stmt_files.find(s); it != kernel_.stmt_files.end())
            file_ = it->second;
        IRVisitor::visit_stmt(s);
        file_ = saved;
    }

    void visit(const ir::Store* n) override {
        note_write(*n->buffer);
        IRVisitor::visit(n);
    }
    void visit(const ir::Atomic* n) override {
        note_write(*n->buffer);
        if (n->buffer->kind == ir::BufferKind::Param) {
            out_.atomics.push_back(
                {n->buffer->param_index, n->op, n->buffer->elem, file_, n->range});
        }
        IRVisitor::visit(n);
    }
    void visit(const ir::ThreadId* n) override { note_workgroup("thread_id", n->range); }
    void visit(const ir::Barrier* n) override { note_workgroup("barrier", n->range); }
    void visit(const ir::BlockReduce* n) override {
        static constexpr const char* kNames[] = {"block_sum", "block_min", "block_max"};
        note_workgroup(kNames[static_cast<int>(n->op)], n->range);
        IRVisitor::visit(n);
    }
    void visit(const ir::AllocArray* n) override {
        const ir::Buffer& b = *n->buffer;
        if (b.kind == ir::BufferKind::Shared) note_workgroup("shared", n->range);
        if (b.kind == ir::BufferKind::Local) {
            auto bytes = static_cast<std::uint64_t>(b.size) * size_bytes(b.elem);
            out_.local_arrays.push_back({b.name, bytes, file_, n->range});
        }
        IRVisitor::visit(n);
    }
    void visit(const ir::For* n) override {
        out_.fixed_cost &= fixed(n->start) && fixed(n->end) && fixed(n->step);
        IRVisitor::visit(n);
    }
    void visit(const ir::While* n) override {
        out_.fixed_cost = false;
        IRVisitor::visit(n);
    }
    void visit(const ir::Print* n) override {
        out_.fixed_cost = false;
        IRVisitor::visit(n);
    }

  private:
    // Constants and array extents, and arithmetic on them: the same on every call of a variant.
    static bool fixed(const ir::ExprPtr& e) {
        const ir::Expr* x = e.get();
        if (dynamic_cast<const ir::IntImm*>(x) || dynamic_cast<const ir::ArrayDim*>(x)) return true;
        if (const auto* c = dynamic_cast<const ir::Cast*>(x)) return fixed(c->value);
        if (const auto* u = dynamic_cast<const ir::Unary*>(x)) return fixed(u->a);
        if (const auto* b = dynamic_cast<const ir::Binary*>(x)) return fixed(b->a) && fixed(b->b);
        return false;
    }

    void note_write(const ir::Buffer& b) {
        if (b.kind == ir::BufferKind::Param) out_.written_params.push_back(b.param_index);
    }
    void note_workgroup(const char* what, diag::SourceRange r) {
        int line = kernel_.file && r.valid() ? kernel_.file->line_of(r.begin) : 0;
        out_.workgroup_uses.push_back({what, line});
    }

    const ir::Kernel& kernel_;
    KernelFacts& out_;
    diag::SourceFilePtr file_;
};

}  // namespace

KernelFacts collect_facts(const ir::Kernel& kernel) {
    KernelFacts facts;
    FactsVisitor v(kernel, facts);
    v.visit_kernel(kernel);
    auto& w = facts.written_params;
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return facts;
}

const char* atomic_op_name(ir::AtomicOp op) {
    static constexpr const char* kNames[] = {"atomic_add", "atomic_min", "atomic_max"};
    return kNames[static_cast<int>(op)];
}

}  // namespace tack::driver
