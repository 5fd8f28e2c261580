// The lane emitter: the body of the parallel loop for W iterations at once (see lanes.hpp for
// the model). Every statement is emitted under an SSA mask (<W x i1>) of active lanes and
// returns the mask of the lanes still active after it; break/continue masks of sequential loops
// live in allocas (SROA turns them into phis).

#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/lanes.hpp"
#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::llvm_cpu::detail {

using llvm::Value;

namespace {

bool has_load(const ir::Expr& e) {
    struct Scan : ir::IRVisitor {
        bool found = false;
        void visit(const ir::Load*) override { found = true; }
    } scan;
    ir::dispatch(e, [&](const auto* n) { static_cast<ir::IRVisitor&>(scan).visit(n); });
    return scan.found;
}

/// Whether a lane can leave `s` through break or continue (leaving the rest of its block).
/// A loop keeps its own breaks and continues, and the parallel loop's `continue` is never
/// inside a sequential loop.
bool leaves(const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Break || s.kind == ir::StmtKind::Continue) return true;
    const auto* i = s.as<ir::If>();
    if (!i) return false;
    auto any = [](const ir::Block& b) {
        return std::any_of(b.begin(), b.end(), [](const auto& x) { return leaves(*x); });
    };
    return any(i->then_body) || any(i->else_body);
}

/// Whether a loop body has a break of that loop (its lanes can run out before the condition).
bool has_break(const ir::Block& body) {
    for (const auto& s : body) {
        if (s->kind == ir::StmtKind::Break) return true;
        if (const auto* i = s->as<ir::If>()) {
            if (has_break(i->then_body) || has_break(i->else_body)) return true;
        }
    }
    return false;
}

}  // namespace

class LaneEmitter::Impl {
  public:
    Impl(FunctionEmitter& em, const ir::Kernel& k, const LanePlan& plan)
        : em_(em), b_(em.builder()), k_(k), plan_(plan), w_(unsigned(plan.width)) {
        std::vector<const ir::Var*> vars;
        for (const auto& [v, s] : plan.vars) {
            if (s.kind == Shape::Varying) vars.push_back(v);
        }
        std::sort(vars.begin(), vars.end(), [](auto* a, auto* b) { return a->id < b->id; });
        for (const ir::Var* v : vars) {
            llvm::AllocaInst* slot = em_.entry_alloca(vec_type(v->type), v->name + ".lanes");
            b_.CreateStore(splat(em_.get_var(*v)), slot);
            slots_[v] = slot;
        }
    }

    void emit_iterations(Value* lo, Value* hi, Value* start, Value* step);

  private:
    struct LoopMasks {
        llvm::AllocaInst* brk;
        llvm::AllocaInst* cont;
    };
    struct Ctx {
        bool divergent = false;     // an assignment must keep inactive lanes' values
        LoopMasks* loop = nullptr;  // innermost sequential loop; null: the parallel loop
    };

    // ---- types and masks --------------------------------------------------------------------
    llvm::VectorType* vec_type(llvm::Type* t) { return llvm::FixedVectorType::get(t, w_); }
    llvm::VectorType* vec_type(DType t) { return vec_type(llvm_type(em_.context(), t)); }
    llvm::VectorType* mask_type() { return vec_type(b_.getInt1Ty()); }
    Value* no_lanes() { return llvm::Constant::getNullValue(mask_type()); }
    Value* all_lanes() { return llvm::Constant::getAllOnesValue(mask_type()); }
    Value* splat(Value* scalar) { return b_.CreateVectorSplat(w_, scalar); }
    Value* any(Value* mask) { return b_.CreateOrReduce(mask); }
    Value* and_not(Value* a, Value* b) { return b_.CreateAnd(a, b_.CreateNot(b)); }
    /// <0, stride, 2*stride, ...> as i64 (wrapping).
    Value* lane_offsets(uint64_t stride) {
        std::vector<llvm::Constant*> c;
        for (unsigned l = 0; l < w_; ++l)
            c.push_back(b_.getInt64(stride * l));
        return llvm::ConstantVector::get(c);
    }
    llvm::AllocaInst* mask_slot(const char* name, Value* init) {
        llvm::AllocaInst* slot = em_.entry_alloca(mask_type(), name);
        b_.CreateStore(init, slot);
        return slot;
    }
    Value* load_mask(llvm::AllocaInst* slot) { return b_.CreateLoad(mask_type(), slot); }
    void or_into(llvm::AllocaInst* slot, Value* m) {
        b_.CreateStore(b_.CreateOr(load_mask(slot), m), slot);
    }
    llvm::PHINode* phi(llvm::Type* t,
                       std::initializer_list<std::pair<Value*, llvm::BasicBlock*>> in) {
        llvm::PHINode* p = b_.CreatePHI(t, unsigned(in.size()));
        for (auto [v, block] : in)
            p->addIncoming(v, block);
        return p;
    }

