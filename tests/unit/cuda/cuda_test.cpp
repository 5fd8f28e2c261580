// The CUDA backend: the runtime's own NVRTC path compiles kernels and the reduction sources to
// PTX that ptxas accepts for sm_90; on a device (a GPU, scripts/gpu_check.sh, or the emulated
// one of tests/emulated, which ctest names) the shared device suite (results against a host
// reference, queue order, per-launch scalars under four threads with no current context,
// reductions, the disk cache, hardware textures) and adoption of a context the test makes.
// Without either, the missing driver is explained.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <locale.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "codegen/cfamily/reduction.hpp"
#include "frontend/parser.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "tack/tack.hpp"
#include "unit/compile_helper.hpp"
#include "unit/device_suite/device_suite.hpp"

namespace cuda = tack::runtime::cuda;
namespace cf = tack::codegen::cfamily;

namespace {

using tack::device_suite::kKernels;

struct Case {
    const char* kernel;
    const char* args;
};
constexpr Case kCases[] = {{"saxpy", "f32[:],f32[:],f32"}, {"saxpy", "f64[:],f64[:],f64"},
                           {"step", "i64[:],i64"},         {"group_sums", "f32[:],f32[:]"},
                           {"histogram", "f32[:],i32[:]"}, {"smooth", "f64[:],f64[:]"}};

std::string cuda_source(const Case& c) {
    tack::ir::Kernel k = tack::testing::compiled_ir({.source = kKernels,
                                                     .kernel = c.kernel,
                                                     .args = c.args,
                                                     .target = "cuda",
                                                     .extent = tack::testing::every_extent(4096)});
    return tack::runtime::gpu::generate(k, cf::cuda_dialect(), {"CUDA", 256, ~0ull}).source;
}

bool have_nvrtc(std::string* why) {
    return tack::runtime::gpu::load_api<cuda::NvrtcApi>(why) != nullptr;
}

// ptxas for sm_90 when the toolkit has it; "" when it accepts the PTX.
std::string ptxas(const std::string& ptx) {
    const char* tool = "/usr/local/cuda/bin/ptxas";
    if (::access(tool, X_OK) != 0) return "";
    auto dir = std::filesystem::temp_directory_path() / ("tack-ptx-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "k.ptx") << ptx;
    std::string cmd = std::string(tool) + " -arch=sm_90 -o " + (dir / "k.cubin").string() + " " +
                      (dir / "k.ptx").string() + " 2>&1";
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[512];
    for (size_t n; p && (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
        out.append(buf, n);
    int rc = p ? ::pclose(p) : -1;
    std::filesystem::remove_all(dir);
    return rc == 0 ? "" : "ptxas failed:\n" + out;
}

TEST(CudaCompile, RuntimeNvrtcPathProducesPtxThatPtxasAccepts) {
    std::string why;
    if (!have_nvrtc(&why)) GTEST_SKIP() << why;
    for (const Case& c : kCases) {
        std::string src = cuda_source(c);
        std::string ptx = cuda::compile_ptx(src, c.kernel);
        EXPECT_NE(ptx.find(".entry tack_kernel_"), std::string::npos) << c.kernel;
        EXPECT_EQ(ptxas(ptx), "") << c.kernel << " " << c.args << "\n" << src;
    }
    for (auto op : {cf::ReduceOp::Sum, cf::ReduceOp::Min, cf::ReduceOp::Max}) {
        std::string entry = cf::array_reduction_entry(op);
        std::string ptx =
            cuda::compile_ptx(cf::array_reduction_source(cf::cuda_dialect(), op), entry);
        EXPECT_NE(ptx.find(".entry " + entry), std::string::npos) << entry;
        EXPECT_EQ(ptxas(ptx), "") << entry;
    }
}

TEST(CudaCompile, FailuresCarryTheLogAndSource) {
    std::string why;
    if (!have_nvrtc(&why)) GTEST_SKIP() << why;
    try {
        cuda::compile_ptx("extern \"C\" __global__ void broken( {", "broken");
        FAIL();
    } catch (const tack::RuntimeError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("Kernel 'broken': NVRTC failed"), std::string::npos) << what;
        EXPECT_NE(what.find("source:\nextern"), std::string::npos) << what;
    }
}

TEST(CudaCompile, TheThreadLocaleSurvivesACompile) {
    std::string why;
    if (!have_nvrtc(&why)) GTEST_SKIP() << why;
    locale_t mine = newlocale(LC_ALL_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (!mine) GTEST_SKIP() << "no C.UTF-8 locale";
    locale_t before = uselocale(mine);
    cuda::compile_ptx(cuda_source(kCases[0]), "saxpy");
    EXPECT_EQ(uselocale(static_cast<locale_t>(nullptr)), mine);
    uselocale(before);
    freelocale(mine);
}

TEST(CudaCompile, OptionsAndVersionWarning) {
    std::vector<std::string> opts(cuda::nvrtc_options().begin(), cuda::nvrtc_options().end());
    EXPECT_EQ(opts, (std::vector<std::string>{"--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                                              "--fmad=true", "--extra-device-vectorization"}));
    EXPECT_EQ(cuda::nvrtc_version_warning(13, 0), "");
    EXPECT_NE(cuda::nvrtc_version_warning(12, 0).find("NVRTC 12.0 is older than 13"),
              std::string::npos);
}

// --- with a GPU ---------------------------------------------------------------------------

class Cuda : public tack::device_suite::DeviceTest {
  protected:
    Cuda() : DeviceTest("cuda") {}
};

TACK_DEVICE_SUITE(Cuda, "cuda", "cuda", "cuda_pinned", "cuda_managed")

cuda::CudaBackend& cuda_of(const tack::Device& d) {
    return static_cast<cuda::CudaBackend&>(*d.backend());
}

/// An entry point Tack itself never calls, from the driver it loaded.
template <class F>
F driver_symbol(const cuda::CuApi& api, const char* name) {
    return reinterpret_cast<F>(dlsym(dlopen(api.library.c_str(), RTLD_NOW | RTLD_NOLOAD), name));
}

TEST_F(Cuda, AQueuedLaunchsErrorSurfacesAtTheNextWait) {
    auto fail = tack::device_suite::fail_kernels_of(cuda_of(dev_).api().library);
    if (!fail) GTEST_SKIP() << "needs the emulated device's fault injection";
    tack::device_suite::a_queued_launchs_error_surfaces_at_the_next_wait(dev_, fail);
}

// SEED-AUDIT 'CUDA · Memory spaces' (CONTRACT C21): pinned and managed memory are told apart
// from device memory by the driver's pointer attributes, wrapped without a copy, and kernels
// run on them; pageable host memory is "cpu".
TEST_F(Cuda, PinnedAndManagedMemoryAreToldApartAndWrapped) {
    const cuda::CuApi& api = cuda_of(dev_).api();
    using AllocHost = cuda::CUresult (*)(void**, std::size_t);
    using FreeHost = cuda::CUresult (*)(void*);
    using AllocManaged = cuda::CUresult (*)(cuda::CUdeviceptr*, std::size_t, unsigned);
    auto alloc_host = driver_symbol<AllocHost>(api, "cuMemAllocHost_v2");
    auto free_host = driver_symbol<FreeHost>(api, "cuMemFreeHost");
    auto alloc_managed = driver_symbol<AllocManaged>(api, "cuMemAllocManaged");
    if (!alloc_host || !free_host || !alloc_managed) GTEST_SKIP() << "a driver without them";
    void* pinned = nullptr;
    cuda::CUdeviceptr managed = 0;
    {
        cuda::ContextScope scope(api, cuda_of(dev_).context());
        ASSERT_EQ(alloc_host(&pinned, 4096), 0);
        ASSERT_EQ(alloc_managed(&managed, 4096, 1 /* CU_MEM_ATTACH_GLOBAL */), 0);
    }
    const auto& b = *dev_.backend();
    EXPECT_EQ(b.memory_space(reinterpret_cast<std::uint64_t>(pinned)), "cuda_pinned");
    EXPECT_EQ(b.memory_space(managed), "cuda_managed");
    std::vector<float> host(256);
    EXPECT_EQ(b.memory_space(reinterpret_cast<std::uint64_t>(host.data())), "cpu");
    tack::Kernel saxpy = kernel("saxpy");
    for (void* p : {pinned, reinterpret_cast<void*>(managed)}) {
        tack::Array a = tack::Array::from_ptr(p, tack::f32, {256}, true);
        a.fill(2.0f);
        saxpy(a, a, 1.0f);  // wrapped memory is shared: the launch completes before returning
        EXPECT_EQ(static_cast<const float*>(p)[255], 4.0f);
        EXPECT_EQ(a.to_host<float>(), std::vector<float>(256, 4.0f));
    }
    EXPECT_THROW(tack::Array::from_ptr(host.data(), tack::f32, {256}, true), tack::RuntimeError);
    cuda::ContextScope scope(api, cuda_of(dev_).context());
    EXPECT_EQ(free_host(pinned), 0);
    api.cuMemFree_v2(managed);
}

// SEED-AUDIT 'CUDA · Compile': the disk-cache target names NVRTC's options and the device's
// architecture, so PTX made with other options or for another device is never loaded.
TEST_F(Cuda, TheCacheTargetNamesTheOptionsAndTheArchitecture) {
    std::string key = cuda_of(dev_).cache_target().value();
    for (const char* o : cuda::nvrtc_options())
        EXPECT_NE(key.find(o), std::string::npos) << o << " missing from " << key;
    EXPECT_NE(key.find(";sm="), std::string::npos) << key;
    EXPECT_NE(key.find(";nvrtc=" + cuda::nvrtc_version()), std::string::npos) << key;
}

// SEED-AUDIT 'CUDA · Init': on a thread with no current context the backend runs in the
// device's primary context, the one the CUDA runtime, PyTorch and CuPy use.
TEST_F(Cuda, WithNoCurrentContextThePrimaryContextIsUsed) {
    const cuda::CuApi& api = cuda_of(dev_).api();
    cuda::CUcontext primary = nullptr;
    ASSERT_EQ(api.cuDevicePrimaryCtxRetain(&primary, 0), 0);
    EXPECT_EQ(cuda_of(dev_).context(), primary);
    api.cuDevicePrimaryCtxRelease_v2(0);
}

// SEED-AUDIT 'All · Textures out': a launch that samples a hardware texture has completed when
// it returns (its image may be dropped right after), so the stream is idle then.
TEST_F(Cuda, ALaunchThatSamplesATextureHasCompletedWhenItReturns) {
    const cuda::CuApi& api = cuda_of(dev_).api();
    using Query = cuda::CUresult (*)(cuda::CUstream);
    auto query = driver_symbol<Query>(api, "cuStreamQuery");
    if (!query) GTEST_SKIP() << "the driver lacks cuStreamQuery";
    const std::int64_t w = 8, h = 4, d = 2, n = 1 << 21;  // long enough to be seen queued
    std::vector<float> vol(std::size_t(w * h * d), 1.0f), u(n, 0.5f);
    tack::Array tex = tack::Array::from_host(vol, {d, h, w}).as_texture();
    auto coords = tack::Array::from_host(u, {n});
    auto out = tack::zeros(tack::f32, {n});
    tack::Kernel k = kernel("sample");  // alive: a dropped module waits for its launches
    k(tex, coords, coords, coords, out);
    tack::runtime::cuda::ContextScope scope(api, cuda_of(dev_).context());
    EXPECT_EQ(query(cuda_of(dev_).stream()), 0) << "the texture launch was still queued";
    EXPECT_EQ(out.to_host<float>()[n - 1], 1.0f);
}

/// A context the application makes with the legacy cuCtxCreate_v2 (current on this thread),
/// and the driver's cuCtxDestroy_v2 for it; `why` says what is missing when there is none.
struct AppContext {
    const cuda::CuApi* api = nullptr;
    cuda::CUcontext ctx = nullptr;
    cuda::CUresult (*destroy)(cuda::CUcontext) = nullptr;
    std::string why;

    AppContext() {
        api = tack::runtime::gpu::load_api<cuda::CuApi>(&why);
        cuda::CUdevice dev = 0;
        if (!api || api->cuInit(0) != 0 || api->cuDeviceGet(&dev, 0) != 0) {
            why = "no CUDA device: " + why;
            return;
        }
        using Create = cuda::CUresult (*)(cuda::CUcontext*, unsigned, cuda::CUdevice);
        void* lib = dlopen(api->library.c_str(), RTLD_NOW | RTLD_NOLOAD);
        auto create = reinterpret_cast<Create>(dlsym(lib, "cuCtxCreate_v2"));
        destroy = reinterpret_cast<decltype(destroy)>(dlsym(lib, "cuCtxDestroy_v2"));
        if (!create || !destroy || create(&ctx, 0, dev) != 0) {
            why = "the driver cannot make a context with cuCtxCreate_v2";
            ctx = nullptr;
        }
    }
};

// CONTRACT E7: a context current on the thread that makes the device is adopted and never
// destroyed or released by Tack.
TEST(CudaAdopt, AContextTheApplicationMadeIsUsedAndLeftAlive) {
    AppContext app;
    if (!app.ctx) GTEST_SKIP() << app.why;
    const cuda::CuApi* api = app.api;
    cuda::CUcontext mine = app.ctx;
    auto destroy = app.destroy;
    ASSERT_EQ(api->cuCtxSetCurrent(mine), 0);
    {
        tack::Device d = tack::init("cuda");
        auto* b = static_cast<cuda::CudaBackend*>(d.backend().get());
        EXPECT_EQ(b->context(), mine);
        auto x = tack::zeros(tack::f32, {256});
        x.fill(2.0f);
        EXPECT_EQ(x.to_host<float>()[255], 2.0f);
    }
    cuda::CUcontext current = nullptr;
    api->cuCtxGetCurrent(&current);
    EXPECT_EQ(current, mine);
    api->cuCtxSetCurrent(nullptr);
    tack::device_suite::leave_device("cuda");  // the adopting backend goes away
    ASSERT_EQ(api->cuCtxSetCurrent(mine), 0);
    cuda::CUdeviceptr p = 0;
    EXPECT_EQ(api->cuMemAlloc_v2(&p, 64), 0) << "the adopted context is still alive";
    api->cuMemFree_v2(p);
    api->cuCtxSetCurrent(nullptr);
    destroy(mine);
}

// CONTRACT C5 and SEED-AUDIT 'CUDA · Init': the application destroys the context Tack adopted
// while arrays of it are alive. Every use of them is a RuntimeError saying so, and dropping them
// and the device afterwards skips the frees instead of crashing.
TEST(CudaAdopt, AContextTheApplicationDestroysIsReportedAndItsFreesAreSkipped) {
    AppContext app;
    if (!app.ctx) GTEST_SKIP() << app.why;
    {
        tack::Device d = tack::init("cuda");
        auto x = tack::zeros(tack::f32, {256});
        x.fill(2.0f);
        auto saxpy =
            tack::Module::from_source(tack::device_suite::kKernels, "k.py").kernel("saxpy");
        saxpy(x, x, 1.0f);  // loaded, and its scalars packed, while the context lives
        EXPECT_EQ(x.to_host<float>()[255], 4.0f);
        ASSERT_EQ(app.destroy(app.ctx), 0);
        const std::string dead =
            " this CUDA field: the CUDA context this field was allocated in has been destroyed";
        auto expect_dead = [&](const char* verb, auto&& use) {
            try {
                use();
                ADD_FAILURE() << verb << " worked in a destroyed context";
            } catch (const tack::RuntimeError& e) {
                EXPECT_EQ(std::string(e.what()).rfind(std::string("Cannot ") + verb + dead, 0), 0u)
                    << e.what();
            }
        };
        expect_dead("fill", [&] { x.fill(1.0f); });
        expect_dead("read", [&] { (void)x.to_host<float>(); });
        expect_dead("write", [&] { x.copy_from_host(std::vector<float>(256, 3.0f)); });
        expect_dead("allocate", [&] { (void)tack::zeros(tack::f32, {16}); });
        expect_dead("launch with", [&] { saxpy(x, x, 1.0f); });
    }  // the array, then the device: their frees are skipped
    tack::device_suite::leave_device("cuda");
}

}  // namespace
