#pragma once
// Host-side array operations: conversions with the kernel language's cast rules, fills and the
// reductions of CONTRACT C14-C18. They work on host memory; Array brings device memory over
// first where it has to.

#include <cstddef>
#include <cstdint>

#include "tack/tack.hpp"

namespace tack::runtime {

/// dst[i] = cast<to>(src[i]): int->int modulo 2^N (widening by the source's signedness),
/// float->int truncating and saturating with NaN -> 0, int->float and f64->f32 to nearest.
void convert_elements(DType from, const void* src, DType to, void* dst, std::size_t n);

/// The bits (Scalar convention) of `value` converted to `to` with the same rules.
std::uint64_t convert_scalar(Scalar value, DType to);

/// Writes `n` copies of an element of `to`'s size whose bits are `bits` (Scalar convention).
void fill_elements(void* dst, DType dtype, std::uint64_t bits, std::size_t n);

/// CONTRACT C16-C18: floats sum in their own precision (pairwise over 8-lane blocks), signed
/// integers in i64 and unsigned in u64, wrapping; the result converted to double. Empty: +0.0.
double sum_elements(DType dtype, const void* data, std::size_t n);
/// CONTRACT C17: any NaN propagates; min prefers -0.0 and max +0.0 on zero ties. n > 0.
double min_elements(DType dtype, const void* data, std::size_t n);
double max_elements(DType dtype, const void* data, std::size_t n);

}  // namespace tack::runtime
