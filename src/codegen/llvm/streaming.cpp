// Non-temporal ("streaming") stores for write-only outputs (issue 13).
//
// A kernel qualifies when it has one parallel dimension with step 1 and an array parameter P
// that it stores to only at the loop variable itself and never reads (no load, no atomic, not
// in the prologue or the result). Such a variant gets a second entry, tack_ntentry_<enc>, that
// splits [start, end) at the first and last elements of P on a 64-byte boundary and runs the
// middle through tack_ntkernel_<enc>, a noinline copy of the kernel; the head and tail run the
// ordinary body, and an sfence orders the streaming stores before the entry returns (the pool's
// join then publishes them like any other store).
//
// The copy is compiled like the kernel (so the loop vectorizer takes it: it refuses loops whose
// stores are already non-temporal and under-aligned), and after O3 finish_streaming_stores()
// marks its stores to P !nontemporal. Alignment is what makes this work and what must stay true
// (CONTRACT E14: only proven claims): an under-aligned non-temporal vector store is split into
// 8-byte MOVNTIs by the x86 back end, but in the copy P's first element is 64-byte aligned and
// the vectorizer never peels, so every vector store it made to P lies a whole number of its own
// widths past that element (main loop: iv + k*VF with iv a multiple of VF*UF; epilogue: a VF
// that divides the main one). Those stores (power-of-two widths up to 64 bytes) get their width
// as alignment and become MOVNTPS; scalar ones stay `align 1` (MOVNTI needs none).

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include "codegen/llvm/internal.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::llvm_cpu {
namespace {

struct ParamUse {
    bool stored = false;
    bool disqualified = false;  // loaded, atomic, stored elsewhere than at the loop variable
};

class UseScan : public ir::IRVisitor {
  public:
    UseScan(const ir::Kernel& k, const ir::Var* loop_var)
        : uses_(k.params.size()), loop_var_(loop_var) {}
    std::vector<ParamUse>& uses() { return uses_; }
    bool loop_var_assigned() const { return loop_var_assigned_; }
    bool in_body = false;

    void visit(const ir::Load* n) override {
        mark(*n->buffer).disqualified = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::Atomic* n) override {
        mark(*n->buffer).disqualified = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::Store* n) override {
        ParamUse& u = mark(*n->buffer);
        const auto* ref = dynamic_cast<const ir::VarRef*>(n->index.get());
        if (!in_body || !ref || ref->var.get() != loop_var_) u.disqualified = true;
        u.stored = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::Assign* n) override {
        if (n->var.get() == loop_var_) loop_var_assigned_ = true;
        IRVisitor::visit(n);
    }

  private:
    ParamUse& mark(const ir::Buffer& b) {
        if (b.kind != ir::BufferKind::Param) return ignored_ = {};
        return uses_[static_cast<size_t>(b.param_index)];
    }

    std::vector<ParamUse> uses_;
    ParamUse ignored_;  // local arrays
    const ir::Var* loop_var_;
    bool loop_var_assigned_ = false;
};

bool is_one(const ir::ExprPtr& e) {
    const auto* imm = dynamic_cast<const ir::IntImm*>(e.get());
    return imm && imm->bits == 1;
}

// The start must be computable in the entry, before the prologue: parameters and constants only.
class UsesOnlyParams : public ir::IRVisitor {
  public:
    explicit UsesOnlyParams(const ir::Kernel& k) : k_(k) {}
    bool ok = true;
    void visit(const ir::VarRef* n) override {
        bool param = false;
        for (const auto& p : k_.params)
            param |= !p.is_array() && p.scalar.get() == n->var.get();
        ok &= param;
    }
    void visit(const ir::Load*) override { ok = false; }
    void visit(const ir::ArrayDim*) override { ok = false; }

  private:
    const ir::Kernel& k_;
};

}  // namespace

std::optional<StreamingStore> streaming_store(const ir::Kernel& k) {
    if (llvm::Triple(detail::host_identity().triple).getArch() != llvm::Triple::x86_64) {
        return std::nullopt;  // the sfence and MOVNT forms below are x86's
    }
    if (k.dims.size() != 1 || !is_one(k.dims[0].step)) return std::nullopt;
    UsesOnlyParams start_scan(k);
    start_scan.visit_expr(k.dims[0].start);
    if (!start_scan.ok) return std::nullopt;
    // The streaming entry runs the prologue three times per piece (head, middle, tail): fine for
    // assignments, not for a print before the loop.
    for (const auto& stmt : k.prologue) {
        if (!dynamic_cast<const ir::Assign*>(stmt.get())) return std::nullopt;
    }
    UseScan scan(k, k.dims[0].var.get());
    scan.visit_block(k.prologue);
    if (k.result) scan.visit_expr(k.result);
    scan.in_body = true;
    scan.visit_block(k.body);
    if (scan.loop_var_assigned()) return std::nullopt;
    for (size_t i = 0; i < k.params.size(); ++i) {
        const ParamUse& u = scan.uses()[i];
        if (k.params[i].is_array() && u.stored && !u.disqualified) {
            return StreamingStore{int(i), int(size_bytes(k.params[i].buffer->elem))};
        }
    }
    return std::nullopt;
}

namespace detail {

std::string ntentry_symbol(const std::string& kernel_name) {
    return "tack_ntentry_" + encode_name(kernel_name);
}

std::string ntkernel_symbol(const std::string& kernel_name) {
    return "tack_ntkernel_" + encode_name(kernel_name);
}

void finish_streaming_stores(llvm::Module& m, const ir::Kernel& k) {
    std::optional<StreamingStore> streamed = streaming_store(k);
    llvm::Function* fn = m.getFunction(ntkernel_symbol(k.name));
    if (!streamed || !fn || fn->isDeclaration()) return;
    // The function keeps one argument per parameter (emit_kernel.cpp keeps it external).
    if (fn->arg_size() != k.params.size() + 2) return;
    llvm::Value* target = fn->getArg(unsigned(streamed->param));
    const llvm::DataLayout& dl = m.getDataLayout();
    llvm::MDNode* nontemporal =
        llvm::MDNode::get(m.getContext(), llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                              llvm::Type::getInt32Ty(m.getContext()), 1)));
    for (auto& block : *fn) {
        for (auto& inst : block) {
            auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
            if (!store || llvm::getUnderlyingObject(store->getPointerOperand()) != target) continue;
            store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
            llvm::Type* ty = store->getValueOperand()->getType();
            if (!ty->isVectorTy()) continue;
            uint64_t width = dl.getTypeStoreSize(ty).getFixedValue();
            if (width > 64 || (width & (width - 1)) != 0) continue;
            store->setAlignment(llvm::Align(width));
        }
    }
}

}  // namespace detail
}  // namespace tack::codegen::llvm_cpu
