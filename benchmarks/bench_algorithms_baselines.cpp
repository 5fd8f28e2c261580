// Hand-written C++ OpenMP baselines for benchmarks/bench_algorithms.py (issue 10), built as a
// shared library the benchmark loads with ctypes. Compiled like bench_cpu's baselines: -O3
// -march=native -fopenmp -ffp-contract=off (the best plain compiler flags, minus the FMA
// contraction Tack's safe-math policy also excludes). Every function runs on
// omp_get_max_threads() threads (OMP_NUM_THREADS, else every core), so the Python side sets
// OMP_NUM_THREADS to Tack's thread count before loading the library. Integer arithmetic is
// unsigned, so sums wrap as Tack's do instead of being undefined.
//
// What each baseline is (the benchmark prints the ratios):
//   algos_copy_i32            out[i] = in[i]: the memory roofline of any scan (read once, write
//                             once); each thread memcpy's its slice.
//   algos_scan_two_pass_i32   the textbook parallel inclusive scan: each thread sums its slice,
//                             one thread scans the T totals, each thread rescans its slice from
//                             its offset (reads the input twice).
//   algos_argsort_u32         stable LSD radix argsort with `digit_bits`-bit digits (8 or 11):
//                             per pass, per-thread digit histograms of the thread's slice, one
//                             offset table (digit-major, then thread), a stable scatter of keys
//                             and indices; keys and indices ping-pong between two buffers.
//   algos_sum_f32, algos_dot_f32   `omp parallel for simd reduction(+)`.
//   algos_histogram_f32       per-thread private counts merged at the end; Tack's binning rule.

#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

// Thread t's slice [lo, hi) of [0, n) in nt even slices.
struct Slice {
    int64_t lo, hi;
};
Slice slice_of(int64_t n, int t, int nt) {
    return {n * t / nt, n * (t + 1) / nt};
}

}  // namespace

extern "C" {

int algos_threads() {
    return omp_get_max_threads();
}

void algos_copy_i32(const int32_t* in, int32_t* out, int64_t n) {
#pragma omp parallel
    {
        // memcpy: the C library's fastest copy (non-temporal stores for large slices).
        const Slice s = slice_of(n, omp_get_thread_num(), omp_get_num_threads());
        std::memcpy(out + s.lo, in + s.lo, static_cast<std::size_t>(s.hi - s.lo) * sizeof *in);
    }
}

void algos_scan_two_pass_i32(const int32_t* in, int32_t* out, int64_t n) {
    const auto* src = reinterpret_cast<const uint32_t*>(in);
    auto* dst = reinterpret_cast<uint32_t*>(out);
    std::vector<uint32_t> offsets(omp_get_max_threads() + 1, 0);
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const Slice s = slice_of(n, t, nt);
        uint32_t total = 0;
#pragma omp simd reduction(+ : total)
        for (int64_t i = s.lo; i < s.hi; ++i)
            total += src[i];
        offsets[t + 1] = total;
#pragma omp barrier
#pragma omp single
        for (int k = 0; k < nt; ++k)
            offsets[k + 1] += offsets[k];
        // (the single's implicit barrier publishes the offsets)
        uint32_t run = offsets[t];
        for (int64_t i = s.lo; i < s.hi; ++i) {
            run += src[i];
            dst[i] = run;
        }
    }
}

void algos_argsort_u32(const uint32_t* keys, int32_t* perm, int64_t n, int digit_bits) {
    const int radix = 1 << digit_bits;
    const int passes = (32 + digit_bits - 1) / digit_bits;
    const int nt = omp_get_max_threads();
    std::vector<uint32_t> kbuf[2] = {std::vector<uint32_t>(n), std::vector<uint32_t>(n)};
    std::vector<int32_t> pbuf(n);
    // counts[t * radix + d]: thread t's count of digit d, then its first output slot.
    std::vector<int64_t> counts(static_cast<std::size_t>(nt) * radix);
    // Pass p writes indices to perm when (passes - 1 - p) is even, so the last one lands there.
    int32_t* pout[2] = {perm, pbuf.data()};
    const uint32_t* src_keys = keys;
    const int32_t* src_perm = nullptr;
    for (int p = 0; p < passes; ++p) {
        const int shift = p * digit_bits;
        const uint32_t mask = static_cast<uint32_t>(radix - 1);
        uint32_t* dst_keys = kbuf[p % 2].data();
        int32_t* dst_perm = pout[(passes - 1 - p) % 2];
#pragma omp parallel num_threads(nt)
        {
            const int t = omp_get_thread_num();
            const Slice s = slice_of(n, t, nt);
            int64_t* row = &counts[static_cast<std::size_t>(t) * radix];
            for (int d = 0; d < radix; ++d)
                row[d] = 0;
            for (int64_t i = s.lo; i < s.hi; ++i)
                ++row[(src_keys[i] >> shift) & mask];
#pragma omp barrier
#pragma omp single
            {
                int64_t at = 0;
                for (int d = 0; d < radix; ++d) {
                    for (int u = 0; u < nt; ++u) {
                        const int64_t c = counts[static_cast<std::size_t>(u) * radix + d];
                        counts[static_cast<std::size_t>(u) * radix + d] = at;
                        at += c;
                    }
                }
            }
            for (int64_t i = s.lo; i < s.hi; ++i) {
                const uint32_t k = src_keys[i];
                const int64_t pos = row[(k >> shift) & mask]++;
                dst_keys[pos] = k;
                dst_perm[pos] = src_perm ? src_perm[i] : static_cast<int32_t>(i);
            }
        }
        src_keys = dst_keys;
        src_perm = dst_perm;
    }
}

float algos_sum_f32(const float* x, int64_t n) {
    float total = 0.0f;
#pragma omp parallel for simd schedule(static) reduction(+ : total)
    for (int64_t i = 0; i < n; ++i)
        total += x[i];
    return total;
}

float algos_dot_f32(const float* x, const float* y, int64_t n) {
    float total = 0.0f;
#pragma omp parallel for simd schedule(static) reduction(+ : total)
    for (int64_t i = 0; i < n; ++i)
        total += x[i] * y[i];
    return total;
}

void algos_histogram_f32(const float* x, int64_t n, float lo, float inv_width, int32_t bins,
                         int32_t* counts) {
    for (int32_t b = 0; b < bins; ++b)
        counts[b] = 0;
#pragma omp parallel
    {
        std::vector<int32_t> local(bins, 0);
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; ++i) {
            // Tack's rule (CONTRACT C32): int((x - lo) * inv_width) clamped into [0, bins - 1];
            // clamped in float first, so the conversion never overflows (NaN lands in bin 0).
            float f = (x[i] - lo) * inv_width;
            f = f >= 0.0f ? f : 0.0f;
            int32_t b = f >= static_cast<float>(bins) ? bins - 1 : static_cast<int32_t>(f);
            ++local[b];
        }
#pragma omp critical
        for (int32_t b = 0; b < bins; ++b)
            counts[b] += local[b];
    }
}

}  // extern "C"
