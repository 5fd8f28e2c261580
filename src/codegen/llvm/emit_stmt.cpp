// FunctionEmitter: statements.

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.hpp"
#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::llvm_cpu::detail {

using llvm::Value;

void FunctionEmitter::emit(const ir::Block& block) {
    for (const auto& s : block) {
        ir::dispatch(*s, [this](const auto* node) { visit(node); });
    }
}

void FunctionEmitter::jump(llvm::BasicBlock* target) {
    b_.CreateBr(target);
    b_.SetInsertPoint(new_block("after.jump"));
}

void FunctionEmitter::visit(const ir::Assign* s) {
    set_var(*s->var, emit(*s->value));
}

void FunctionEmitter::visit(const ir::Store* s) {
    Value* ptr = element_ptr(*s->buffer, *s->index);
    Value* v = emit(*s->value);
    b_.CreateAlignedStore(v, ptr, access_align(*s->buffer));
}

void FunctionEmitter::visit(const ir::Atomic* s) {
    DType t = s->buffer->elem;
    Value* ptr = element_ptr(*s->buffer, *s->index);
    Value* v = emit(*s->value);
    Value* old = b_.CreateAtomicRMW(atomic_binop(s->op, t), ptr, v, llvm::MaybeAlign(size_bytes(t)),
                                    llvm::AtomicOrdering::Monotonic);
    if (s->result) set_var(*s->result, old);
}

void FunctionEmitter::visit(const ir::If* s) {
    Value* cond = emit_condition(*s->cond);
    llvm::BasicBlock* then_block = new_block("if.then");
    llvm::BasicBlock* merge = new_block("if.end");
    llvm::BasicBlock* else_block = s->else_body.empty() ? merge : new_block("if.else");
    b_.CreateCondBr(cond, then_block, else_block);
    b_.SetInsertPoint(then_block);
    emit(s->then_body);
    b_.CreateBr(merge);
    if (else_block != merge) {
        b_.SetInsertPoint(else_block);
        emit(s->else_body);
        b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
}

// A canonical induction i in [0, count) keeps the loop easy for SCEV and the vectorizer; the
// user's variable is start + i * step (wrapping arithmetic is exact here).
void FunctionEmitter::visit(const ir::For* s) {
    Value* start = emit(*s->start);
    Value* end = emit(*s->end);
    Value* step = emit(*s->step);
    Value* count = trip_count(b_, start, end, step);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = new_block("for.head");
    llvm::BasicBlock* body = new_block("for.body");
    llvm::BasicBlock* latch = new_block("for.latch");
    llvm::BasicBlock* exit = new_block("for.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    b_.CreateCondBr(b_.CreateICmpULT(i, count), body, exit);
    b_.SetInsertPoint(body);
    set_var(*s->var, b_.CreateAdd(start, b_.CreateMul(i, step)));
    push_loop(latch, exit);
    emit(s->body);
    pop_loop();
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    Value* next = b_.CreateAdd(i, b_.getInt64(1));
    b_.CreateBr(head);
    i->addIncoming(b_.getInt64(0), pre);
    i->addIncoming(next, latch);
    b_.SetInsertPoint(exit);
}

void FunctionEmitter::visit(const ir::While* s) {
    llvm::BasicBlock* head = new_block("while.head");
    llvm::BasicBlock* body = new_block("while.body");
    llvm::BasicBlock* exit = new_block("while.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    b_.CreateCondBr(emit_condition(*s->cond), body, exit);
    b_.SetInsertPoint(body);
    push_loop(head, exit);
    emit(s->body);
    pop_loop();
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
}

void FunctionEmitter::visit(const ir::Break* s) {
    TACK_ASSERT(!loops_.empty() && loops_.back().break_to, "LLVM codegen: break outside a loop");
    jump(loops_.back().break_to);
}

void FunctionEmitter::visit(const ir::Continue* s) {
    TACK_ASSERT(!loops_.empty(), "LLVM codegen: continue outside a loop");
    jump(loops_.back().continue_to);
}

// Zero-filled on every declaration: reading an unwritten element gives 0, never undef (whose
// use in a branch would be UB). Dead-store elimination drops the fill when the code overwrites.
void FunctionEmitter::visit(const ir::AllocArray* s) {
    const ir::Buffer& buf = *s->buffer;
    if (buf.kind == ir::BufferKind::Shared) not_on_cpu("shared", s->range);
    TACK_ASSERT(buf.kind == ir::BufferKind::Local && buf.size > 0,
                "LLVM codegen: bad local array '" + buf.name + "'");
    auto* ty = llvm::ArrayType::get(llvm_type(context(), buf.elem), buf.size);
    llvm::Value* slot = local_array_storage(ty, buf.name, llvm::Align(16));
    uint64_t bytes = static_cast<uint64_t>(buf.size) * size_bytes(buf.elem);
    b_.CreateMemSet(slot, b_.getInt8(0), bytes, llvm::MaybeAlign(16));
    bind_buffer(buf, slot);
}

void FunctionEmitter::visit(const ir::Barrier* s) {
    not_on_cpu("barrier", s->range);
}

void FunctionEmitter::visit(const ir::BlockReduce* s) {
    static const char* const kNames[] = {"block_sum", "block_min", "block_max"};
    not_on_cpu(kNames[static_cast<int>(s->op)], s->range);
}

// ---- print -------------------------------------------------------------------------------------

Value* FunctionEmitter::printf_format(const ir::Print& s, std::vector<Value*>& args) {
    std::string format;
    for (const auto& part : s.parts) {
        if (!format.empty()) format += ' ';
        if (const auto* text = std::get_if<std::string>(&part)) {
            for (char c : *text)
                format += c == '%' ? std::string("%%") : std::string(1, c);
            continue;
        }
        const ir::Expr& e = *std::get<ir::ExprPtr>(part);
        Value* v = emit(e);
        if (is_float(e.type)) {
            format += e.type == DType::f32 ? "%.9g" : "%.17g";
            args.push_back(e.type == DType::f32 ? b_.CreateFPExt(v, b_.getDoubleTy()) : v);
        } else {
            format += is_signed(e.type) ? "%lld" : "%llu";
            args.push_back(is_signed(e.type) ? b_.CreateSExt(v, b_.getInt64Ty())
                                             : b_.CreateZExt(v, b_.getInt64Ty()));
        }
    }
    return b_.CreateGlobalString(format + "\n", "tack.fmt");
}

void FunctionEmitter::visit(const ir::Print* s) {
    std::vector<Value*> args(1);
    args[0] = printf_format(*s, args);
    auto* fty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, true);
    llvm::FunctionCallee printf = fn_->getParent()->getOrInsertFunction("printf", fty);
    b_.CreateCall(printf, args);
}

}  // namespace tack::codegen::llvm_cpu::detail
