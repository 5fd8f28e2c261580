#pragma once
// Algorithm primitives the CPU backend runs natively behind Backend::scan_array (CONTRACT C33):
// tack.algorithms' scans call them where the backend has them and run their Tack kernels
// elsewhere (OpenCL, the GPUs).
//
// The scan is single-pass: it reads the input once and writes the output once, which is what a
// memory-bound scan can hope for (the two-pass kernels read the input twice). The input is cut
// into blocks of kScanBlock elements, small enough to stay in a core's L2 cache. Threads claim
// blocks in order from a shared counter; a thread sums its block (bringing it into the cache),
// publishes the block's total, takes the sum of all earlier blocks from its predecessors
// ("decoupled look-back": the nearest published prefix plus the totals after it), publishes its
// own prefix and scans its block from the cache. Out of place a thread never blocks on another:
// a predecessor that has not published its total within a few microseconds (descheduled on a
// loaded host) has that total computed for it, from the same elements in the same order. (In
// place the predecessor may be overwriting its block, so the others wait for it.) A thread
// that finds its block's prefix already published (it runs ahead, or alone) scans an integer
// block in one streaming pass.
//
// Results depend on n and the dtype only, never on the thread count or the timing: block b's
// prefix is always ((total_0 + total_1) + ...) + total_{b-1}, each total summed in one fixed
// lane order, and the block is scanned left to right from it. Up to kScanBlock elements a float
// scan is np.cumsum's left-to-right recurrence, bit for bit (the recurrence starts from the
// first input itself, so -0.0 stays -0.0; an exclusive scan is [0, cumsum[:-1]]); integer
// results are exact (wrapping at the dtype's width).

#include <cstdint>

#include "runtime/host_ops.hpp"
#include "tack/dtype.hpp"

namespace tack::runtime::cpu {

/// Elements per scan block: 128 KiB of i32, a fraction of any core's L2.
inline constexpr int64_t kScanBlock = 32768;

/// dst[i] = src[0] + ... + src[i] (inclusive) or src[0] + ... + src[i-1] (exclusive; dst[0] is
/// zero) for i < n, n >= 0, in `dtype`'s arithmetic; src may be dst (in place), other overlaps
/// are not allowed, and both are aligned to the element size. Returns the sum of all n inputs as
/// bits of `dtype` (the Scalar convention): the running value after the last element.
std::uint64_t scan_elements(DType dtype, const void* src, void* dst, std::int64_t n, bool inclusive,
                            const HostParallelism& par);

}  // namespace tack::runtime::cpu
