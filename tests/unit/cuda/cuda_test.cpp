// The CUDA backend. Without a GPU (this machine): the missing driver is explained, and the
// runtime's own NVRTC path compiles kernels and the reduction sources to PTX that ptxas accepts
// for sm_90. With a GPU (scripts/gpu_check.sh): differential results against a host reference,
// queue order, per-launch scalars under four threads, a dispatching thread with no current
// context, adoption of a context the test makes, reductions, and the disk cache.
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
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "tack/tack.hpp"

namespace cuda = tack::runtime::cuda;
namespace cf = tack::codegen::cfamily;

namespace {

constexpr const char* kKernels = R"(import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]

@tack.kernel
def step(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3 + s

@tack.kernel
def group_sums(x, out):
    for i in range(x.shape[0]):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s

@tack.kernel
def histogram(x, bins):
    for i in range(x.shape[0]):
        tack.atomic_add(bins, int(x[i]) % 16, 1)

@tack.kernel
def smooth(x, y):
    for i in range(1, x.shape[0] - 1):
        y[i] = tack.sqrt(x[i - 1] * x[i - 1] + x[i + 1] * x[i + 1]) / 3.0
)";

struct Case {
    const char* kernel;
    const char* args;
};
constexpr Case kCases[] = {{"saxpy", "f32[:],f32[:],f32"}, {"saxpy", "f64[:],f64[:],f64"},
                           {"step", "i64[:],i64"},         {"group_sums", "f32[:],f32[:]"},
                           {"histogram", "f32[:],i32[:]"}, {"smooth", "f64[:],f64[:]"}};

std::string cuda_source(const Case& c) {
    auto file = std::make_shared<tack::diag::SourceFile>("k.py", kKernels);
    auto parsed = tack::frontend::parse_module(file);
    auto module = std::make_shared<tack::frontend::Module>(std::move(parsed.module));
    tack::sema::ModuleEnvironment env(module);
    tack::driver::KernelSource src{*module->find(c.kernel), file, env};
    tack::ir::Kernel lowered = tack::driver::lower(src, tack::sema::parse_arg_types(c.args));
    tack::passes::ShapeValues shapes;
    for (auto [p, d] : tack::passes::shape_dims_used(lowered))
        shapes[{p, d}] = 4096;
    tack::ir::Kernel k = tack::driver::specialize(lowered, shapes);
    return tack::runtime::gpu::generate(k, cf::cuda_dialect(), {"CUDA", 256, ~0ull}).source;
}

// Drops the CUDA default device: back to the CPU, or to a fresh CUDA device in a TACK_LLVM=OFF
// build, which has no CPU backend.
void leave_device() {
    try {
        tack::init("cpu");
    } catch (const tack::RuntimeError&) {
        try {
            tack::init("cuda");
        } catch (const tack::RuntimeError&) {  // no device at all: nothing to leave
        }
    }
}

bool have_nvrtc(std::string* why) {
    return cuda::nvrtc_api(why) != nullptr;
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

class Cuda : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            dev_ = tack::init("cuda");
        } catch (const tack::RuntimeError& e) {
            std::string what = e.what();
            // Without a driver the error explains what is missing.
            EXPECT_EQ(what.rfind("Cannot initialize 'cuda' backend: ", 0), 0u) << what;
            GTEST_SKIP() << what;
        }
    }
    void TearDown() override { leave_device(); }
    tack::Kernel kernel(const char* name) {
        return tack::Module::from_source(kKernels, "k.py").kernel(name);
    }
    tack::Device dev_;
};

TEST_F(Cuda, CapabilitiesMatchTheMatrix) {
    EXPECT_EQ(dev_.name(), "cuda");
    EXPECT_EQ(dev_.supported_dtypes(), tack::DTypeSet::all());
    EXPECT_TRUE(dev_.supports_workgroups());
    EXPECT_TRUE(dev_.supports_device_reductions());
    EXPECT_EQ(dev_.device_memory_spaces(),
              (std::vector<std::string>{"cuda", "cuda_pinned", "cuda_managed"}));
}

TEST_F(Cuda, SaxpyMatchesTheHostReference) {
    const int n = 100003;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[size_t(i)] = 0.25f * float(i % 1000);
        y[size_t(i)] = 1.0f - float(i % 77);
    }
    auto X = tack::Array::from_host(x, {n});
    auto Y = tack::Array::from_host(y, {n});
    kernel("saxpy")(X, Y, 1.5f);
    auto got = Y.to_host<float>();
    // CONTRACT B20 lets a product inside a sum contract: either rounding is the reference.
    for (int i = 0; i < n; ++i) {
        float sep = 1.5f * x[size_t(i)] + y[size_t(i)];
        float fused = std::fma(1.5f, x[size_t(i)], y[size_t(i)]);
        ASSERT_TRUE(got[size_t(i)] == sep || got[size_t(i)] == fused) << i;
    }
}