    // ---- values -----------------------------------------------------------------------------
    Shape shape(const ir::Expr& e) const {
        auto it = plan_.exprs.find(&e);
        TACK_ASSERT(it != plan_.exprs.end(), "LLVM lanes: expression without a shape");
        return it->second;
    }
    Shape var_shape(const ir::Var& v) const {
        auto it = plan_.vars.find(&v);
        return it == plan_.vars.end() ? Shape::uniform() : it->second;
    }
    Value* materialize(Value* scalar, Shape s) {
        Value* v = splat(scalar);
        return s.kind == Shape::Linear ? b_.CreateAdd(v, lane_offsets(s.stride)) : v;
    }
    /// Every lane's value of `e` as a vector; loads touch only the lanes in `m`.
    Value* vec(const ir::Expr& e, Value* m) {
        Shape s = shape(e);
        if (s.kind != Shape::Varying) return materialize(em_.emit(e), s);
        return ir::dispatch(e, [&](const auto* n) { return lanes(n, m); });
    }
    Value* truthy_vec(const ir::Expr& e, Value* m) { return truthy(b_, vec(e, m), e.type); }
    Value* to_i32(Value* bits) { return b_.CreateZExt(bits, vec_type(b_.getInt32Ty())); }
    /// `e` for the lanes in `m`, which may be empty: an operand that loads is skipped then (a
    /// uniform load is one scalar access and needs an active lane).
    Value* guarded(const ir::Expr& e, Value* m) {
        if (!has_load(e)) return vec(e, m);
        llvm::BasicBlock* from = b_.GetInsertBlock();
        llvm::BasicBlock* run = em_.new_block("lanes.arm");
        llvm::BasicBlock* join = em_.new_block("lanes.arm.end");
        b_.CreateCondBr(any(m), run, join);
        b_.SetInsertPoint(run);
        Value* v = vec(e, m);
        llvm::BasicBlock* run_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        return phi(v->getType(),
                   {{v, run_end}, {llvm::Constant::getNullValue(v->getType()), from}});
    }

    [[noreturn]] Value* not_varying(const char* what) {
        throw diag::InternalError(std::string("internal error: LLVM lanes: varying ") + what);
    }
    Value* lanes(const ir::IntImm*, Value*) { not_varying("constant"); }
    Value* lanes(const ir::FloatImm*, Value*) { not_varying("constant"); }
    Value* lanes(const ir::ArrayDim*, Value*) { not_varying("array extent"); }
    Value* lanes(const ir::ThreadId*, Value*) { not_varying("thread_id"); }
    Value* lanes(const ir::VarRef* e, Value*) {
        auto it = slots_.find(e->var.get());
        TACK_ASSERT(it != slots_.end(), "LLVM lanes: varying variable without a slot");
        return b_.CreateLoad(vec_type(e->type), it->second, e->var->name);
    }
    Value* lanes(const ir::Cast* e, Value* m) {
        return cast_value(b_, vec(*e->value, m), e->value->type, e->type);
    }
    Value* lanes(const ir::Unary* e, Value* m);
    Value* lanes(const ir::Binary* e, Value* m);
    Value* lanes(const ir::Compare* e, Value* m) {
        return to_i32(compare(b_, e->op, vec(*e->a, m), vec(*e->b, m), e->a->type));
    }
    Value* lanes(const ir::Logical* e, Value* m);
    Value* lanes(const ir::Select* e, Value* m);
    Value* lanes(const ir::Load* e, Value* m);
    Value* lanes(const ir::TableLoad* e, Value* m);
    Value* lanes(const ir::TexSample* e, Value* m);
    Value* lanes(const ir::Call* e, Value* m);
    Value* int_pow(Value* x, Value* e);
    /// Runs body(lane) (an i64) for each lane in `m`, in lane order, and returns `init` with
    /// each such lane replaced by what body returned (nullptr when `init` is).
    template <class Body>
    Value* per_lane(Value* m, Value* init, Body body);

    // ---- memory -----------------------------------------------------------------------------
    struct Address {
        enum Kind { Scalar, Contiguous, Lanes } kind;
        Value* ptr;  // Scalar, Contiguous: one pointer; Lanes: a vector of pointers
    };
    Address address(const ir::Buffer& buffer, const ir::Expr& index, Value* m);
    Value* lane_pointers(const Address& a, llvm::Type* elem);
    llvm::Value* local_slot(const ir::Buffer& buffer) {
        auto [it, fresh] = locals_.try_emplace(&buffer, nullptr);
        if (fresh) {
            llvm::Type* elem = llvm_type(em_.context(), buffer.elem);
            auto* ty = llvm::ArrayType::get(elem, uint64_t(buffer.size) * w_);
            it->second = em_.local_array_storage(ty, buffer.name + ".lanes", llvm::Align(64));
        }
        return it->second;
    }
    llvm::Align align_of(const ir::Buffer& buffer) const {
        return buffer.kind == ir::BufferKind::Param ? em_.access_align(buffer)
                                                    : llvm::Align(size_bytes(buffer.elem));
    }

