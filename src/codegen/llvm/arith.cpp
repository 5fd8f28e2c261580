// Scalar semantics (ir.hpp SEMANTICS) as LLVM IR: tables of spellings, plus the few operations
// that need more than one instruction (floor division, float divmod, shifts, integer pow).

#include "codegen/llvm/arith.hpp"

#include <iterator>
#include <string>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "diag/diagnostic.hpp"

namespace tack::codegen::llvm_cpu::detail {
namespace {

using llvm::ConstantFP;
using llvm::ConstantInt;
using llvm::Value;
namespace Intrinsic = llvm::Intrinsic;

llvm::Constant* int_const(Value* like, uint64_t v) {
    return ConstantInt::get(like->getType(), v);
}
llvm::Constant* fp_const(Value* like, double v) {
    return ConstantFP::get(like->getType(), v);
}

Value* intrinsic(Builder& b, Intrinsic::ID id, std::initializer_list<Value*> args) {
    return b.CreateIntrinsic(id, {(*args.begin())->getType()}, args);
}

// ---- integer floor division and modulo (B11 + DECISIONS: /0 -> 0, MIN // -1 -> MIN) ----------

Value* int_divmod(Builder& b, Value* x, Value* y, DType t, bool want_mod) {
    Value* zero = int_const(x, 0);
    Value* one = int_const(x, 1);
    Value* by_zero = b.CreateICmpEQ(y, zero);
    if (!is_signed(t)) {
        Value* safe = b.CreateSelect(by_zero, one, y);
        Value* r = want_mod ? b.CreateURem(x, safe) : b.CreateUDiv(x, safe);
        return b.CreateSelect(by_zero, zero, r);
    }
    // A divisor of 1 in place of 0 and of -1 (with MIN) keeps sdiv/srem defined; MIN / 1 = MIN
    // and MIN % 1 = 0 are already the results we want for MIN // -1 and MIN % -1.
    Value* min = ConstantInt::get(x->getType(), llvm::APInt::getSignedMinValue(bits(t)));
    Value* overflow =
        b.CreateAnd(b.CreateICmpEQ(x, min), b.CreateICmpEQ(y, int_const(x, ~uint64_t{0})));
    Value* safe = b.CreateSelect(b.CreateOr(by_zero, overflow), one, y);
    Value* q = b.CreateSDiv(x, safe);
    Value* r = b.CreateSRem(x, safe);
    // Truncated to floored: step down when the remainder is nonzero and its sign differs from y's.
    Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateICmpSLT(b.CreateXor(r, y), zero));
    Value* res = want_mod ? b.CreateSelect(adjust, b.CreateAdd(r, y), r)
                          : b.CreateSelect(adjust, b.CreateSub(q, one), q);
    return b.CreateSelect(by_zero, zero, res);
}

// ---- float floor division and modulo: CPython's float_divmod (B18) ---------------------------

struct FloatDivMod {
    Value* mod;  // remainder with the divisor's sign (fixed up)
    Value* div;  // (x - fmod) / y, fixed up, not yet snapped
};

FloatDivMod float_divmod_core(Builder& b, Value* x, Value* y) {
    Value* zero = fp_const(x, 0.0);
    Value* mod = b.CreateFRem(x, y);
    Value* div = b.CreateFDiv(b.CreateFSub(x, mod), y);
    Value* mod_nonzero = b.CreateFCmpUNE(mod, zero);
    Value* signs_differ = b.CreateXor(b.CreateFCmpOLT(y, zero), b.CreateFCmpOLT(mod, zero));
    Value* fix = b.CreateAnd(mod_nonzero, signs_differ);
    Value* fixed_mod = b.CreateSelect(fix, b.CreateFAdd(mod, y), mod);
    Value* signed_zero = intrinsic(b, Intrinsic::copysign, {zero, y});
    return {b.CreateSelect(mod_nonzero, fixed_mod, signed_zero),
            b.CreateSelect(fix, b.CreateFSub(div, fp_const(x, 1.0)), div)};
}

Value* float_mod(Builder& b, Value* x, Value* y) {
    return float_divmod_core(b, x, y).mod;
}

Value* float_floor_div(Builder& b, Value* x, Value* y) {
    Value* div = float_divmod_core(b, x, y).div;
    Value* floored = intrinsic(b, Intrinsic::floor, {div});
    Value* round_up = b.CreateFCmpOGT(b.CreateFSub(div, floored), fp_const(x, 0.5));
    Value* snapped = b.CreateSelect(round_up, b.CreateFAdd(floored, fp_const(x, 1.0)), floored);
    // A zero quotient takes the sign of the true quotient.
    Value* zero_quotient =
        intrinsic(b, Intrinsic::copysign, {fp_const(x, 0.0), b.CreateFDiv(x, y)});
    return b.CreateSelect(b.CreateFCmpUNE(div, fp_const(x, 0.0)), snapped, zero_quotient);
}

// ---- shifts and integer pow ------------------------------------------------------------------

Value* shift(Builder& b, Value* x, Value* count, DType t, bool left) {
    // Low bits survive zext/trunc and the width is a power of two, so this is count mod N.
    Value* n = b.CreateAnd(b.CreateZExtOrTrunc(count, x->getType()), int_const(x, bits(t) - 1));
    if (left) return b.CreateShl(x, n);
    return is_signed(t) ? b.CreateAShr(x, n) : b.CreateLShr(x, n);
}

Value* pow_constant_exponent(Builder& b, Value* x, uint64_t e) {
    Value* result = int_const(x, 1);
    for (Value* base = x; e != 0; e >>= 1) {
        if (e & 1) result = b.CreateMul(result, base);
        if (e > 1) base = b.CreateMul(base, base);
    }
    return result;
}

// Square-and-multiply over the exponent's bits (zero-extended), at most 64 iterations.
Value* int_pow(Builder& b, Value* x, Value* e) {
    Value* e64 = b.CreateZExtOrTrunc(e, b.getInt64Ty());
    if (auto* c = llvm::dyn_cast<ConstantInt>(e64)) {
        return pow_constant_exponent(b, x, c->getZExtValue());
    }
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(b.getContext(), "pow.head", fn);
    auto* body = llvm::BasicBlock::Create(b.getContext(), "pow.body", fn);
    auto* done = llvm::BasicBlock::Create(b.getContext(), "pow.done", fn);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    llvm::PHINode* result = b.CreatePHI(x->getType(), 2);
    llvm::PHINode* base = b.CreatePHI(x->getType(), 2);
    llvm::PHINode* bits_left = b.CreatePHI(b.getInt64Ty(), 2);
    b.CreateCondBr(b.CreateICmpEQ(bits_left, b.getInt64(0)), done, body);
    b.SetInsertPoint(body);
    Value* odd = b.CreateTrunc(bits_left, b.getInt1Ty());
    Value* next_result = b.CreateSelect(odd, b.CreateMul(result, base), result);
    Value* next_base = b.CreateMul(base, base);
    Value* next_bits = b.CreateLShr(bits_left, b.getInt64(1));
    b.CreateBr(head);
    result->addIncoming(int_const(x, 1), pre);
    result->addIncoming(next_result, body);
    base->addIncoming(x, pre);
    base->addIncoming(next_base, body);
    bits_left->addIncoming(e64, pre);
    bits_left->addIncoming(next_bits, body);
    b.SetInsertPoint(done);
    return result;
}

// ---- binary operator table -------------------------------------------------------------------

using BinFn = Value* (*)(Builder&, Value*, Value*, DType);

struct BinarySpelling {
    ir::BinaryOp op;
    BinFn on_int;    // nullptr: not defined on integers
    BinFn on_float;  // nullptr: not defined on floats
};

#define TACK_BIN(expr) [](Builder& b, Value* x, Value* y, DType t) -> Value* { return expr; }

const BinarySpelling kBinary[] = {
    {ir::BinaryOp::Add, TACK_BIN(b.CreateAdd(x, y)), TACK_BIN(b.CreateFAdd(x, y))},
    {ir::BinaryOp::Sub, TACK_BIN(b.CreateSub(x, y)), TACK_BIN(b.CreateFSub(x, y))},
    {ir::BinaryOp::Mul, TACK_BIN(b.CreateMul(x, y)), TACK_BIN(b.CreateFMul(x, y))},
    {ir::BinaryOp::Div, nullptr, TACK_BIN(b.CreateFDiv(x, y))},
    {ir::BinaryOp::FloorDiv, TACK_BIN(int_divmod(b, x, y, t, false)),
     TACK_BIN(float_floor_div(b, x, y))},
    {ir::BinaryOp::Mod, TACK_BIN(int_divmod(b, x, y, t, true)), TACK_BIN(float_mod(b, x, y))},
    {ir::BinaryOp::Pow, TACK_BIN(int_pow(b, x, y)), TACK_BIN(intrinsic(b, Intrinsic::pow, {x, y}))},
    {ir::BinaryOp::Shl, TACK_BIN(shift(b, x, y, t, true)), nullptr},
    {ir::BinaryOp::Shr, TACK_BIN(shift(b, x, y, t, false)), nullptr},
    {ir::BinaryOp::BitAnd, TACK_BIN(b.CreateAnd(x, y)), nullptr},
    {ir::BinaryOp::BitOr, TACK_BIN(b.CreateOr(x, y)), nullptr},
    {ir::BinaryOp::BitXor, TACK_BIN(b.CreateXor(x, y)), nullptr},
    {ir::BinaryOp::Min,
     TACK_BIN(intrinsic(b, is_signed(t) ? Intrinsic::smin : Intrinsic::umin, {x, y})),
     TACK_BIN(intrinsic(b, Intrinsic::minnum, {x, y}))},
    {ir::BinaryOp::Max,
     TACK_BIN(intrinsic(b, is_signed(t) ? Intrinsic::smax : Intrinsic::umax, {x, y})),
     TACK_BIN(intrinsic(b, Intrinsic::maxnum, {x, y}))},
};
#undef TACK_BIN

// ---- math builtins ---------------------------------------------------------------------------

struct MathSpelling {
    ir::MathFn fn;
    Intrinsic::ID intrinsic;  // not_intrinsic: call the libm function `libm` ("f" for f32)
    const char* libm;
};

// One row per ir::MathFn, in its order (TACK_IR_MATH), checked below.
constexpr MathSpelling kMath[] = {
    {ir::MathFn::Sqrt, Intrinsic::sqrt, nullptr},
    {ir::MathFn::Sin, Intrinsic::sin, nullptr},
    {ir::MathFn::Cos, Intrinsic::cos, nullptr},
    {ir::MathFn::Tan, Intrinsic::not_intrinsic, "tan"},
    {ir::MathFn::Asin, Intrinsic::not_intrinsic, "asin"},
    {ir::MathFn::Acos, Intrinsic::not_intrinsic, "acos"},
    {ir::MathFn::Atan, Intrinsic::not_intrinsic, "atan"},
    {ir::MathFn::Atan2, Intrinsic::not_intrinsic, "atan2"},
    {ir::MathFn::Sinh, Intrinsic::not_intrinsic, "sinh"},
    {ir::MathFn::Cosh, Intrinsic::not_intrinsic, "cosh"},
    {ir::MathFn::Tanh, Intrinsic::not_intrinsic, "tanh"},
    {ir::MathFn::Exp, Intrinsic::exp, nullptr},
    {ir::MathFn::Exp2, Intrinsic::exp2, nullptr},
    {ir::MathFn::Log, Intrinsic::log, nullptr},
    {ir::MathFn::Log2, Intrinsic::log2, nullptr},
    {ir::MathFn::Log10, Intrinsic::log10, nullptr},
    {ir::MathFn::Floor, Intrinsic::floor, nullptr},
    {ir::MathFn::Ceil, Intrinsic::ceil, nullptr},
    {ir::MathFn::Trunc, Intrinsic::trunc, nullptr},
    {ir::MathFn::Round, Intrinsic::roundeven, nullptr},
    {ir::MathFn::Abs, Intrinsic::fabs, nullptr},
    {ir::MathFn::Pow, Intrinsic::pow, nullptr},
    {ir::MathFn::Fmod, Intrinsic::not_intrinsic, "fmod"},
    {ir::MathFn::Copysign, Intrinsic::copysign, nullptr},
};

constexpr std::size_t kNumMathFns = 0
#define TACK_X(e, n, a) +1
    TACK_IR_MATH(TACK_X)
#undef TACK_X
    ;

constexpr bool math_rows_in_order() {
    for (std::size_t i = 0; i < std::size(kMath); ++i) {
        if (kMath[i].fn != static_cast<ir::MathFn>(i)) return false;
    }
    return std::size(kMath) == kNumMathFns;
}
static_assert(math_rows_in_order(), "kMath has one row per ir::MathFn, in TACK_IR_MATH's order");

Value* call_libm(Builder& b, const char* name, DType t, const std::vector<Value*>& args) {
    llvm::Type* ty = llvm_type(b.getContext(), t);
    auto* fty = llvm::FunctionType::get(ty, std::vector<llvm::Type*>(args.size(), ty), false);
    std::string symbol = std::string(name) + (t == DType::f32 ? "f" : "");
    llvm::FunctionCallee callee = b.GetInsertBlock()->getModule()->getOrInsertFunction(symbol, fty);
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        // errno is the only memory libm touches and no kernel can read it.
        f->setDoesNotThrow();
        f->setWillReturn();
        f->setDoesNotAccessMemory();
    }
    return b.CreateCall(callee, args);
}

