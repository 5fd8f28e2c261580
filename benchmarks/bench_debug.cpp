// Debug mode's cost (issue 10, DECISIONS "Debug mode"): saxpy over 2^24 f32 on each backend that
// opens here (cpu, opencl), plain and in debug mode, the two launches alternating so both see
// the same machine state. Prints the medians and the ratio debug/plain; there is no target
// (users want to know what the checks cost). A debug launch also allocates its record and
// waits for the device, which a plain queued launch does not: the opencl plain timing includes
// tack::sync() for a like-for-like comparison.
//
//     bench_debug [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void bench(const std::string& device, int reps) {
    try {
        tack::init(device);
    } catch (const tack::Error& e) {
        std::printf("  %-7s skipped: %s\n", device.c_str(), e.what());
        return;
    }
    tack::Kernel saxpy = tack::Module::from_source(R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)",
                                                   "bench_debug.py")
                             .kernel("saxpy");
    const std::int64_t n = std::int64_t(1) << 24;
    std::vector<float> host(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        host[static_cast<size_t>(i)] = static_cast<float>(i % 1000) * 1e-3f;
    tack::Array x = tack::Array::from_host(host, {n}), y = tack::Array::from_host(host, {n});
    auto launch = [&](bool debug) {
        tack::DebugScope scope(debug);
        auto t0 = Clock::now();
        saxpy(x, y, 1.0001f);
        tack::sync();
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    launch(false);  // compile both variants
    launch(true);
    std::vector<double> plain, debug;
    for (int r = 0; r < reps; ++r) {
        plain.push_back(launch(false));
        debug.push_back(launch(true));
    }
    double p = median(plain), d = median(debug);
    std::printf("  %-7s plain %8.3f ms   debug %8.3f ms   debug/plain = %.2fx\n", device.c_str(),
                p * 1e3, d * 1e3, d / p);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    std::printf("debug mode: saxpy 2^24 f32, median of %d alternating launches\n", quick ? 5 : 30);
    for (const char* device : {"cpu", "opencl"})
        bench(device, quick ? 5 : 30);
    return 0;
}
