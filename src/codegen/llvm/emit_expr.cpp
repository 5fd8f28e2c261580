// FunctionEmitter: setup, variables, buffers and expressions.

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.hpp"
#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::llvm_cpu::detail {

using llvm::Value;

FunctionEmitter::FunctionEmitter(llvm::Function* fn, const ir::Kernel& kernel)
    : kernel_(kernel),
      fn_(fn),
      alloca_block_(llvm::BasicBlock::Create(fn->getContext(), "allocas", fn)),
      first_block_(llvm::BasicBlock::Create(fn->getContext(), "start", fn)),
      b_(first_block_),
      alloca_b_(alloca_block_) {}

llvm::BasicBlock* FunctionEmitter::new_block(const char* name) {
    return llvm::BasicBlock::Create(context(), name, fn_);
}

llvm::AllocaInst* FunctionEmitter::var_slot(const ir::Var& v) {
    auto it = vars_.find(&v);
    if (it != vars_.end()) return it->second;
    llvm::Type* ty = llvm_type(context(), v.type);
    llvm::AllocaInst* slot = alloca_b_.CreateAlloca(ty, nullptr, v.name);
    alloca_b_.CreateStore(llvm::Constant::getNullValue(ty), slot);
    vars_.emplace(&v, slot);
    return slot;
}

void FunctionEmitter::set_var(const ir::Var& v, Value* value) {
    b_.CreateStore(value, var_slot(v));
}

Value* FunctionEmitter::get_var(const ir::Var& v) {
    return b_.CreateLoad(llvm_type(context(), v.type), var_slot(v), v.name);
}

llvm::AllocaInst* FunctionEmitter::entry_alloca(llvm::Type* type, const std::string& name) {
    return alloca_b_.CreateAlloca(type, nullptr, name);
}

// Parameters are found by index (passes may rebuild Buffer objects); locals by identity.
void FunctionEmitter::bind_buffer(const ir::Buffer& buffer, Value* base) {
    if (buffer.kind != ir::BufferKind::Param) {
        buffers_[&buffer] = base;
        return;
    }
    if (param_bases_.size() <= static_cast<size_t>(buffer.param_index)) {
        param_bases_.resize(buffer.param_index + 1);
    }
    param_bases_[buffer.param_index] = base;
}

Value* FunctionEmitter::buffer_base(const ir::Buffer& buffer) const {
    if (buffer.kind == ir::BufferKind::Param) {
        size_t i = static_cast<size_t>(buffer.param_index);
        if (i < param_bases_.size() && param_bases_[i]) return param_bases_[i];
    } else if (auto it = buffers_.find(&buffer); it != buffers_.end()) {
        return it->second;
    }
    throw diag::InternalError("internal error: LLVM codegen: array '" + buffer.name +
                              "' is not bound");
}

// CONTRACT E14: a parameter may be an import at any byte offset (field_from_ptr, DLPack), so
// its loads and stores claim alignment 1; x86 vector moves cost the same either way. Claiming
// the element size was undefined behaviour on such imports (and O3 carried the claim into
// vector loads). Atomics keep natural alignment, which dispatch checks (D14). Local arrays are
// our own allocas.
llvm::Align FunctionEmitter::access_align(const ir::Buffer& buffer) const {
    if (buffer.kind == ir::BufferKind::Param) return llvm::Align(1);
    return llvm::Align(size_bytes(buffer.elem));
}

Value* FunctionEmitter::element_ptr(const ir::Buffer& buffer, const ir::Expr& index) {
    Value* base = buffer_base(buffer);
    return b_.CreateGEP(llvm_type(context(), buffer.elem), base, emit(index));
}

void FunctionEmitter::push_loop(llvm::BasicBlock* continue_to, llvm::BasicBlock* break_to) {
    loops_.push_back({continue_to, break_to});
}
void FunctionEmitter::pop_loop() {
    loops_.pop_back();
}

void FunctionEmitter::not_on_cpu(const char* primitive, diag::SourceRange range) const {
    diag::raise(diag::ErrorKind::NotImplemented,
                "Kernel '" + kernel_.name +
                    "': CPU backend does not support workgroup execution required by " + primitive,
                kernel_.file, range);
}

Value* FunctionEmitter::emit(const ir::Expr& e) {
    return ir::dispatch(e, [this](const auto* node) -> Value* { return visit(node); });
}

Value* FunctionEmitter::emit_condition(const ir::Expr& e) {
    return truthy(b_, emit(e), e.type);
}

// ---- leaves -----------------------------------------------------------------------------------

Value* FunctionEmitter::visit(const ir::IntImm* e) {
    return llvm::ConstantInt::get(llvm_type(context(), e->type), e->bits);
}

Value* FunctionEmitter::visit(const ir::FloatImm* e) {
    return llvm::ConstantFP::get(llvm_type(context(), e->type), e->value);
}

Value* FunctionEmitter::visit(const ir::VarRef* e) {
    return get_var(*e->var);
}

Value* FunctionEmitter::visit(const ir::ArrayDim* e) {
    throw diag::InternalError("internal error: LLVM codegen: unspecialized ArrayDim of '" +
                              e->buffer->name + "'");
}

Value* FunctionEmitter::visit(const ir::ThreadId* e) {
    not_on_cpu("thread_id", e->range);
}