    // ---- statements -------------------------------------------------------------------------
    Value* block(const ir::Block& b, size_t from, Value* m, const Ctx& c);
    Value* stmt(const ir::Stmt& s, Value* m, const Ctx& c) {
        return ir::dispatch(s, [&](const auto* n) { return visit(n, m, c); });
    }
    void store_var(const ir::Var& v, Value* value, Value* m, const Ctx& c);
    /// Runs `body` for the lanes in `m` when there are any; returns the lanes active after it.
    Value* arm(const ir::Block& body, Value* m, const Ctx& c);
    Value* visit(const ir::Assign* s, Value* m, const Ctx& c);
    Value* visit(const ir::Store* s, Value* m, const Ctx& c);
    Value* visit(const ir::Atomic* s, Value* m, const Ctx& c);
    Value* visit(const ir::If* s, Value* m, const Ctx& c);
    Value* visit(const ir::For* s, Value* m, const Ctx& c);
    Value* visit(const ir::While* s, Value* m, const Ctx& c);
    // A sequential loop's lane bookkeeping, shared by For and While (see visit(ir::For)): the
    // lanes still iterating (`ml`, a phi in the head), those that left through a non-uniform
    // condition (`exited`) and the body's break and continue masks.
    struct LaneLoop {
        bool uniform;
        LoopMasks masks;
        llvm::AllocaInst* exited;  // null when the condition is uniform
        llvm::BasicBlock *pre, *head, *body, *exit;
        llvm::PHINode* ml;
    };
    /// Opens the loop from the current block: its head, with `ml` started at `m`, is where
    /// code goes next.
    LaneLoop open_loop(const char* name, bool uniform, Value* m);
    /// From the head into the body for the lanes that stay: `go` is the i1 of a uniform
    /// condition, else the mask of lanes whose condition holds. Returns the body's mask.
    Value* enter_body(LaneLoop& l, Value* go);
    /// The body for the lanes in `mb`; returns the lanes that take the back edge.
    Value* run_body(LaneLoop& l, const ir::Block& body, Value* mb, const Ctx& inner);
    /// The back edge from the current block with the `next` lanes; returns the lanes active
    /// after the loop, code going on at its exit.
    Value* close_loop(LaneLoop& l, Value* next);
    Value* visit(const ir::Break*, Value* m, const Ctx& c) {
        or_into(c.loop->brk, m);
        return no_lanes();
    }
    Value* visit(const ir::Continue*, Value* m, const Ctx& c) {
        if (c.loop) or_into(c.loop->cont, m);  // else the lanes retire for this iteration
        return no_lanes();
    }
    Value* visit(const ir::AllocArray* s, Value* m, const Ctx& c);
    [[noreturn]] Value* refused(const char* what) {
        throw diag::InternalError(std::string("internal error: LLVM lanes: ") + what +
                                  " reached the lane emitter");
    }
    Value* visit(const ir::Print*, Value*, const Ctx&) { refused("print"); }
    Value* visit(const ir::Barrier*, Value*, const Ctx&) { refused("barrier"); }
    Value* visit(const ir::BlockReduce*, Value*, const Ctx&) { refused("block reduction"); }

    FunctionEmitter& em_;
    Builder& b_;
    const ir::Kernel& k_;
    const LanePlan& plan_;
    unsigned w_;
    std::unordered_map<const ir::Var*, llvm::AllocaInst*> slots_;  // varying variables
    std::unordered_map<const ir::Buffer*, llvm::Value*> locals_;   // lane-major arrays
};

// ---- the group loop -------------------------------------------------------------------------

// Groups of W iterations from lo; the last one masks off the lanes at or past hi. The offset k
// stays below hi - lo, which is far from overflowing (it counts elements of real arrays).
void LaneEmitter::Impl::emit_iterations(Value* lo, Value* hi, Value* start, Value* step) {
    Value* n =
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b_.CreateSub(hi, lo), b_.getInt64(0));
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = em_.new_block("lanes.head");
    llvm::BasicBlock* body = em_.new_block("lanes.body");
    llvm::BasicBlock* exit = em_.new_block("lanes.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* k = b_.CreatePHI(b_.getInt64Ty(), 2, "lane_group");
    b_.CreateCondBr(b_.CreateICmpSLT(k, n), body, exit);
    b_.SetInsertPoint(body);
    Value* j = b_.CreateAdd(lo, k);
    Value* entry = b_.CreateICmpULT(lane_offsets(1), splat(b_.CreateSub(n, k)));
    em_.set_var(*plan_.lane_var, b_.CreateAdd(start, b_.CreateMul(j, step)));
    if (auto it = slots_.find(plan_.lane_var); it != slots_.end()) {
        Value* js = b_.CreateAdd(splat(j), lane_offsets(1));
        b_.CreateStore(b_.CreateAdd(splat(start), b_.CreateMul(js, splat(step))), it->second);
    }
    block(k_.body, 0, entry, Ctx{});
    Value* next = b_.CreateAdd(k, b_.getInt64(w_));
    b_.CreateBr(head);
    k->addIncoming(b_.getInt64(0), pre);
    k->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(exit);
}

