#pragma once
// Hand-written C++ OpenMP baselines for bench_cpu. bench_cpu_baselines.cpp is compiled with
// -O3 -march=native -fopenmp -ffp-contract=off: the best a C++ programmer gets from the
// compiler, minus fused multiply-add, which Tack's safe-math policy (CONTRACT B20) also forbids
// and which would make the results differ from Tack's in the last bit.

#include <cstdint>

namespace tack::bench {

/// Threads an OpenMP parallel region uses by default.
int omp_threads();

/// y[i] = a * x[i] + y[i].
void omp_saxpy(const float* x, float* y, float a, int64_t n);
/// a[i] = b[i] + s * c[i].
void omp_triad(float* a, const float* b, const float* c, float s, int64_t n);
/// Sum of x[0..n) (an OpenMP `simd` reduction: lanes and threads may reorder the additions).
float omp_sum(const float* x, int64_t n);
/// Escape-time counts, pixel p = row * width + col at c = (x0 + dx*col) + (y0 + dy*row) i;
/// rows are scheduled dynamically (`dynamic` true) or in num_threads static blocks.
void omp_mandelbrot(int32_t* out, int64_t width, int64_t height, float x0, float dx, float y0,
                    float dy, int32_t max_iter, bool dynamic);

}  // namespace tack::bench