[[noreturn]] void bad_operands(const std::string& what, DType t) {
    throw diag::InternalError("internal error: LLVM codegen: " + what + " on " + name(t));
}

}  // namespace

llvm::Type* llvm_type(llvm::LLVMContext& ctx, DType t) {
    if (t == DType::f32) return llvm::Type::getFloatTy(ctx);
    if (t == DType::f64) return llvm::Type::getDoubleTy(ctx);
    return llvm::Type::getIntNTy(ctx, bits(t));
}

Value* truthy(Builder& b, Value* v, DType t) {
    if (is_float(t)) return b.CreateFCmpUNE(v, fp_const(v, 0.0));
    return b.CreateICmpNE(v, int_const(v, 0));
}

Value* cast_value(Builder& b, Value* v, DType from, DType to) {
    if (from == to) return v;
    llvm::Type* ty = llvm_type(b.getContext(), to);
    if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType()))
        ty = llvm::VectorType::get(ty, vt->getElementCount());
    if (is_integer(from) && is_integer(to)) {
        return is_signed(from) ? b.CreateSExtOrTrunc(v, ty) : b.CreateZExtOrTrunc(v, ty);
    }
    if (is_float(from) && is_float(to)) return b.CreateFPCast(v, ty);
    if (is_float(from)) {
        // Saturating, NaN -> 0: exactly the DECISIONS semantics, and never poison.
        auto id = is_signed(to) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat;
        return b.CreateIntrinsic(id, {ty, v->getType()}, {v});
    }
    return is_signed(from) ? b.CreateSIToFP(v, ty) : b.CreateUIToFP(v, ty);
}