Value* FunctionEmitter::visit(const ir::TexSample* e) {
    // The CPU samples in software: driver::specialize expands every TexSample for it.
    throw diag::InternalError("internal error: LLVM codegen: texture sample of '" +
                              e->texture->name + "' was not expanded (passes::lower_textures)");
}

Value* FunctionEmitter::visit(const ir::Load* e) {
    Value* ptr = element_ptr(*e->buffer, *e->index);
    llvm::Type* ty = llvm_type(context(), e->type);
    return b_.CreateAlignedLoad(ty, ptr, access_align(*e->buffer));
}

llvm::GlobalVariable* FunctionEmitter::table_global(const ir::Table& t) {
    auto it = tables_.find(t.id);
    if (it != tables_.end()) return it->second;
    llvm::Type* elem = llvm_type(context(), t.elem);
    std::vector<llvm::Constant*> values;
    for (const auto& v : t.values)
        values.push_back(llvm::cast<llvm::Constant>(emit(*v)));
    auto* type = llvm::ArrayType::get(elem, values.size());
    auto* g = new llvm::GlobalVariable(*b_.GetInsertBlock()->getModule(), type, /*isConstant=*/true,
                                       llvm::GlobalValue::PrivateLinkage,
                                       llvm::ConstantArray::get(type, values),
                                       "tack.table." + std::to_string(t.id));
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    tables_[t.id] = g;
    return g;
}

Value* FunctionEmitter::visit(const ir::TableLoad* e) {
    // An index outside [0, n) reads the last value (ir.hpp): one unsigned compare and a select.
    llvm::GlobalVariable* g = table_global(*e->table);
    uint64_t n = e->table->values.size();
    Value* i = emit(*e->index);
    Value* last = b_.getInt64(n - 1);
    Value* k = b_.CreateSelect(b_.CreateICmpULT(i, b_.getInt64(n)), i, last);
    Value* ptr = b_.CreateInBoundsGEP(g->getValueType(), g, {b_.getInt64(0), k});
    llvm::Type* ty = llvm_type(context(), e->type);
    return b_.CreateAlignedLoad(ty, ptr, llvm::Align(size_bytes(e->type)));
}

// ---- operators --------------------------------------------------------------------------------

Value* FunctionEmitter::visit(const ir::Cast* e) {
    return cast_value(b_, emit(*e->value), e->value->type, e->type);
}

Value* FunctionEmitter::visit(const ir::Unary* e) {
    Value* a = emit(*e->a);
    switch (e->op) {
        case ir::UnaryOp::Neg:
            return is_float(e->type) ? b_.CreateFNeg(a) : b_.CreateNeg(a);
        case ir::UnaryOp::BitNot:
            return b_.CreateNot(a);
        case ir::UnaryOp::Not:
            return b_.CreateZExt(b_.CreateNot(truthy(b_, a, e->a->type)), b_.getInt32Ty());
    }
    throw diag::InternalError("internal error: LLVM codegen: corrupt unary op");
}

Value* FunctionEmitter::visit(const ir::Binary* e) {
    Value* a = emit(*e->a);
    Value* b = emit(*e->b);
    return binary(b_, e->op, e->type, a, b, e->b->type);
}

Value* FunctionEmitter::visit(const ir::Compare* e) {
    Value* a = emit(*e->a);
    Value* b = emit(*e->b);
    return b_.CreateZExt(compare(b_, e->op, a, b, e->a->type), b_.getInt32Ty());
}

Value* FunctionEmitter::visit(const ir::Call* e) {
    std::vector<Value*> args;
    for (const auto& a : e->args)
        args.push_back(emit(*a));
    return math_call(b_, e->fn, e->type, args);
}

// ---- lazy operators: the unevaluated operand must not run (it may load out of bounds) ---------

Value* FunctionEmitter::visit(const ir::Logical* e) {
    bool is_and = e->op == ir::LogicalOp::And;
    Value* a = emit_condition(*e->a);
    llvm::BasicBlock* a_end = b_.GetInsertBlock();
    llvm::BasicBlock* rhs = new_block(is_and ? "and.rhs" : "or.rhs");
    llvm::BasicBlock* merge = new_block(is_and ? "and.end" : "or.end");
    if (is_and) {
        b_.CreateCondBr(a, rhs, merge);
    } else {
        b_.CreateCondBr(a, merge, rhs);
    }
    b_.SetInsertPoint(rhs);
    Value* b = emit_condition(*e->b);
    llvm::BasicBlock* b_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
    phi->addIncoming(b_.getInt1(!is_and), a_end);
    phi->addIncoming(b, b_end);
    return b_.CreateZExt(phi, b_.getInt32Ty());
}

Value* FunctionEmitter::visit(const ir::Select* e) {
    Value* cond = emit_condition(*e->cond);
    llvm::BasicBlock* then_block = new_block("sel.then");
    llvm::BasicBlock* else_block = new_block("sel.else");
    llvm::BasicBlock* merge = new_block("sel.end");
    b_.CreateCondBr(cond, then_block, else_block);
    b_.SetInsertPoint(then_block);
    Value* a = emit(*e->a);
    llvm::BasicBlock* a_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(else_block);
    Value* b = emit(*e->b);
    llvm::BasicBlock* b_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(a->getType(), 2);
    phi->addIncoming(a, a_end);
    phi->addIncoming(b, b_end);
    return phi;
}

}  // namespace tack::codegen::llvm_cpu::detail
