#pragma once
// The IR's scalar semantics (ir.hpp SEMANTICS block) as plain C++ on constants, in ONE place:
// constant folding, the host-side evaluation of loop ranges and the tests all call these.
// Everything here is total: no input traps or hits C++ undefined behaviour.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ir/ir.hpp"

namespace tack::ir {

/// A scalar of one of the ten types. Integers live in `bits` reduced modulo 2^N and
/// zero-extended; floats live in `f` (an f32 value is exactly representable in float).
struct Value {
    ScalarType type = DType::i32;
    uint64_t bits = 0;
    double f = 0;

    static Value of_int(ScalarType t, uint64_t value_mod_2_64);
    static Value of_i64(int64_t v) { return of_int(DType::i64, static_cast<uint64_t>(v)); }
    static Value of_float(ScalarType t, double v);  // rounds once to float for f32

    bool is_float() const { return tack::is_float(type); }
    int64_t as_signed() const;              // sign-extended (or zero-extended for unsigned types)
    bool truthy() const;                    // != 0; NaN is true
    bool operator==(const Value& o) const;  // same type and same bits (NaN == NaN, 0 != -0)
};

/// Neg, BitNot (integers), Not (-> i32 0/1).
Value eval_unary(UnaryOp op, const Value& a);
/// The result has a's type. For Shl/Shr/Pow-int, b may be any integer type; otherwise b must
/// have a's type. Float Pow is not computed here (it is a libm call): returns nullopt.
std::optional<Value> eval_binary(BinaryOp op, const Value& a, const Value& b);
/// i32 0/1; float compares are ordered except Ne.
Value eval_compare(CompareOp op, const Value& a, const Value& b);
/// i32 0/1 of the truthiness of both operands.
Value eval_logical(LogicalOp op, const Value& a, const Value& b);
/// Wrap int->int (widening by source signedness), saturating float->int with NaN -> 0,
/// round-to-nearest int->float and f64->f32.
Value eval_cast(ScalarType to, const Value& v);
/// The math builtins whose result is exact IEEE (sqrt, floor, ceil, trunc, abs, fmod,
/// copysign); nullopt for the rest (libm accuracy differs between targets).
std::optional<Value> eval_call(MathFn fn, const std::vector<Value>& args);

/// The constant value of an IntImm / FloatImm, nullopt for any other node.
std::optional<Value> constant_value(const ExprPtr& e);
/// An IntImm / FloatImm holding `v`.
ExprPtr make_constant(const Value& v, SourceRange r = {});

/// Evaluates a pure expression on the host (loop ranges, tests). `var` gives each VarRef's
/// value, `dim` each ArrayDim's extent. Select and Logical evaluate only what the IR would.
/// Throws diag::InternalError on nodes the host cannot evaluate (Load, ThreadId, float Pow and
/// the math calls eval_call declines).
using VarValueFn = std::function<Value(const Var&)>;
using DimValueFn = std::function<int64_t(const Buffer&, int dim)>;
Value eval_expr(const ExprPtr& e, const VarValueFn& var, const DimValueFn& dim);

/// CPython's float_divmod in T (float or double): {floor quotient, remainder}.
template <class T>
struct FloatDivMod {
    T div, mod;
};
FloatDivMod<double> float_divmod(double a, double b);
FloatDivMod<float> float_divmod(float a, float b);

}  // namespace tack::ir