TEST_F(Cuda, QueuedLaunchesFillsAndWritesRunInOrder) {
    tack::Kernel k = kernel("step");
    const int n = 1 << 16;
    auto x = tack::zeros(tack::i64, {n});
    std::uint64_t want = 0;
    for (std::int64_t s = 0; s < 300; ++s) {
        if (s == 150) {
            x.fill(std::int64_t(7));
            want = 7;
        }
        k(x, s % 5 == 0 ? std::int64_t(11) : s);
        want = want * 3 + std::uint64_t(s % 5 == 0 ? 11 : s);
    }
    auto got = x.to_host<std::int64_t>();
    EXPECT_EQ(std::uint64_t(got[0]), want);
    EXPECT_EQ(std::uint64_t(got[size_t(n - 1)]), want);
}

TEST_F(Cuda, FourThreadsKeepTheirOwnScalars) {
    tack::Kernel k = kernel("step");
    std::atomic<int> wrong = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            // A thread that never made the context current: the backend makes it current.
            for (int j = 0; j < 100; ++j) {
                auto x = tack::zeros(tack::i64, {4096});
                k(x, std::int64_t(t * 1000 + j));
                if (x.to_host<std::int64_t>()[4095] != t * 1000 + j) ++wrong;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST_F(Cuda, ReductionsOnTheDevice) {
    const int n = 1 << 20;
    std::vector<float> v(n);
    double want = 0;
    for (int i = 0; i < n; ++i) {
        v[size_t(i)] = float(i % 1024) - 511.5f;
        want += v[size_t(i)];
    }
    auto a = tack::Array::from_host(v, {n});
    EXPECT_NEAR(a.sum(), want, 1e-3 * n);
    EXPECT_EQ(a.max(), 511.5);
    EXPECT_EQ(a.min(), -511.5);
}

TEST_F(Cuda, CollectivesNeedCompleteGroups) {
    auto x = tack::zeros(tack::f32, {1000});
    auto out = tack::zeros(tack::f32, {4});
    EXPECT_THROW(kernel("group_sums")(x, out), tack::ValueError);
}

// A new backend (empty in-memory caches) loads the PTX, entry and layout from the disk cache;
// scripts/gpu_check.sh runs this test in a second process over the first one's cache too.
TEST_F(Cuda, DiskCacheLoadsPtxWithItsLayout) {
    tack::Kernel k = kernel("saxpy");
    auto run = [&] {
        auto x = tack::Array::from_host(std::vector<float>(4096, 2.0f), {4096});
        auto y = tack::Array::from_host(std::vector<float>(4096, 1.0f), {4096});
        k(x, y, 3.0f);
        return y.to_host<float>()[4095];
    };
    EXPECT_EQ(run(), 7.0f);
    tack::Device second = tack::init("cuda");
    EXPECT_EQ(run(), 7.0f);
    auto* b = static_cast<cuda::CudaBackend*>(second.backend().get());
    std::printf("cuda disk cache: built %zu, loaded %zu\n", b->programs_built(),
                b->binaries_loaded());
    EXPECT_EQ(b->programs_built(), 0u);
    EXPECT_EQ(b->binaries_loaded(), 1u);
}

// CONTRACT E7: a context current on the thread that makes the device is adopted and never
// destroyed or released by Tack.
TEST(CudaAdopt, AContextTheApplicationMadeIsUsedAndLeftAlive) {
    std::string why;
    const cuda::CuApi* api = cuda::cu_api(&why);
    if (!api || api->cuInit(0) != 0) GTEST_SKIP() << why;
    cuda::CUdevice dev = 0;
    if (api->cuDeviceGet(&dev, 0) != 0) GTEST_SKIP() << "no CUDA device";
    using Create = cuda::CUresult (*)(cuda::CUcontext*, unsigned, cuda::CUdevice);
    using Destroy = cuda::CUresult (*)(cuda::CUcontext);
    void* lib = dlopen(api->library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    auto create = reinterpret_cast<Create>(dlsym(lib, "cuCtxCreate_v2"));
    auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "cuCtxDestroy_v2"));
    if (!create || !destroy) GTEST_SKIP() << "driver lacks cuCtxCreate_v2";
    cuda::CUcontext mine = nullptr;
    ASSERT_EQ(create(&mine, 0, dev), 0);
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
    leave_device();  // the adopting backend goes away
    ASSERT_EQ(api->cuCtxSetCurrent(mine), 0);
    cuda::CUdeviceptr p = 0;
    EXPECT_EQ(api->cuMemAlloc_v2(&p, 64), 0) << "the adopted context is still alive";
    api->cuMemFree_v2(p);
    api->cuCtxSetCurrent(nullptr);
    destroy(mine);
}

}  // namespace
