// Hand-written baseline of bench_textures: trilinear sampling of a W x H x D f32 volume (x
// fastest) at n points, the convention of CONTRACT A39 (coordinates clamped to [0, 1], 0 and 1
// at the centres of the first and last texels), OpenMP over points. The same operations in the
// same order as Tack's software sampler (compiled -O3 -march=native -ffp-contract=off: no FMA,
// as Tack's float policy), so the results agree bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tack::bench {

namespace {

struct Axis {
    int64_t i0, i1;
    float t;
};

inline Axis axis(float c, int64_t n) {
    float x = std::min(std::max(c, 0.0f), 1.0f) * static_cast<float>(n - 1);
    int64_t i0 = std::min(static_cast<int64_t>(x), std::max<int64_t>(n - 2, 0));
    return {i0, std::min(i0 + 1, n - 1), x - static_cast<float>(i0)};
}

inline float lerp(float a, float b, float t) {
    return a * (1.0f - t) + b * t;
}

}  // namespace

void trilinear_cpp(const float* vol, int64_t w, int64_t h, int64_t d, const float* pts, float* out,
                   int64_t n) {
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
        Axis ax = axis(pts[3 * p], w), ay = axis(pts[3 * p + 1], h), az = axis(pts[3 * p + 2], d);
        auto at = [&](int64_t k, int64_t j, int64_t i) { return vol[(k * h + j) * w + i]; };
        auto plane = [&](int64_t k) {
            float y0 = lerp(at(k, ay.i0, ax.i0), at(k, ay.i0, ax.i1), ax.t);
            float y1 = lerp(at(k, ay.i1, ax.i0), at(k, ay.i1, ax.i1), ax.t);
            return lerp(y0, y1, ay.t);
        };
        out[p] = lerp(plane(az.i0), plane(az.i1), az.t);
    }
}

}  // namespace tack::bench