// ---- expressions ----------------------------------------------------------------------------

Value* LaneEmitter::Impl::lanes(const ir::Unary* e, Value* m) {
    Value* a = vec(*e->a, m);
    switch (e->op) {
        case ir::UnaryOp::Neg:
            return is_float(e->type) ? b_.CreateFNeg(a) : b_.CreateNeg(a);
        case ir::UnaryOp::BitNot:
            return b_.CreateNot(a);
        case ir::UnaryOp::Not:
            return to_i32(b_.CreateNot(truthy(b_, a, e->a->type)));
    }
    throw diag::InternalError("internal error: LLVM lanes: corrupt unary op");
}

Value* LaneEmitter::Impl::lanes(const ir::Binary* e, Value* m) {
    Value* x = vec(*e->a, m);
    bool int_pow_op = e->op == ir::BinaryOp::Pow && is_integer(e->type);
    // binary() takes a uniform integer exponent as a scalar (its loop then runs on the
    // exponent's bits once for every lane); a varying one needs the lane loop below.
    if (int_pow_op && shape(*e->b).kind == Shape::Uniform) {
        return binary(b_, e->op, e->type, x, em_.emit(*e->b), e->b->type);
    }
    Value* y = vec(*e->b, m);
    if (int_pow_op) return int_pow(x, y);
    return binary(b_, e->op, e->type, x, y, e->b->type);
}

// Square-and-multiply over each lane's exponent bits (ir.hpp), while any lane has bits left; a
// lane whose bits ran out only multiplies by 1 from then on.
Value* LaneEmitter::Impl::int_pow(Value* x, Value* e) {
    llvm::Type* i64s = vec_type(b_.getInt64Ty());
    Value* e64 = b_.CreateZExtOrTrunc(e, i64s);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = em_.new_block("lanes.pow.head");
    llvm::BasicBlock* body = em_.new_block("lanes.pow.body");
    llvm::BasicBlock* done = em_.new_block("lanes.pow.done");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* result = b_.CreatePHI(x->getType(), 2);
    llvm::PHINode* base = b_.CreatePHI(x->getType(), 2);
    llvm::PHINode* bits_left = b_.CreatePHI(i64s, 2);
    Value* zero = llvm::Constant::getNullValue(i64s);
    b_.CreateCondBr(any(b_.CreateICmpNE(bits_left, zero)), body, done);
    b_.SetInsertPoint(body);
    Value* odd = b_.CreateTrunc(bits_left, mask_type());
    Value* next_result = b_.CreateSelect(odd, b_.CreateMul(result, base), result);
    Value* next_base = b_.CreateMul(base, base);
    Value* next_bits = b_.CreateLShr(bits_left, llvm::ConstantInt::get(i64s, 1));
    b_.CreateBr(head);
    result->addIncoming(llvm::ConstantInt::get(x->getType(), 1), pre);
    result->addIncoming(next_result, body);
    base->addIncoming(x, pre);
    base->addIncoming(next_base, body);
    bits_left->addIncoming(e64, pre);
    bits_left->addIncoming(next_bits, body);
    b_.SetInsertPoint(done);
    return result;
}

// Lazy operators: the right operand (or an arm) runs only for the lanes that need it.
Value* LaneEmitter::Impl::lanes(const ir::Logical* e, Value* m) {
    bool is_and = e->op == ir::LogicalOp::And;
    if (shape(*e->a).kind == Shape::Uniform) {
        Value* a = em_.emit_condition(*e->a);
        llvm::BasicBlock* from = b_.GetInsertBlock();
        llvm::BasicBlock* rhs = em_.new_block("lanes.rhs");
        llvm::BasicBlock* join = em_.new_block("lanes.rhs.end");
        if (is_and) {
            b_.CreateCondBr(a, rhs, join);
        } else {
            b_.CreateCondBr(a, join, rhs);
        }
        b_.SetInsertPoint(rhs);
        Value* bv = truthy_vec(*e->b, m);
        llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        Value* short_value = is_and ? no_lanes() : all_lanes();
        return to_i32(phi(mask_type(), {{short_value, from}, {bv, rhs_end}}));
    }
    Value* a = truthy_vec(*e->a, m);
    Value* need = is_and ? b_.CreateAnd(m, a) : and_not(m, a);
    Value* bv = truthy(b_, guarded(*e->b, need), e->b->type);
    return to_i32(is_and ? b_.CreateAnd(a, bv) : b_.CreateOr(a, bv));
}

