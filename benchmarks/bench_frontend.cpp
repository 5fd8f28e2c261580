// Front-end throughput: parse + validate + lower + optimize of a file of 200 typical kernels
// (about 20 lines each), reported as kernels per second and microseconds per kernel. Target:
// under 200 microseconds per kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

using namespace tack;
using Clock = std::chrono::steady_clock;

namespace {

// A typical 20-line kernel: a device function call, a stencil, a sequential loop, a branch.
std::string kernel_text(int n) {
    std::string k = std::to_string(n);
    return "@tack.kernel\n"
           "def smooth_" +
           k +
           "(u, out, alpha, steps):\n"
           "    \"\"\"Weighted smoothing with a clamp.\"\"\"\n"
           "    w = alpha * 0.25\n"
           "    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):\n"
           "        c = u[i, j]\n"
           "        s = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]\n"
           "        acc = 0.0\n"
           "        for t in range(steps):\n"
           "            acc += w * (s - 4.0 * c) / (t + 1)\n"
           "            if acc > 10.0:\n"
           "                acc = 10.0\n"
           "                break\n"
           "        v = c + helper_" +
           k +
           "(acc, 0.5)\n"
           "        if v < 0.0:\n"
           "            v = -v\n"
           "        elif v > 100.0:\n"
           "            v = 100.0\n"
           "        out[i, j] = sqrt(v) if v > 1.0 else v\n"
           "\n\n"
           "@tack.func\n"
           "def helper_" +
           k +
           "(x, s):\n"
           "    return x * s + min(x, s)\n\n\n";
}

}  // namespace

int main() {
    constexpr int kKernels = 200;
    std::string text = "import tack\n\n\n";
    for (int i = 0; i < kKernels; ++i)
        text += kernel_text(i);
    const std::vector<sema::Type> args = sema::parse_arg_types("f32[:,:],f32[:,:],f32,i32");

    const driver::Capabilities cpu = driver::capabilities_of(driver::find_target("cpu"));
    std::vector<double> runs;
    for (int rep = 0; rep < 7; ++rep) {
        auto t0 = Clock::now();
        auto file = std::make_shared<diag::SourceFile>("bench.py", text);
        auto parsed = frontend::parse_module(file);
        auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
        auto env = std::make_shared<sema::ModuleEnvironment>(module);
        int lowered = 0;
        for (const auto& fn : module->functions) {
            if (fn->def_kind != frontend::DefKind::Kernel) continue;
            // Validates the kernel and the @tack.funcs it reaches, lowers, optimizes.
            driver::compile({*fn, file, *env}, args, cpu, {.stop_after = driver::Stage::Template});
            ++lowered;
        }
        if (lowered != kKernels) return 1;
        runs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(runs.begin(), runs.end());
    double median = runs[runs.size() / 2];
    std::printf("frontend: %d kernels (+%d funcs) parse+validate+lower+optimize\n", kKernels,
                kKernels);
    std::printf(
        "frontend: median %.2f ms total, %.1f us per kernel, %.0f kernels/s (target < 200 us)\n",
        median * 1e3, median * 1e6 / kKernels, kKernels / median);
    return 0;
}
