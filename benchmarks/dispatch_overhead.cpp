// Host cost of one kernel call from C++ on the CPU: a 1-element launch, warm variant cache.
// Prints the median of 21 batches of 20,000 calls, in nanoseconds per call.
//
//   build: link against Tack::tack (see benchmarks/README or the lead's CMake rules)
//   run:   ./dispatch_overhead
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "tack/tack.hpp"

int main() {
    tack::Kernel k = tack::Module::from_source(R"(
import tack

@tack.kernel
def axpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)",
                                               "bench.py")
                         .kernel("axpy");
    tack::Array x = tack::ones(tack::f32, {1});
    tack::Array y = tack::zeros(tack::f32, {1});
    k(x, y, 2.0f);  // compile
    constexpr int kCalls = 20000, kBatches = 21;
    std::vector<double> per_call;
    for (int b = 0; b < kBatches; ++b) {
        auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < kCalls; ++c)
            k(x, y, 2.0f);
        auto t1 = std::chrono::steady_clock::now();
        per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCalls);
    }
    std::sort(per_call.begin(), per_call.end());
    std::printf("dispatch_overhead: median %.1f ns per 1-element call (min %.1f, max %.1f)\n",
                per_call[kBatches / 2], per_call.front(), per_call.back());
    return 0;
}