Value* compare(Builder& b, ir::CompareOp op, Value* x, Value* y, DType t) {
    using P = llvm::CmpInst::Predicate;
    struct Predicates {
        P on_float, on_signed, on_unsigned;
    };
    // Float compares are ordered except Ne (NaN != NaN is true).
    static const Predicates kPredicates[] = {
        {P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ},   {P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE},
        {P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT}, {P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE},
        {P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT}, {P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE},
    };
    const Predicates& p = kPredicates[static_cast<int>(op)];
    if (is_float(t)) return b.CreateFCmp(p.on_float, x, y);
    return b.CreateICmp(is_signed(t) ? p.on_signed : p.on_unsigned, x, y);
}

Value* binary(Builder& b, ir::BinaryOp op, DType t, Value* x, Value* y, DType y_type) {
    const BinarySpelling& s = kBinary[static_cast<int>(op)];
    TACK_ASSERT(s.op == op, "LLVM codegen: binary table out of order");
    BinFn fn = is_float(t) ? s.on_float : s.on_int;
    if (!fn) bad_operands("binary " + ir::to_string(op), t);
    return fn(b, x, y, t);
}

Value* math_call(Builder& b, ir::MathFn fn, DType t, const std::vector<Value*>& args) {
    const MathSpelling& s = kMath[static_cast<int>(fn)];
    TACK_ASSERT(s.fn == fn, "LLVM codegen: math table out of order");
    if (fn == ir::MathFn::Abs && is_integer(t)) {
        // abs(MIN) wraps to MIN (B9): the intrinsic with is_int_min_poison = false.
        if (!is_signed(t)) return args[0];
        return b.CreateIntrinsic(Intrinsic::abs, {args[0]->getType()}, {args[0], b.getFalse()});
    }
    if (is_integer(t)) bad_operands(std::string("math ") + ir::to_string(fn), t);
    if (s.intrinsic == Intrinsic::not_intrinsic) return call_libm(b, s.libm, t, args);
    return b.CreateIntrinsic(s.intrinsic, {args[0]->getType()}, args);
}

