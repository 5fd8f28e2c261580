// bench_cuda (issue 11; scripts/gpu_check.sh): on one NVIDIA GPU, in one process,
//   - saxpy and triad bandwidth as a fraction of a device-to-device copy of the same bytes,
//   - Tack's launch overhead against a raw cuLaunchKernel of the same PTX,
//   - how the first call of a kernel was served (NVRTC or the disk cache): run it twice with the
//     same TACK_CACHE_DIR and the second process reports "loaded".
// Prints every figure; exit status 0 unless CUDA is unavailable (2) or a result is wrong (1).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/cfamily/dialect.hpp"
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "tack/tack.hpp"

namespace cuda = tack::runtime::cuda;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kSource = R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]

@tack.kernel
def triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]

@tack.kernel
def tiny(x, a):
    for i in range(x.shape[0]):
        x[i] = a
)";

template <class F>
double seconds(int reps, cuda::CudaBackend& b, F&& f) {
    b.synchronize();
    auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r)
        f();
    b.synchronize();
    return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

// The PTX Tack generates for tiny(f32[:], f32) with x.shape[0] symbolic, compiled here the
// same way the backend compiles it (same generator, same NVRTC options).
std::string tiny_ptx(std::string* entry) {
    auto file = std::make_shared<tack::diag::SourceFile>("k.py", kSource);
    auto parsed = tack::frontend::parse_module(file);
    auto module = std::make_shared<tack::frontend::Module>(std::move(parsed.module));
    tack::sema::ModuleEnvironment env(module);
    tack::driver::KernelSource src{*module->find("tiny"), file, env};
    auto k =
        tack::driver::compile(src, tack::sema::parse_arg_types("f32[:],f32"),
                              tack::driver::capabilities_of(tack::driver::find_target("cuda")), {})
            .ir;
    auto gen = tack::runtime::gpu::generate(k, tack::codegen::cfamily::cuda_dialect(),
                                            {"CUDA", 256, ~0ull});
    *entry = gen.abi.entry;
    return cuda::compile_ptx(gen.source, "tiny");
}

}  // namespace

int main() {
    tack::Device dev;
    try {
        dev = tack::init("cuda");
    } catch (const tack::RuntimeError& e) {
        std::printf("bench_cuda: %s\n", e.what());
        return 2;
    }
    auto& b = static_cast<cuda::CudaBackend&>(*dev.backend());
    tack::Module mod = tack::Module::from_source(kSource, "bench.py");
    int bad = 0;

    // First call: compiled by NVRTC, or loaded from the disk cache by a second process.
    auto t0 = Clock::now();
    {
        auto x = tack::zeros(tack::f32, {256});
        mod.kernel("tiny")(x, 1.0f);
        bad += x.to_host<float>()[255] != 1.0f;
    }
    double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::printf("first call of tiny: %.2f ms (NVRTC builds %zu, disk-cache loads %zu)\n", first_ms,
                b.programs_built(), b.binaries_loaded());

    // Bandwidth against a device-to-device copy of the same bytes.
    const std::int64_t n = std::int64_t(1) << 26;  // 256 MiB per f32 array
    auto x = tack::zeros(tack::f32, {n}), y = tack::zeros(tack::f32, {n}),
         z = tack::zeros(tack::f32, {n});
    x.fill(1.0f);
    y.fill(2.0f);
    const double bytes = 4.0 * double(n);
    const int reps = 20;
    double copy_s = seconds(reps, b, [&] {
        cuda::check(
            b.api(),
            b.api().cuMemcpyDtoDAsync_v2(y.address(), x.address(), std::size_t(bytes), b.stream()),
            "copy");
    });
    double copy_gbs = 2 * bytes / copy_s / 1e9;
    tack::Kernel saxpy = mod.kernel("saxpy"), triad = mod.kernel("triad");
    saxpy(x, y, 0.5f);  // compile outside the timing
    triad(z, x, y, 0.5f);
    double saxpy_s = seconds(reps, b, [&] { saxpy(x, y, 0.5f); });
    double triad_s = seconds(reps, b, [&] { triad(z, x, y, 0.5f); });
    double saxpy_gbs = 3 * bytes / saxpy_s / 1e9, triad_gbs = 3 * bytes / triad_s / 1e9;
    std::printf("device-to-device copy: %.1f GB/s\n", copy_gbs);
    std::printf("saxpy 2^26 f32: %.1f GB/s = %.2f of the copy\n", saxpy_gbs, saxpy_gbs / copy_gbs);
    std::printf("triad 2^26 f32: %.1f GB/s = %.2f of the copy\n", triad_gbs, triad_gbs / copy_gbs);

    // Launch overhead: Tack's dispatch against cuLaunchKernel of the same PTX, both queued.
    auto small = tack::zeros(tack::f32, {256});
    tack::Kernel tiny = mod.kernel("tiny");
    const int launches = 20000;
    double tack_us = 1e6 * seconds(launches, b, [&] { tiny(small, 2.0f); });
    std::string entry;
    std::string ptx = tiny_ptx(&entry);
    auto code = b.load({ptx.begin(), ptx.end()}, entry, "tiny");
    auto fn = static_cast<cuda::CUfunction>(code.function);
    cuda::CUdeviceptr pack = b.allocate_block(4);
    float two = 2.0f;
    b.copy_in(pack, &two, 4);
    cuda::CUdeviceptr ptr = small.address();
    long long count = 256;
    void* params[] = {&ptr, &pack, &count};
    cuda::ContextScope scope(b.api(), b.context());
    double raw_us =
        1e6 * seconds(launches, b, [&] {
            b.api().cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, b.stream(), params, nullptr);
        });
    std::printf("launch overhead: Tack %.2f us, raw cuLaunchKernel %.2f us, ratio %.2f\n", tack_us,
                raw_us, tack_us / raw_us);
    bad += small.to_host<float>()[0] != 2.0f;
    b.release_block(pack, 4);
    b.unload(code);
    std::printf("bench_cuda: %s\n", bad ? "WRONG RESULTS" : "results correct");
    return bad ? 1 : 0;
}