Value* LaneEmitter::Impl::lanes(const ir::Select* e, Value* m) {
    if (shape(*e->cond).kind == Shape::Uniform) {
        Value* cond = em_.emit_condition(*e->cond);
        llvm::BasicBlock* then_block = em_.new_block("lanes.sel.then");
        llvm::BasicBlock* else_block = em_.new_block("lanes.sel.else");
        llvm::BasicBlock* join = em_.new_block("lanes.sel.end");
        b_.CreateCondBr(cond, then_block, else_block);
        b_.SetInsertPoint(then_block);
        Value* a = vec(*e->a, m);
        llvm::BasicBlock* a_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(else_block);
        Value* b = vec(*e->b, m);
        llvm::BasicBlock* b_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        return phi(a->getType(), {{a, a_end}, {b, b_end}});
    }
    Value* cond = truthy_vec(*e->cond, m);
    Value* a = guarded(*e->a, b_.CreateAnd(m, cond));
    Value* b = guarded(*e->b, and_not(m, cond));
    return b_.CreateSelect(cond, a, b);
}

Value* LaneEmitter::Impl::lanes(const ir::Load* e, Value* m) {
    llvm::VectorType* ty = vec_type(e->type);
    Value* zero = llvm::Constant::getNullValue(ty);  // inactive lanes read 0, never poison
    Address a = address(*e->buffer, *e->index, m);
    llvm::Align align = align_of(*e->buffer);
    switch (a.kind) {
        case Address::Scalar:
            return splat(b_.CreateAlignedLoad(ty->getElementType(), a.ptr, align));
        case Address::Contiguous:
            return b_.CreateMaskedLoad(ty, a.ptr, align, m, zero);
        case Address::Lanes:
            return b_.CreateMaskedGather(ty, a.ptr, align, m, zero);
    }
    throw diag::InternalError("internal error: LLVM lanes: corrupt address kind");
}

Value* LaneEmitter::Impl::lanes(const ir::TexSample* e, Value*) {
    // As the scalar path: driver::specialize expands every sample for the CPU.
    throw diag::InternalError("internal error: LLVM lanes: texture sample of '" + e->texture->name +
                              "' was not expanded (passes::lower_textures)");
}

Value* LaneEmitter::Impl::lanes(const ir::TableLoad* e, Value* m) {
    // As the scalar path: an index outside [0, n) reads the last value.
    llvm::GlobalVariable* g = em_.table_global(*e->table);
    uint64_t n = e->table->values.size();
    Value* i = vec(*e->index, m);
    llvm::Type* i64s = i->getType();
    Value* last = llvm::ConstantInt::get(i64s, n - 1);
    Value* k = b_.CreateSelect(b_.CreateICmpULT(i, llvm::ConstantInt::get(i64s, n)), i, last);
    Value* ptrs = b_.CreateInBoundsGEP(g->getValueType(), g, {b_.getInt64(0), k});
    llvm::VectorType* ty = vec_type(e->type);
    return b_.CreateMaskedGather(ty, ptrs, llvm::Align(size_bytes(e->type)), m,
                                 llvm::Constant::getNullValue(ty));
}

Value* LaneEmitter::Impl::lanes(const ir::Call* e, Value* m) {
    std::vector<Value*> args;
    for (const auto& a : e->args)
        args.push_back(vec(*a, m));
    if (!math_calls_libm(e->fn, e->type)) return math_call(b_, e->fn, e->type, args);
    // One libm call per active lane, as the scalar path makes; inactive lanes read 0.
    return per_lane(m, llvm::Constant::getNullValue(vec_type(e->type)), [&](Value* l) {
        std::vector<Value*> lane_args;
        for (Value* a : args)
            lane_args.push_back(b_.CreateExtractElement(a, l));
        return math_call(b_, e->fn, e->type, lane_args);
    });
}

// A loop over the set bits of the mask, lowest first, so the code does not grow with W.
template <class Body>
Value* LaneEmitter::Impl::per_lane(Value* m, Value* init, Body body) {
    llvm::Type* bits_type = b_.getIntNTy(w_);
    Value* bits0 = b_.CreateBitCast(m, bits_type);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = em_.new_block("lanes.each");
    llvm::BasicBlock* run = em_.new_block("lanes.each.lane");
    llvm::BasicBlock* done = em_.new_block("lanes.each.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* bits = b_.CreatePHI(bits_type, 2);
    llvm::PHINode* acc = init ? b_.CreatePHI(init->getType(), 2) : nullptr;
    b_.CreateCondBr(b_.CreateICmpEQ(bits, llvm::ConstantInt::get(bits_type, 0)), done, run);
    b_.SetInsertPoint(run);
    Value* lane = b_.CreateZExt(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getTrue()),
                                b_.getInt64Ty());
    Value* lane_value = body(lane);
    Value* next_acc = acc ? b_.CreateInsertElement(acc, lane_value, lane) : nullptr;
    Value* next_bits = b_.CreateAnd(bits, b_.CreateSub(bits, llvm::ConstantInt::get(bits_type, 1)));
    llvm::BasicBlock* run_end = b_.GetInsertBlock();
    b_.CreateBr(head);
    bits->addIncoming(bits0, pre);
    bits->addIncoming(next_bits, run_end);
    if (acc) {
        acc->addIncoming(init, pre);
        acc->addIncoming(next_acc, run_end);
    }
    b_.SetInsertPoint(done);
    return acc;
}

