// Vector benchmark (issue 8): scalarization must cost nothing. One n-body step over 16k bodies
// written with 3-vectors in Tack, the same step written with scalars in Tack, and a hand-written
// C++ OpenMP loop, timed in the same run and printed as ratios (the machine is shared and
// noisy). Results are checked against each other before any time is reported.
//
//     bench_vectors [--quick] [--n BODIES]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack::bench {
void nbody_step_cpp(const float* pos, float* vel, const float* mass, int64_t n, float dt,
                    float soft);
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr float kSoft = 1e-3f;
constexpr float kDt = 1e-3f;

constexpr const char* kSource = R"(import tack

SOFT = tack.constant(1e-3)

@tack.kernel
def step_vectors(pos, vel, mass, n, dt):
    for i in range(n):
        p = pos[i]
        acc = tack.Vector([0.0, 0.0, 0.0])
        for j in range(n):
            d = pos[j] - p
            r2 = d.norm_sqr() + SOFT
            acc += d * (mass[j] / (r2 * sqrt(r2)))
        vel[i] = vel[i] + acc * dt

@tack.kernel
def step_scalars(pos, vel, mass, n, dt):
    for i in range(n):
        px = pos[i, 0]
        py = pos[i, 1]
        pz = pos[i, 2]
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = pos[j, 0] - px
            dy = pos[j, 1] - py
            dz = pos[j, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + SOFT
            s = mass[j] / (r2 * sqrt(r2))
            ax += dx * s
            ay += dy * s
            az += dz * s
        vel[i, 0] = vel[i, 0] + ax * dt
        vel[i, 1] = vel[i, 1] + ay * dt
        vel[i, 2] = vel[i, 2] + az * dt
)";

template <class Fn>
double best_seconds(int reps, Fn&& fn) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (size_t k = 0; k < a.size(); ++k) {
        double scale = std::max(1e-6, std::abs(static_cast<double>(b[k])));
        worst = std::max(worst, std::abs(static_cast<double>(a[k]) - b[k]) / scale);
    }
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    int64_t n = 16384;
    int reps = 5;
    for (int k = 1; k < argc; ++k) {
        if (!std::strcmp(argv[k], "--quick")) {
            n = 2048;
            reps = 2;
        } else if (!std::strcmp(argv[k], "--n") && k + 1 < argc) {
            n = std::atoll(argv[++k]);
        }
    }
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> pos(static_cast<size_t>(3 * n)), vel0(static_cast<size_t>(3 * n)),
        mass(static_cast<size_t>(n));
    for (auto& x : pos)
        x = u(rng);
    for (auto& x : vel0)
        x = 0.1f * u(rng);
    for (auto& m : mass)
        m = 0.5f + 0.5f * (u(rng) + 1.0f);

    tack::Module mod = tack::Module::from_source(kSource, "bench_vectors.py");
    tack::Kernel vec = mod.kernel("step_vectors"), sca = mod.kernel("step_scalars");
    const int64_t elems[] = {n}, three[] = {3};
    tack::Array pos2 = tack::Array::from_host(pos, {n, int64_t{3}});
    tack::Array posv = pos2.with_elements(elems, three);
    tack::Array massa = tack::Array::from_host(mass, {n});
    tack::Array vel2 = tack::Array::from_host(vel0, {n, int64_t{3}});
    tack::Array velv = vel2.with_elements(elems, three);
    auto n32 = static_cast<int32_t>(n);

    // Results first: one step each from the same start, compared before anything is timed.
    vec(posv, velv, massa, n32, kDt);
    std::vector<float> got_vec = vel2.to_host<float>();
    vel2.copy_from_host(vel0);
    sca(pos2, vel2, massa, n32, kDt);
    std::vector<float> got_sca = vel2.to_host<float>();
    std::vector<float> want = vel0;
    tack::bench::nbody_step_cpp(pos.data(), want.data(), mass.data(), n, kDt, kSoft);
    double d_vs = max_rel_diff(got_vec, got_sca), d_vc = max_rel_diff(got_vec, want);
    if (d_vs != 0.0 || d_vc > 1e-4) {
        std::printf("bench_vectors: results differ (vector vs scalar %.3g, vs C++ %.3g)\n", d_vs,
                    d_vc);
        return 1;
    }

    std::vector<float> scratch = vel0;
    double t_cpp = 0, t_vec = 0, t_sca = 0;
    // Interleaved rounds, best of each: the three see the same machine conditions.
    for (int round = 0; round < reps; ++round) {
        t_vec = round ? std::min(t_vec, best_seconds(1, [&] { vec(posv, velv, massa, n32, kDt); }))
                      : best_seconds(1, [&] { vec(posv, velv, massa, n32, kDt); });
        t_sca = round ? std::min(t_sca, best_seconds(1, [&] { sca(pos2, vel2, massa, n32, kDt); }))
                      : best_seconds(1, [&] { sca(pos2, vel2, massa, n32, kDt); });
        auto cpp = [&] {
            tack::bench::nbody_step_cpp(pos.data(), scratch.data(), mass.data(), n, kDt, kSoft);
        };
        t_cpp = round ? std::min(t_cpp, best_seconds(1, cpp)) : best_seconds(1, cpp);
    }
    double pairs = static_cast<double>(n) * static_cast<double>(n);
    std::printf("n-body step, %lld bodies (best of %d interleaved rounds; results checked)\n",
                static_cast<long long>(n), reps);
    std::printf("  %-28s %9.2f ms  %7.2f Gpair/s\n", "Tack, 3-vectors", t_vec * 1e3,
                pairs / t_vec * 1e-9);
    std::printf("  %-28s %9.2f ms  %7.2f Gpair/s\n", "Tack, scalars", t_sca * 1e3,
                pairs / t_sca * 1e-9);
    std::printf("  %-28s %9.2f ms  %7.2f Gpair/s\n", "C++ -O3 -march=native OpenMP", t_cpp * 1e3,
                pairs / t_cpp * 1e-9);
    std::printf("  vectors / scalars (speed)   %6.3f   (target >= 0.9)\n", t_sca / t_vec);
    std::printf("  vectors / C++ OpenMP        %6.3f   (target >= 0.9)\n", t_cpp / t_vec);
    return 0;
}
