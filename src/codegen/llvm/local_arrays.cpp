// FunctionEmitter: where local arrays live. Up to kStackArrayBytes an alloca of the function's
// first block; past it, a heap block, because a pool thread's stack is 8 MiB and an array of
// 16 MiB in it overwrote whatever lay below (hardening round three, defect 2). The blocks are
// taken in the first block, so once per call (a piece of the parallel loop), and freed where
// the function returns. When one cannot be had the call does nothing: it frees what it got,
// sets the object's failure word (tack_failed_<kernel>) and returns; the CPU backend reads the
// word after the launch and raises. Sema bounds the total per iteration (the target's
// private-memory row, driver/targets.cpp), so what fails here is a heap that is out of memory.

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.hpp"
#include "codegen/llvm/internal.hpp"

namespace tack::codegen::llvm_cpu::detail {

using llvm::Value;

namespace {

// Heap blocks are 64-byte aligned (the lane emitter's arrays ask for a cache line), so
// aligned_alloc, whose size must then be a multiple of 64.
llvm::FunctionCallee aligned_alloc_fn(llvm::Module& m) {
    auto* ptr = llvm::PointerType::get(m.getContext(), 0);
    auto* i64 = llvm::Type::getInt64Ty(m.getContext());
    return m.getOrInsertFunction("aligned_alloc", ptr, i64, i64);
}

llvm::FunctionCallee free_fn(llvm::Module& m) {
    auto* ptr = llvm::PointerType::get(m.getContext(), 0);
    return m.getOrInsertFunction("free", llvm::Type::getVoidTy(m.getContext()), ptr);
}

llvm::GlobalVariable* failure_word(llvm::Module& m, const std::string& kernel) {
    std::string name = failure_symbol(kernel);
    if (auto* g = m.getGlobalVariable(name)) return g;
    auto* i32 = llvm::Type::getInt32Ty(m.getContext());
    auto* g =
        new llvm::GlobalVariable(m, i32, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
                                 llvm::ConstantInt::get(i32, 0), name);
    g->setAlignment(llvm::Align(4));
    return g;
}

}  // namespace

Value* FunctionEmitter::local_array_storage(llvm::Type* type, const std::string& name,
                                            llvm::Align align) {
    const llvm::DataLayout& dl = fn_->getParent()->getDataLayout();
    uint64_t bytes = dl.getTypeAllocSize(type);
    if (bytes <= kStackArrayBytes) {
        llvm::AllocaInst* slot = alloca_b_.CreateAlloca(type, nullptr, name);
        slot->setAlignment(align);
        return slot;
    }
    llvm::Module& m = *fn_->getParent();
    uint64_t rounded = (bytes + 63) / 64 * 64;
    llvm::CallInst* block = alloca_b_.CreateCall(
        aligned_alloc_fn(m), {alloca_b_.getInt64(64), alloca_b_.getInt64(rounded)}, name);
    block->addRetAttr(llvm::Attribute::NoAlias);
    block->addRetAttr(llvm::Attribute::getWithAlignment(context(), llvm::Align(64)));
    heap_arrays_.push_back(block);
    return block;
}

void FunctionEmitter::emit_return() {
    for (Value* block : heap_arrays_)
        b_.CreateCall(free_fn(*fn_->getParent()), {block});
    b_.CreateRetVoid();
}

void FunctionEmitter::finish() {
    if (heap_arrays_.empty()) {
        alloca_b_.CreateBr(first_block_);
        return;
    }
    Value* missing = alloca_b_.getFalse();
    for (Value* block : heap_arrays_)
        missing = alloca_b_.CreateOr(missing, alloca_b_.CreateIsNull(block));
    llvm::BasicBlock* failed = new_block("local_arrays.failed");
    alloca_b_.CreateCondBr(missing, failed, first_block_);
    Builder b(failed);
    for (Value* block : heap_arrays_)
        b.CreateCall(free_fn(*fn_->getParent()), {block});  // free(NULL) does nothing
    llvm::StoreInst* set =
        b.CreateStore(b.getInt32(1), failure_word(*fn_->getParent(), kernel_.name));
    set->setAtomic(llvm::AtomicOrdering::Monotonic);
    set->setAlignment(llvm::Align(4));
    b.CreateRetVoid();
}

}  // namespace tack::codegen::llvm_cpu::detail