// ---- memory ---------------------------------------------------------------------------------

// A local array holds W copies, lane-major: element i of lane l is at i * W + l, so a uniform
// index addresses W adjacent elements.
LaneEmitter::Impl::Address LaneEmitter::Impl::address(const ir::Buffer& buffer,
                                                      const ir::Expr& index, Value* m) {
    llvm::Type* elem = llvm_type(em_.context(), buffer.elem);
    Shape s = shape(index);
    if (buffer.kind != ir::BufferKind::Param) {
        Value* width = b_.getInt64(w_);
        if (s.kind == Shape::Uniform) {
            Value* first = b_.CreateMul(em_.emit(index), width);
            return {Address::Contiguous, b_.CreateGEP(elem, local_slot(buffer), first)};
        }
        Value* slots = b_.CreateAdd(b_.CreateMul(vec(index, m), splat(width)), lane_offsets(1));
        return {Address::Lanes, b_.CreateGEP(elem, local_slot(buffer), slots)};
    }
    Value* base = em_.buffer_base(buffer);
    if (s.kind == Shape::Uniform)
        return {Address::Scalar, b_.CreateGEP(elem, base, em_.emit(index))};
    if (s.kind == Shape::Linear && s.stride == 1) {
        return {Address::Contiguous, b_.CreateGEP(elem, base, em_.emit(index))};
    }
    return {Address::Lanes, b_.CreateGEP(elem, base, vec(index, m))};
}

Value* LaneEmitter::Impl::lane_pointers(const Address& a, llvm::Type* elem) {
    switch (a.kind) {
        case Address::Scalar:
            return splat(a.ptr);
        case Address::Contiguous:
            return b_.CreateGEP(elem, a.ptr, lane_offsets(1));
        case Address::Lanes:
            return a.ptr;
    }
    throw diag::InternalError("internal error: LLVM lanes: corrupt address kind");
}

// ---- statements -----------------------------------------------------------------------------

Value* LaneEmitter::Impl::block(const ir::Block& b, size_t from, Value* m, const Ctx& c) {
    for (size_t i = from; i < b.size(); ++i) {
        const ir::Stmt& s = *b[i];
        m = stmt(s, m, c);
        if (s.kind == ir::StmtKind::Break || s.kind == ir::StmtKind::Continue) return m;
        if (i + 1 == b.size() || !leaves(s)) continue;
        // Some lanes may have left: the rest of the block runs only if any remain.
        llvm::BasicBlock* skip_from = b_.GetInsertBlock();
        llvm::BasicBlock* rest = em_.new_block("lanes.rest");
        llvm::BasicBlock* done = em_.new_block("lanes.rest.end");
        b_.CreateCondBr(any(m), rest, done);
        b_.SetInsertPoint(rest);
        Value* after = block(b, i + 1, m, c);
        llvm::BasicBlock* rest_end = b_.GetInsertBlock();
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
        return phi(mask_type(), {{after, rest_end}, {no_lanes(), skip_from}});
    }
    return m;
}

void LaneEmitter::Impl::store_var(const ir::Var& v, Value* value, Value* m, const Ctx& c) {
    llvm::AllocaInst* slot = slots_.at(&v);
    if (c.divergent) value = b_.CreateSelect(m, value, b_.CreateLoad(vec_type(v.type), slot));
    b_.CreateStore(value, slot);
}

Value* LaneEmitter::Impl::visit(const ir::Assign* s, Value* m, const Ctx& c) {
    Shape vs = var_shape(*s->var);
    if (vs.kind == Shape::Varying) {
        store_var(*s->var, vec(*s->value, m), m, c);
        return m;
    }
    TACK_ASSERT(shape(*s->value) == vs, "LLVM lanes: assignment changes a variable's shape");
    em_.set_var(*s->var, em_.emit(*s->value));
    return m;
}

Value* LaneEmitter::Impl::visit(const ir::Store* s, Value* m, const Ctx&) {
    Address a = address(*s->buffer, *s->index, m);
    llvm::Align align = align_of(*s->buffer);
    if (a.kind == Address::Scalar && shape(*s->value).kind == Shape::Uniform) {
        b_.CreateAlignedStore(em_.emit(*s->value), a.ptr, align);  // every lane stores this
        return m;
    }
    Value* v = vec(*s->value, m);
    if (a.kind == Address::Contiguous) {
        b_.CreateMaskedStore(v, a.ptr, align, m);
    } else {
        // Lanes storing to one address store in lane order (serial order): the last one wins.
        b_.CreateMaskedScatter(v, lane_pointers(a, v->getType()->getScalarType()), align, m);
    }
    return m;
}