Value* trip_count(Builder& b, Value* start, Value* end, Value* step) {
    Value* zero = int_const(start, 0);
    Value* runs = b.CreateAnd(b.CreateICmpSGT(step, zero), b.CreateICmpSGT(end, start));
    Value* distance = b.CreateSub(end, start);  // exact in u64 when end > start
    Value* safe_step = b.CreateSelect(runs, step, int_const(start, 1));
    // ceil(distance / step) without forming distance + step - 1, which could wrap.
    Value* q = b.CreateUDiv(distance, safe_step);
    Value* partial = b.CreateICmpNE(b.CreateURem(distance, safe_step), zero);
    Value* count = b.CreateAdd(q, b.CreateZExt(partial, start->getType()));
    return b.CreateSelect(runs, count, zero);
}

bool math_calls_libm(ir::MathFn fn, DType t) {
    return is_float(t) && kMath[static_cast<int>(fn)].intrinsic == Intrinsic::not_intrinsic;
}

llvm::AtomicRMWInst::BinOp atomic_binop(ir::AtomicOp op, DType t) {
    using Op = llvm::AtomicRMWInst::BinOp;
    struct Spelling {
        Op on_signed, on_unsigned, on_float;
    };
    static const Spelling kAtomic[] = {
        {Op::Add, Op::Add, Op::FAdd},   // AtomicOp::Add (integers wrap)
        {Op::Min, Op::UMin, Op::FMin},  // AtomicOp::Min
        {Op::Max, Op::UMax, Op::FMax},  // AtomicOp::Max
    };
    const Spelling& sp = kAtomic[static_cast<int>(op)];
    return is_float(t) ? sp.on_float : is_signed(t) ? sp.on_signed : sp.on_unsigned;
}

}  // namespace tack::codegen::llvm_cpu::detail
