#pragma once
// Host-side array operations: conversions with the kernel language's cast rules, fills and the
// reductions of CONTRACT C14-C18. They work on host memory; Array brings device memory over
// first where it has to.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "tack/tack.hpp"

namespace tack::runtime {

/// dst[i] = cast<to>(src[i]): int->int modulo 2^N (widening by the source's signedness),
/// float->int truncating and saturating with NaN -> 0, int->float and f64->f32 to nearest.
void convert_elements(DType from, const void* src, DType to, void* dst, std::size_t n);

/// The bits (Scalar convention) of `value` converted to `to` with the same rules.
std::uint64_t convert_scalar(Scalar value, DType to);

/// Runs task(ctx, i) once for every i in [0, count), possibly concurrently; returns when all
/// are done.
using HostTaskFn = void (*)(void* ctx, int index);
/// How a reduction may spread over threads: long inputs split into `threads` contiguous chunks
/// whose partial results combine in chunk order, so a result depends only on the thread count.
struct HostParallelism {
    int threads = 1;
    std::function<void(int count, HostTaskFn task, void* ctx)> run;  // unset: serial
};

/// Writes `n` copies of an element of `to`'s size whose bits are `bits` (Scalar convention),
/// long arrays in chunks spread over `par` (one core's stores do not fill the memory bus).
void fill_elements(void* dst, DType dtype, std::uint64_t bits, std::size_t n,
                   const HostParallelism& par = {});

class Buffer;
class Backend;
/// Reductions and fills over `backend`'s host threads (the CPU pool).
HostParallelism host_parallelism(Backend& backend);
/// Fills the first `count` elements of `buffer` (of `dtype`) with `bits`, in order with its
/// queue: the backend's own fill where it has one, else through host memory after a wait.
void fill_buffer(Buffer& buffer, DType dtype, std::uint64_t bits, std::size_t count);

/// CONTRACT C16-C18: floats sum in their own precision (pairwise over 8-lane blocks), signed
/// integers in i64 and unsigned in u64, wrapping; the result converted to double. Empty: +0.0.
double sum_elements(DType dtype, const void* data, std::size_t n, const HostParallelism& par = {});
/// CONTRACT C17: any NaN propagates; min prefers -0.0 and max +0.0 on zero ties. n > 0.
double min_elements(DType dtype, const void* data, std::size_t n, const HostParallelism& par = {});
double max_elements(DType dtype, const void* data, std::size_t n, const HostParallelism& par = {});

}  // namespace tack::runtime