// One atomic per active lane, in lane order; `result` receives each lane's old value.
Value* LaneEmitter::Impl::visit(const ir::Atomic* s, Value* m, const Ctx&) {
    DType t = s->buffer->elem;
    Address a = address(*s->buffer, *s->index, m);
    Value* ptrs = lane_pointers(a, llvm_type(em_.context(), t));
    Value* values = vec(*s->value, m);
    llvm::AllocaInst* result = s->result ? slots_.at(s->result.get()) : nullptr;
    Value* old = per_lane(m, result ? b_.CreateLoad(vec_type(t), result) : nullptr, [&](Value* l) {
        return b_.CreateAtomicRMW(atomic_binop(s->op, t), b_.CreateExtractElement(ptrs, l),
                                  b_.CreateExtractElement(values, l),
                                  llvm::MaybeAlign(size_bytes(t)), llvm::AtomicOrdering::Monotonic);
    });
    if (result) b_.CreateStore(old, result);
    return m;
}

Value* LaneEmitter::Impl::arm(const ir::Block& body, Value* m, const Ctx& c) {
    if (body.empty()) return m;
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::BasicBlock* run = em_.new_block("lanes.if.arm");
    llvm::BasicBlock* join = em_.new_block("lanes.if.arm.end");
    b_.CreateCondBr(any(m), run, join);
    b_.SetInsertPoint(run);
    Value* after = block(body, 0, m, c);
    llvm::BasicBlock* run_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    return phi(mask_type(), {{after, run_end}, {no_lanes(), from}});
}

Value* LaneEmitter::Impl::visit(const ir::If* s, Value* m, const Ctx& c) {
    if (shape(*s->cond).kind == Shape::Uniform) {
        Value* cond = em_.emit_condition(*s->cond);
        llvm::BasicBlock* then_block = em_.new_block("lanes.if.then");
        llvm::BasicBlock* else_block = em_.new_block("lanes.if.else");
        llvm::BasicBlock* join = em_.new_block("lanes.if.end");
        b_.CreateCondBr(cond, then_block, else_block);
        b_.SetInsertPoint(then_block);
        Value* mt = block(s->then_body, 0, m, c);
        llvm::BasicBlock* then_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(else_block);
        Value* me = block(s->else_body, 0, m, c);
        llvm::BasicBlock* else_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        return phi(mask_type(), {{mt, then_end}, {me, else_end}});
    }
    Value* cond = truthy_vec(*s->cond, m);
    Ctx inner = c;
    inner.divergent = true;
    Value* mt = arm(s->then_body, b_.CreateAnd(m, cond), inner);
    Value* me = arm(s->else_body, and_not(m, cond), inner);
    return b_.CreateOr(mt, me);
}

LaneEmitter::Impl::LaneLoop LaneEmitter::Impl::open_loop(const char* name, bool uniform, Value* m) {
    std::string n = std::string("lanes.") + name;
    LaneLoop l{uniform,
               {mask_slot("lanes.brk", no_lanes()), mask_slot("lanes.cont", no_lanes())},
               uniform ? nullptr : mask_slot("lanes.exited", no_lanes()),
               b_.GetInsertBlock(),
               em_.new_block((n + ".head").c_str()),
               em_.new_block((n + ".body").c_str()),
               em_.new_block((n + ".end").c_str()),
               nullptr};
    b_.CreateBr(l.head);
    b_.SetInsertPoint(l.head);
    l.ml = b_.CreatePHI(mask_type(), 2);
    l.ml->addIncoming(m, l.pre);
    return l;
}

Value* LaneEmitter::Impl::enter_body(LaneLoop& l, Value* go) {
    Value* mb = l.ml;
    if (!l.uniform) {
        mb = b_.CreateAnd(l.ml, go);
        b_.CreateStore(b_.CreateOr(load_mask(l.exited), and_not(l.ml, mb)), l.exited);
        go = any(mb);
    }
    b_.CreateCondBr(go, l.body, l.exit);
    b_.SetInsertPoint(l.body);
    b_.CreateStore(no_lanes(), l.masks.cont);
    return mb;
}

Value* LaneEmitter::Impl::run_body(LaneLoop& l, const ir::Block& body, Value* mb,
                                   const Ctx& inner) {
    Value* after_body = block(body, 0, mb, inner);
    return b_.CreateOr(after_body, load_mask(l.masks.cont));
}

Value* LaneEmitter::Impl::close_loop(LaneLoop& l, Value* next) {
    b_.CreateBr(l.head);
    l.ml->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(l.exit);
    Value* left = l.uniform ? static_cast<Value*>(l.ml) : load_mask(l.exited);
    return b_.CreateOr(left, load_mask(l.masks.brk));
}

