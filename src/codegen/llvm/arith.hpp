#pragma once
// Scalar operations of the IR SEMANTICS block (ir.hpp) as LLVM IR. Every helper is UB-free for
// every input: no nsw/nuw, no division by zero or MIN / -1, shift counts masked, saturating
// float->int conversion, no fast-math flags. The helpers also take <N x T> operands (the lane
// emitter, lanes.cpp), lane by lane, except integer pow with a vector exponent and math_call()
// of a libm function.

#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "ir/ir.hpp"

namespace tack::codegen::llvm_cpu::detail {

using Builder = llvm::IRBuilder<>;

llvm::Type* llvm_type(llvm::LLVMContext& ctx, DType t);

/// `v != 0` as i1 (floats: unordered, so NaN is true).
llvm::Value* truthy(Builder& b, llvm::Value* v, DType t);

llvm::Value* cast_value(Builder& b, llvm::Value* v, DType from, DType to);

/// Compare of two values of type `t`, as i1.
llvm::Value* compare(Builder& b, ir::CompareOp op, llvm::Value* x, llvm::Value* y, DType t);

/// Binary op of result type `t`; `y_type` is the right operand's type (differs for shifts and
/// integer pow). May add basic blocks (integer pow with a dynamic exponent).
llvm::Value* binary(Builder& b, ir::BinaryOp op, DType t, llvm::Value* x, llvm::Value* y,
                    DType y_type);

/// Math builtin of type `t`.
llvm::Value* math_call(Builder& b, ir::MathFn fn, DType t, const std::vector<llvm::Value*>& args);

/// Iterations of `for v = start; v < end; v += step` (i64 operands) as u64, without overflow;
/// 0 when end <= start or step <= 0.
llvm::Value* trip_count(Builder& b, llvm::Value* start, llvm::Value* end, llvm::Value* step);

/// Whether math_call() calls a libm function for `fn` on `t` (scalar operands only) rather
/// than an intrinsic (which also takes vectors).
bool math_calls_libm(ir::MathFn fn, DType t);

/// The atomicrmw operation of an IR atomic on elements of type `t`.
llvm::AtomicRMWInst::BinOp atomic_binop(ir::AtomicOp op, DType t);

}  // namespace tack::codegen::llvm_cpu::detail
