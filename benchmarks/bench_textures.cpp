// Texture benchmark (issue 9): a 3-D texture sampled at 2^22 random points by a Tack kernel
// (software trilinear sampling, emitted inline, extents baked in) against a hand-written C++
// OpenMP trilinear loop, timed in the same run and printed as a ratio (the machine is shared
// and noisy). Results are compared before anything is timed.
//
//     bench_textures [--quick] [--points LOG2] [--side TEXELS]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tack/tack.hpp"

namespace tack::bench {
void trilinear_cpp(const float* vol, int64_t w, int64_t h, int64_t d, const float* pts, float* out,
                   int64_t n);
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSource = R"(import tack

@tack.kernel
def sample_points(tex, pts, out, n):
    for i in range(n):
        out[i] = tex.sample(pts[i, 0], pts[i, 1], pts[i, 2])
)";

template <class Fn>
double seconds(Fn&& fn) {
    auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    int log2_points = 22;
    int64_t side = 128;
    int rounds = 15;
    for (int k = 1; k < argc; ++k) {
        if (!std::strcmp(argv[k], "--quick")) {
            log2_points = 18;
            rounds = 3;
        } else if (!std::strcmp(argv[k], "--points") && k + 1 < argc) {
            log2_points = std::atoi(argv[++k]);
        } else if (!std::strcmp(argv[k], "--side") && k + 1 < argc) {
            side = std::atoll(argv[++k]);
        }
    }
    const int64_t n = int64_t{1} << log2_points;
    const int64_t w = side, h = side - side / 4, d = side / 2;  // three different extents
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> vol(static_cast<size_t>(w * h * d)), pts(static_cast<size_t>(3 * n));
    for (auto& v : vol)
        v = unit(rng);
    for (auto& p : pts)
        p = unit(rng) * 1.1f - 0.05f;  // a few outside [0, 1]: the clamp is exercised

    tack::Module mod = tack::Module::from_source(kSource, "bench_textures.py");
    tack::Kernel sample = mod.kernel("sample_points");
    tack::Array tex = tack::Array::from_host(vol, {d, h, w}).as_texture();
    tack::Array points = tack::Array::from_host(pts, {n, int64_t{3}});
    tack::Array out = tack::zeros(tack::f32, {n});
    std::vector<float> want(static_cast<size_t>(n));

    sample(tex, points, out, n);  // compiles
    tack::bench::trilinear_cpp(vol.data(), w, h, d, pts.data(), want.data(), n);
    std::vector<float> got = out.to_host<float>();
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
    if (worst > 1e-6) {
        std::printf("bench_textures: Tack and C++ differ by %.3g\n", worst);
        return 1;
    }

    // Interleaved rounds, best of each: both see the same machine conditions.
    double t_tack = 1e30, t_cpp = 1e30;
    for (int r = 0; r < rounds; ++r) {
        t_tack = std::min(t_tack, seconds([&] { sample(tex, points, out, n); }));
        t_cpp = std::min(t_cpp, seconds([&] {
                             tack::bench::trilinear_cpp(vol.data(), w, h, d, pts.data(),
                                                        want.data(), n);
                         }));
    }
    std::printf(
        "texture sampling, %lldx%lldx%lld f32 texture, 2^%d random points (best of %d "
        "interleaved rounds; results agree to %.1g)\n",
        static_cast<long long>(w), static_cast<long long>(h), static_cast<long long>(d),
        log2_points, rounds, worst);
    std::printf("  %-34s %8.2f ms  %7.1f Msample/s\n", "Tack tex.sample (software, CPU)",
                t_tack * 1e3, n / t_tack * 1e-6);
    std::printf("  %-34s %8.2f ms  %7.1f Msample/s\n", "C++ -O3 -march=native OpenMP", t_cpp * 1e3,
                n / t_cpp * 1e-6);
    std::printf("  Tack / C++ (speed)                 %6.3f   (target >= 0.8)\n", t_cpp / t_tack);
    return 0;
}