// Sequential loops keep one trip counter for all lanes: a lane leaves when its condition fails
// (`exited`) or it breaks (`brk`), and never lags behind. A lane that continues rejoins at the
// next iteration. Lanes leaving through the condition: all at once when it is uniform.
Value* LaneEmitter::Impl::visit(const ir::For* s, Value* m, const Ctx& c) {
    bool uniform = shape(*s->start).kind == Shape::Uniform &&
                   shape(*s->end).kind == Shape::Uniform && shape(*s->step).kind == Shape::Uniform;
    Value *start, *step, *count;
    if (uniform) {
        start = em_.emit(*s->start);
        step = em_.emit(*s->step);
        count = trip_count(b_, start, em_.emit(*s->end), step);
    } else {
        start = vec(*s->start, m);
        step = vec(*s->step, m);
        count = trip_count(b_, start, vec(*s->end, m), step);
    }
    LaneLoop l = open_loop("for", uniform, m);
    Ctx inner{c.divergent || plan_.divergent_loops.count(s) > 0, &l.masks};
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(b_.getInt64(0), l.pre);
    Value* go;
    if (uniform) {
        go = b_.CreateICmpULT(i, count);
        if (has_break(s->body)) go = b_.CreateAnd(go, any(l.ml));
    } else {
        go = b_.CreateICmpULT(splat(i), count);
    }
    Value* mb = enter_body(l, go);
    Value* value = uniform ? b_.CreateAdd(start, b_.CreateMul(i, step))
                           : b_.CreateAdd(start, b_.CreateMul(splat(i), step));
    if (var_shape(*s->var).kind == Shape::Varying) {
        store_var(*s->var, uniform ? splat(value) : value, mb, inner);
    } else {
        em_.set_var(*s->var, value);
    }
    Value* next = run_body(l, s->body, mb, inner);
    i->addIncoming(b_.CreateAdd(i, b_.getInt64(1)), b_.GetInsertBlock());
    return close_loop(l, next);
}

Value* LaneEmitter::Impl::visit(const ir::While* s, Value* m, const Ctx& c) {
    bool uniform = shape(*s->cond).kind == Shape::Uniform;
    LaneLoop l = open_loop("while", uniform, m);
    Ctx inner{c.divergent || plan_.divergent_loops.count(s) > 0, &l.masks};
    if (has_break(s->body)) {
        // Every lane may have broken: the condition (which may load) then must not run.
        llvm::BasicBlock* test = em_.new_block("lanes.while.test");
        b_.CreateCondBr(any(l.ml), test, l.exit);
        b_.SetInsertPoint(test);
    }
    Value* mb = enter_body(l, uniform ? em_.emit_condition(*s->cond) : truthy_vec(*s->cond, l.ml));
    return close_loop(l, run_body(l, s->body, mb, inner));
}

// Zero-filled on every declaration, like the scalar path, but only for the active lanes: an
// inactive lane's copy keeps what it held.
Value* LaneEmitter::Impl::visit(const ir::AllocArray* s, Value* m, const Ctx& c) {
    const ir::Buffer& buf = *s->buffer;
    llvm::Type* elem = llvm_type(em_.context(), buf.elem);
    llvm::Value* slot = local_slot(buf);
    if (!c.divergent) {
        uint64_t bytes = uint64_t(buf.size) * w_ * size_bytes(buf.elem);
        b_.CreateMemSet(slot, b_.getInt8(0), bytes, llvm::MaybeAlign(64));
        return m;
    }
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = em_.new_block("lanes.fill");
    llvm::BasicBlock* done = em_.new_block("lanes.fill.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* row = b_.CreatePHI(b_.getInt64Ty(), 2);
    Value* ptr = b_.CreateGEP(elem, slot, b_.CreateMul(row, b_.getInt64(w_)));
    b_.CreateMaskedStore(llvm::Constant::getNullValue(vec_type(elem)), ptr,
                         llvm::Align(size_bytes(buf.elem)), m);
    Value* next = b_.CreateAdd(row, b_.getInt64(1));
    b_.CreateCondBr(b_.CreateICmpULT(next, b_.getInt64(uint64_t(buf.size))), head, done);
    row->addIncoming(b_.getInt64(0), pre);
    row->addIncoming(next, head);
    b_.SetInsertPoint(done);
    return m;
}

// ---- the public face ------------------------------------------------------------------------

LaneEmitter::LaneEmitter(FunctionEmitter& em, const ir::Kernel& k, const LanePlan& plan)
    : impl_(std::make_unique<Impl>(em, k, plan)) {}
LaneEmitter::~LaneEmitter() = default;

void LaneEmitter::emit_iterations(Value* lo, Value* hi, Value* start, Value* step) {
    impl_->emit_iterations(lo, hi, start, step);
}

}  // namespace tack::codegen::llvm_cpu::detail
