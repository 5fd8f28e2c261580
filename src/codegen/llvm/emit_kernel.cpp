// One kernel variant as an LLVM module:
//   internal  void tack_kernel_<enc>(typed params..., i64 loop_start, i64 loop_end)  alwaysinline
//   exported  void tack_entry_<enc>(ptr slots, i64 loop_start, i64 loop_end)
//   exported  void tack_result_<enc>(ptr slots, ptr out)          (only with Kernel::result)
//   internal  void tack_ntkernel_<enc>(...)       the kernel with streaming stores, noinline
//   exported  void tack_ntentry_<enc>(ptr slots, i64 loop_start, i64 loop_end)
//                                         (only with a streaming_store(), see streaming.cpp)
// The kernel's per-iteration loop is the lane loop of lanes.hpp when the kernel qualifies.
// The kernel runs the prologue, then the flattened parallel iterations t in [start, end):
// t decomposes row-major (last dimension fastest) into per-dimension indices.

#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.hpp"
#include "codegen/llvm/internal.hpp"
#include "codegen/llvm/lanes.hpp"
#include "diag/diagnostic.hpp"

namespace tack::codegen::llvm_cpu::detail {
namespace {

using llvm::Value;

void set_target_attributes(llvm::Function* fn) {
    const HostTarget& host = host_target();
    fn->addFnAttr("target-cpu", host.cpu);
    fn->addFnAttr("target-features", host.features);
    if (host.wide_vectors) fn->addFnAttr("prefer-vector-width", "512");
    fn->addFnAttr(llvm::Attribute::NoUnwind);
}

llvm::Function* declare(llvm::Module& m, llvm::Type* ret, std::vector<llvm::Type*> params,
                        llvm::GlobalValue::LinkageTypes linkage, const std::string& name) {
    auto* fty = llvm::FunctionType::get(ret, params, false);
    llvm::Function* fn = llvm::Function::Create(fty, linkage, name, m);
    set_target_attributes(fn);
    return fn;
}

void bind_params(FunctionEmitter& em, const ir::Kernel& k, const std::vector<Value*>& values) {
    for (size_t i = 0; i < k.params.size(); ++i) {
        const ir::Param& p = k.params[i];
        if (p.is_array()) {
            em.bind_buffer(*p.buffer, values[i]);
        } else {
            em.set_var(*p.scalar, values[i]);
        }
    }
}

/// Slot i holds parameter i: an address, or a scalar's bits zero-extended to 64.
std::vector<Value*> unpack_slots(Builder& b, const ir::Kernel& k, Value* slots) {
    std::vector<Value*> values;
    for (size_t i = 0; i < k.params.size(); ++i) {
        Value* slot = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), slots, i);
        if (k.params[i].is_array()) {
            values.push_back(b.CreateAlignedLoad(b.getPtrTy(), slot, llvm::Align(8)));
            continue;
        }
        DType t = k.params[i].scalar->type;
        Value* raw = b.CreateAlignedLoad(b.getInt64Ty(), slot, llvm::Align(8));
        Value* bits = b.CreateTrunc(raw, b.getIntNTy(tack::bits(t)));
        values.push_back(is_float(t) ? b.CreateBitCast(bits, llvm_type(b.getContext(), t)) : bits);
    }
    return values;
}

/// for (j = lo; j < hi; ++j) { set_vars(j); body }   -- the body's Continue goes to ++j.
template <class SetVars>
void emit_iterations(FunctionEmitter& em, const ir::Block& body, Value* lo, Value* hi,
                     SetVars set_vars) {
    Builder& b = em.builder();
    llvm::BasicBlock* pre = b.GetInsertBlock();
    llvm::BasicBlock* head = em.new_block("par.head");
    llvm::BasicBlock* body_block = em.new_block("par.body");
    llvm::BasicBlock* latch = em.new_block("par.latch");
    llvm::BasicBlock* exit = em.new_block("par.end");
    b.CreateBr(head);
    b.SetInsertPoint(head);
    llvm::PHINode* j = b.CreatePHI(b.getInt64Ty(), 2, "t");
    b.CreateCondBr(b.CreateICmpSLT(j, hi), body_block, exit);
    b.SetInsertPoint(body_block);
    set_vars(j);
    em.push_loop(latch, nullptr);
    em.emit(body);
    em.pop_loop();
    b.CreateBr(latch);
    b.SetInsertPoint(latch);
    Value* next = b.CreateAdd(j, b.getInt64(1));
    b.CreateBr(head);
    j->addIncoming(lo, pre);
    j->addIncoming(next, latch);
    b.SetInsertPoint(exit);
}

