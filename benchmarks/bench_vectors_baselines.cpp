// Hand-written baseline of bench_vectors: the n-body step as a C++ loop over
// array-of-structs positions, OpenMP over bodies, the same operation order as the Tack kernels
// (compiled -O3 -march=native -ffp-contract=off: no FMA, as Tack's float policy).
#include <cmath>
#include <cstdint>

namespace tack::bench {

void nbody_step_cpp(const float* pos, float* vel, const float* mass, int64_t n, float dt,
                    float soft) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
        float ax = 0, ay = 0, az = 0;
        for (int64_t j = 0; j < n; ++j) {
            float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
            float r2 = dx * dx + dy * dy + dz * dz + soft;
            float s = mass[j] / (r2 * std::sqrt(r2));
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        vel[3 * i] += ax * dt;
        vel[3 * i + 1] += ay * dt;
        vel[3 * i + 2] += az * dt;
    }
}

}  // namespace tack::bench
