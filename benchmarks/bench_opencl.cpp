// OpenCL benchmark (issue 5), on whatever OpenCL device is present (PoCL in CI):
//
//   1. Launch overhead: a queued 1-element Tack kernel (calls per second until tack::sync())
//      against PoCL's own cost for the same work measured in the same run: clSetKernelArg +
//      clEnqueueNDRangeKernel of an equivalent hand-written kernel on a private queue, then
//      clFinish. Target: Tack <= 1.2x the raw cost.
//   2. saxpy over 2^24 f32: GB/s on `opencl` next to the `cpu` backend.
//
//     bench_opencl [--quick]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/opencl/cl_api.hpp"
#include "runtime/opencl/runner.hpp"
#include "tack/tack.hpp"

namespace {

namespace cl = tack::runtime::opencl;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The launch rounds report their best: on a shared machine noise only ever adds time.
double best(const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
}

tack::Kernel kernel(const char* src, const char* name) {
    return tack::Module::from_source(std::string("import tack\n\n") + src, "bench.py").kernel(name);
}

// Seconds per launch of Tack's 1-element kernel on `device` (queued on opencl).
double tack_launch(int calls, int reps, const char* device = "opencl") {
    tack::device(device);
    tack::Kernel k = kernel(R"(
@tack.kernel
def inc(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1
)",
                            "inc");
    auto x = tack::zeros(tack::i32, {1});
    k(x);  // compile
    tack::sync();
    std::vector<double> per;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        for (int c = 0; c < calls; ++c)
            k(x);
        tack::sync();
        per.push_back(seconds_since(t0) / calls);
    }
    if (x.get<std::int32_t>({0}) != 1 + calls * reps) std::fprintf(stderr, "WRONG RESULT\n");
    tack::device("cpu");
    return best(per);
}

// Seconds per launch of the same work straight through OpenCL.
double raw_launch(int calls, int reps) {
    std::string why;
    const cl::ClApi* api = cl::cl_api(&why);
    cl::cl_uint np = 0;
    api->clGetPlatformIDs(0, nullptr, &np);
    std::vector<cl::cl_platform_id> ps(np);
    api->clGetPlatformIDs(np, ps.data(), nullptr);
    cl::cl_device_id dev = nullptr;
    api->clGetDeviceIDs(ps[0], cl::CL_DEVICE_TYPE_ALL, 1, &dev, nullptr);
    cl::cl_int err = 0;
    cl::cl_context ctx = api->clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    cl::cl_command_queue q = api->clCreateCommandQueue(ctx, dev, 0, &err);
    // The OpenCL C Tack generates for `inc` (tackc inspect --target opencl), so both sides
    // launch the same code.
    const char* src =
        "static inline int tack_add_i32(int a, int b) { return (int)((uint)a + (uint)b); }\n"
        "__kernel void inc(__global int* tack_var_x, long __n__) {\n"
        "  const long tack_lid = (long)get_local_id(0);\n"
        "  const long tack_idx = (long)get_group_id(0) * (long)get_local_size(0) + tack_lid;\n"
        "  if (tack_idx >= __n__) return;\n"
        "  long tack_var_i = (long)((ulong)0L + (ulong)tack_idx * (ulong)1L);\n"
        "  tack_var_x[tack_var_i] = tack_add_i32(tack_var_x[tack_var_i], 1);\n"
        "}\n";
    cl::cl_program prog = api->clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    api->clBuildProgram(prog, 1, &dev, cl::kBuildOptions, nullptr, nullptr);
    cl::cl_kernel k = api->clCreateKernel(prog, "inc", &err);
    cl::cl_mem buf = api->clCreateBuffer(ctx, cl::CL_MEM_READ_WRITE, 4, nullptr, &err);
    std::int32_t zero = 0;
    api->clEnqueueWriteBuffer(q, buf, cl::CL_TRUE, 0, 4, &zero, 0, nullptr, nullptr);
    const size_t local = 256, global = 256;
    const std::int64_t n = 1;
    std::vector<double> per;
    for (int r = 0; r < reps + 1; ++r) {  // the first round warms up
        auto t0 = Clock::now();
        for (int c = 0; c < calls; ++c) {
            // Arguments are set per launch, as any runtime binding fresh arrays must.
            api->clSetKernelArg(k, 0, sizeof buf, &buf);
            api->clSetKernelArg(k, 1, sizeof n, &n);
            api->clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
        }
        api->clFinish(q);
        if (r > 0) per.push_back(seconds_since(t0) / calls);
    }
    api->clReleaseMemObject(buf);
    api->clReleaseKernel(k);
    api->clReleaseProgram(prog);
    api->clReleaseCommandQueue(q);
    api->clReleaseContext(ctx);
    return best(per);
}

// GB/s of saxpy over n f32 on the named device (median of `reps` synchronized launches).
double saxpy_gbps(const char* device, std::int64_t n, int reps) {
    tack::Device dev = tack::device(device);
    tack::Kernel k = kernel(R"(
@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)",
                            "saxpy");
    auto x = tack::full(tack::f32, {n}, 1.0f), y = tack::zeros(tack::f32, {n});
    k(x, y, 2.0f);
    tack::sync();
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        k(x, y, 2.0f);
        tack::sync();
        t.push_back(seconds_since(t0));
    }
    float want = 2.0f * float(reps + 1);
    if (y.get<float>({n - 1}) != want) std::fprintf(stderr, "WRONG RESULT on %s\n", device);
    tack::device("cpu");
    return 3.0 * 4.0 * double(n) / median(t) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    try {
        tack::device("opencl");
    } catch (const std::exception& e) {
        std::printf("OpenCL unavailable: %s\n", e.what());
        return 0;
    }
    const int calls = quick ? 2000 : 5000, reps = quick ? 3 : 7;
    // Interleaved, so drift on a shared machine affects both alike.
    std::vector<double> tack_t, raw_t;
    for (int r = 0; r < 5; ++r) {
        raw_t.push_back(raw_launch(calls, reps));
        tack_t.push_back(tack_launch(calls, reps));
    }
    double t = best(tack_t), raw = best(raw_t);
    std::printf("launch overhead (1-element kernel, best of rounds of %d queued calls):\n", calls);
    std::printf("  tack opencl      %8.2f us/launch\n", t * 1e6);
    std::printf("  raw OpenCL       %8.2f us/launch\n", raw * 1e6);
    std::printf("  ratio            %8.2fx (target <= 1.20x)\n", t / raw);
    std::printf(
        "  (context: the same call on the cpu backend, shared dispatch + a serial run: "
        "%.2f us)\n",
        tack_launch(calls, reps, "cpu") * 1e6);
    const std::int64_t n = std::int64_t(1) << 24;
    int sreps = quick ? 3 : 10;
    std::printf("saxpy 2^24 f32 (median of %d):\n", sreps);
    std::printf("  opencl           %8.2f GB/s\n", saxpy_gbps("opencl", n, sreps));
    std::printf("  cpu              %8.2f GB/s\n", saxpy_gbps("cpu", n, sreps));
    return 0;
}