struct ParallelDims {
    std::vector<Value*> starts, steps, counts;  // counts[0] unused (the host's business)
    Value* inner_empty;                         // some inner dimension has no iterations
};

ParallelDims evaluate_dims(FunctionEmitter& em, const ir::Kernel& k) {
    Builder& b = em.builder();
    size_t n = k.dims.size();
    ParallelDims p{std::vector<Value*>(n), std::vector<Value*>(n), std::vector<Value*>(n),
                   b.getFalse()};
    for (size_t d = 0; d < n; ++d) {
        p.starts[d] = em.emit(*k.dims[d].start);
        p.steps[d] = em.emit(*k.dims[d].step);
        if (d == 0) continue;
        p.counts[d] = trip_count(b, p.starts[d], em.emit(*k.dims[d].end), p.steps[d]);
        p.inner_empty = b.CreateOr(p.inner_empty, b.CreateICmpEQ(p.counts[d], b.getInt64(0)));
    }
    return p;
}

void set_dim_var(FunctionEmitter& em, const ir::LoopDim& dim, Value* start, Value* step,
                 Value* index) {
    Builder& b = em.builder();
    em.set_var(*dim.var, b.CreateAdd(start, b.CreateMul(index, step)));
}

/// Several dimensions: t runs row by row. Each row decomposes t once (the divisions stay out of
/// the innermost loop, which is a plain counted loop the vectorizer can take) and runs the
/// last dimension from t's index to the row's end or t_end, whichever comes first.
void emit_rows(FunctionEmitter& em, const ir::Kernel& k, const ParallelDims& p, Value* t_start,
               Value* t_end, LaneEmitter* lanes) {
    Builder& b = em.builder();
    size_t last = k.dims.size() - 1;
    llvm::BasicBlock* pre = b.GetInsertBlock();
    llvm::BasicBlock* head = em.new_block("rows.head");
    llvm::BasicBlock* row = em.new_block("rows.body");
    llvm::BasicBlock* exit = em.new_block("rows.end");
    b.CreateCondBr(p.inner_empty, exit, head);
    b.SetInsertPoint(head);
    llvm::PHINode* t = b.CreatePHI(b.getInt64Ty(), 2, "row_t");
    b.CreateCondBr(b.CreateICmpSLT(t, t_end), row, exit);
    b.SetInsertPoint(row);
    Value* column = b.CreateURem(t, p.counts[last]);
    Value* rest = b.CreateUDiv(t, p.counts[last]);
    for (size_t d = last; d-- > 0;) {
        Value* idx = rest;
        if (d > 0) {
            idx = b.CreateURem(rest, p.counts[d]);
            rest = b.CreateUDiv(rest, p.counts[d]);
        }
        set_dim_var(em, k.dims[d], p.starts[d], p.steps[d], idx);
    }
    Value* len = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(p.counts[last], column),
                                         b.CreateSub(t_end, t));
    if (lanes) {
        lanes->emit_iterations(column, b.CreateAdd(column, len), p.starts[last], p.steps[last]);
    } else {
        emit_iterations(em, k.body, column, b.CreateAdd(column, len), [&](Value* j) {
            set_dim_var(em, k.dims[last], p.starts[last], p.steps[last], j);
        });
    }
    t->addIncoming(t_start, pre);
    t->addIncoming(b.CreateAdd(t, len), b.GetInsertBlock());
    b.CreateBr(head);
    b.SetInsertPoint(exit);
}

