// The C++ OpenMP loops bench_cpu compares Tack against (see bench_cpu_baselines.hpp).
#include "bench_cpu_baselines.hpp"

#include <omp.h>

namespace tack::bench {

namespace {

int32_t escape_count(float cr, float ci, int32_t max_iter) {
    float zr = 0.0f, zi = 0.0f;
    int32_t it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    return it;
}

void mandelbrot_row(int32_t* out, int64_t width, int64_t row, float x0, float dx, float y0,
                    float dy, int32_t max_iter) {
    const float ci = y0 + dy * static_cast<float>(row);
    for (int64_t col = 0; col < width; ++col) {
        out[row * width + col] = escape_count(x0 + dx * static_cast<float>(col), ci, max_iter);
    }
}

}  // namespace

int omp_threads() {
    return omp_get_max_threads();
}

void omp_saxpy(const float* x, float* y, float a, int64_t n) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i)
        y[i] = a * x[i] + y[i];
}

void omp_triad(float* a, const float* b, const float* c, float s, int64_t n) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}

float omp_sum(const float* x, int64_t n) {
    float total = 0.0f;
#pragma omp parallel for simd schedule(static) reduction(+ : total)
    for (int64_t i = 0; i < n; ++i)
        total += x[i];
    return total;
}

void omp_mandelbrot(int32_t* out, int64_t width, int64_t height, float x0, float dx, float y0,
                    float dy, int32_t max_iter, bool dynamic) {
    if (dynamic) {
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t row = 0; row < height; ++row) {
            mandelbrot_row(out, width, row, x0, dx, y0, dy, max_iter);
        }
    } else {
#pragma omp parallel for schedule(static)
        for (int64_t row = 0; row < height; ++row) {
            mandelbrot_row(out, width, row, x0, dx, y0, dy, max_iter);
        }
    }
}

}  // namespace tack::bench
