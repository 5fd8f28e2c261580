#pragma once
// The semantics helpers of generated C (private to the emitter): each is a static inline
// function text, emitted in the prelude only when the kernel uses it. They keep every
// operation of ir.hpp's SEMANTICS free of C undefined behavior: integer arithmetic runs in
// unsigned carriers of at least 32 bits (C promotes narrower operands to a signed int, whose
// overflow is undefined), divisors and shift counts are guarded or masked, and float->int
// conversion saturates before the cast (an out-of-range cast is undefined).

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "codegen/cfamily/dialect.hpp"

namespace tack::codegen::cfamily::detail {

struct Helper {
    std::string name;
    std::string text;
};

/// Replaces each `{key}` of `pattern` whose key is listed; other braces stay (C code).
std::string fill(std::string_view pattern,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> subs);

/// The dialect's spelling of a C math function at type t (sqrtf on CUDA for f32).
std::string math_name(const Dialect& d, std::string_view base, DType t);
/// An integer literal of type t holding `bits` (the value mod 2^N, zero-extended).
std::string int_literal(const Dialect& d, DType t, uint64_t bits);
/// A float literal of type t (finite values round-trip exactly; inf/NaN by bit pattern).
std::string float_literal(const Dialect& d, DType t, double v);
/// The unsigned type of at least 32 bits that carries t's arithmetic.
std::string_view unsigned_carrier(const Dialect& d, DType t);

enum class IntOp { Add, Sub, Mul, Neg, FloorDiv, Mod, Pow, Shl, Shr, Abs, Min, Max };

/// tack_<op>_<t>; Pow takes its exponent as u64, Shl/Shr their count as u32.
Helper int_helper(const Dialect& d, IntOp op, DType t);
/// tack_loop_add_<t> for i64/u64, declared with the dialect's loop_add64_decl (CONTRACT B17).
Helper loop_add64_helper(const Dialect& d, DType t);
/// tack_floordiv_<f>, tack_mod_<f> (CPython's float_divmod).
Helper float_divmod_helper(const Dialect& d, bool floordiv, DType f);
/// tack_cvt_<t>_<f>: saturating truncation, NaN -> 0.
Helper float_to_int_helper(const Dialect& d, DType to, DType from);
/// tack_block_min_f32 / tack_block_max_f32: extrema with CONTRACT C17's NaN and zero rules.
Helper block_extremum_helper(const Dialect& d, bool is_min);

/// tack_table_index: i in [0, n) stays, anything else is n - 1 (constant tables, ir.hpp).
Helper table_index_helper(const Dialect& d);

enum class AtomicKind { Add, Min, Max };
/// tack_atomic_<op>_<t>: a compare-and-swap loop on t's own width; returns the old value.
Helper atomic_cas_helper(const Dialect& d, AtomicKind op, DType t);

}  // namespace tack::codegen::cfamily::detail