/// The parallel loop over the flattened t in [t_start, t_end), row-major, last dim fastest;
/// with `lanes`, its innermost loop runs W iterations at a time.
void emit_parallel_loop(FunctionEmitter& em, const ir::Kernel& k, Value* t_start, Value* t_end,
                        LaneEmitter* lanes) {
    ParallelDims p = evaluate_dims(em, k);
    if (k.dims.size() >= 2) return emit_rows(em, k, p, t_start, t_end, lanes);
    if (lanes) return lanes->emit_iterations(t_start, t_end, p.starts[0], p.steps[0]);
    emit_iterations(em, k.body, t_start, t_end, [&](Value* t) {
        if (!k.dims.empty()) set_dim_var(em, k.dims[0], p.starts[0], p.steps[0], t);
    });
}

llvm::Function* emit_kernel_function(llvm::Module& m, const ir::Kernel& k,
                                     const CpuCodegenOptions& opts, const std::string& symbol,
                                     bool inline_always = true) {
    llvm::LLVMContext& ctx = m.getContext();
    std::vector<llvm::Type*> types;
    for (const auto& p : k.params) {
        types.push_back(p.is_array() ? llvm::PointerType::get(ctx, 0)
                                     : llvm_type(ctx, p.scalar->type));
    }
    types.push_back(llvm::Type::getInt64Ty(ctx));
    types.push_back(llvm::Type::getInt64Ty(ctx));
    // The streaming copy stays a function of its own: streaming.cpp finds its stores to the
    // streamed parameter there after O3, by argument number. It is external (hidden) so that
    // O3's dead-argument elimination, which rewrites internal functions' signatures, cannot
    // renumber its arguments (a kernel that ignores a parameter used to crash here).
    auto linkage =
        inline_always ? llvm::GlobalValue::InternalLinkage : llvm::GlobalValue::ExternalLinkage;
    llvm::Function* fn = declare(m, llvm::Type::getVoidTy(ctx), types, linkage, symbol);
    if (!inline_always) fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
    fn->addFnAttr(inline_always ? llvm::Attribute::AlwaysInline : llvm::Attribute::NoInline);
    std::vector<Value*> args;
    for (auto& a : fn->args())
        args.push_back(&a);
    for (size_t i = 0; i < k.params.size(); ++i) {
        if (k.params[i].is_array() && opts.noalias) fn->addParamAttr(i, llvm::Attribute::NoAlias);
    }
    FunctionEmitter em(fn, k);
    bind_params(em, k, args);
    em.emit(k.prologue);
    // The streaming copy stays scalar: streaming.cpp's alignment argument is about the loop
    // vectorizer's stores.
    LanePlan plan = inline_always ? plan_lanes(k, opts.lanes, host_vector_bytes()) : LanePlan{};
    std::unique_ptr<LaneEmitter> lanes;
    if (plan.width) lanes = std::make_unique<LaneEmitter>(em, k, plan);
    emit_parallel_loop(em, k, args[k.params.size()], args[k.params.size() + 1], lanes.get());
    em.emit_return();
    em.finish();
    return fn;
}

llvm::Function* emit_entry(llvm::Module& m, const ir::Kernel& k, llvm::Function* kernel_fn) {
    Builder b(m.getContext());
    llvm::Function* fn = declare(m, b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()},
                                 llvm::GlobalValue::ExternalLinkage, entry_symbol(k.name));
    b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
    std::vector<Value*> args = unpack_slots(b, k, fn->getArg(0));
    args.push_back(fn->getArg(1));
    args.push_back(fn->getArg(2));
    b.CreateCall(kernel_fn, args);
    b.CreateRetVoid();
    return fn;
}

/// The streaming entry: [start, end) splits where the streamed parameter's elements reach and
/// leave 64-byte boundaries; the aligned middle runs the non-temporal copy of the kernel (a
/// whole number of 64-byte lines), head and tail the ordinary one. A base that is not even
/// element-aligned (an import at an odd offset) has no aligned middle: all of it runs ordinarily.
/// Head and tail call the ordinary entry rather than inlining the kernel: each inlined copy was
/// vectorized again, so a streaming kernel compiled four vectorized bodies instead of two
/// (measured: 3-4x the compile time of the same kernel without a write-only output).
void emit_streaming_entry(llvm::Module& m, const ir::Kernel& k, llvm::Function* entry_fn,
                          llvm::Function* nt_fn, const StreamingStore& s) {
    auto* ptr = llvm::PointerType::get(m.getContext(), 0);
    auto* i64 = llvm::Type::getInt64Ty(m.getContext());
    llvm::Function* fn = declare(m, llvm::Type::getVoidTy(m.getContext()), {ptr, i64, i64},
                                 llvm::GlobalValue::ExternalLinkage, ntentry_symbol(k.name));
    FunctionEmitter em(fn, k);
    Builder& b = em.builder();
    std::vector<Value*> args = unpack_slots(b, k, fn->getArg(0));
    bind_params(em, k, args);
    Value* start = fn->getArg(1);
    Value* end = fn->getArg(2);
    Value* esz = b.getInt64(uint64_t(s.elem_bytes));
    Value* base = b.CreatePtrToInt(args[size_t(s.param)], i64);
    Value* first =
        b.CreateAdd(base, b.CreateMul(b.CreateAdd(em.emit(*k.dims[0].start), start), esz));
    Value* head = b.CreateUDiv(b.CreateAnd(b.CreateNeg(first), b.getInt64(63)), esz);
    Value* mid_start =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateAdd(start, head), end);
    Value* lanes_mask = b.getInt64(~uint64_t(64 / s.elem_bytes - 1));
    Value* mid_end = b.CreateAdd(mid_start, b.CreateAnd(b.CreateSub(end, mid_start), lanes_mask));
    Value* odd = b.CreateICmpNE(b.CreateURem(base, esz), b.getInt64(0));
    mid_start = b.CreateSelect(odd, end, mid_start);
    mid_end = b.CreateSelect(odd, end, mid_end);
    auto call_ordinary = [&](Value* lo, Value* hi) {
        llvm::CallInst* c = b.CreateCall(entry_fn, {fn->getArg(0), lo, hi});
        c->addFnAttr(llvm::Attribute::NoInline);
    };
    call_ordinary(start, mid_start);
    std::vector<Value*> nt_args = args;
    nt_args.push_back(mid_start);
    nt_args.push_back(mid_end);
    b.CreateCall(nt_fn, nt_args);
    call_ordinary(mid_end, end);
    // Streaming stores are weakly ordered even on x86: fence them before the pool's join.
    b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
    b.CreateRetVoid();
    em.finish();
}

/// Runs the prologue again and stores the `return` value (DECISIONS G7) into *out.
void emit_result_function(llvm::Module& m, const ir::Kernel& k) {
    auto* ptr = llvm::PointerType::get(m.getContext(), 0);
    llvm::Function* fn = declare(m, llvm::Type::getVoidTy(m.getContext()), {ptr, ptr},
                                 llvm::GlobalValue::ExternalLinkage, result_symbol(k.name));
    FunctionEmitter em(fn, k);
    bind_params(em, k, unpack_slots(em.builder(), k, fn->getArg(0)));
    em.emit(k.prologue);
    Value* v = em.emit(*k.result);
    em.builder().CreateAlignedStore(v, fn->getArg(1), llvm::Align(size_bytes(k.result->type)));
    em.emit_return();
    em.finish();
}

}  // namespace

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx, const ir::Kernel& k,
                                           const CpuCodegenOptions& opts) {
    auto m = std::make_unique<llvm::Module>("tack." + encode_name(k.name), ctx);
    const HostTarget& host = host_target();
    m->setTargetTriple(host.triple);
    m->setDataLayout(host.data_layout);
    llvm::Function* kernel_fn = emit_kernel_function(*m, k, opts, kernel_symbol(k.name));
    llvm::Function* entry_fn = emit_entry(*m, k, kernel_fn);
    if (std::optional<StreamingStore> s = streaming_store(k)) {
        llvm::Function* nt_fn = emit_kernel_function(*m, k, opts, ntkernel_symbol(k.name), false);
        emit_streaming_entry(*m, k, entry_fn, nt_fn, *s);
    }
    if (k.result) emit_result_function(*m, k);
    return m;
}

}  // namespace tack::codegen::llvm_cpu::detail
