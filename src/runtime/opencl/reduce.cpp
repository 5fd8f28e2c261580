#include "runtime/opencl/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runtime/errors.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/runner.hpp"

namespace tack::runtime::opencl {

namespace {

namespace cf = codegen::cfamily;

constexpr std::size_t kGroup = cf::kReductionGroupSize;

std::string build_log(const ClApi& api, cl_program program, cl_device_id device) {
    size_t n = 0;
    api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    return log;
}

}  // namespace

Reducer::~Reducer() {
    for (cl_kernel k : kernels_)
        if (k) api_.clReleaseKernel(k);
    for (cl_program p : programs_)
        if (p) api_.clReleaseProgram(p);
}

cl_kernel Reducer::kernel(ReduceOp op) {
    int i = static_cast<int>(op);
    if (tried_[i]) return kernels_[i];
    std::string source = cf::array_reduction_source(cf::opencl_dialect(), op);
    const char* text = source.c_str();
    size_t len = source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = api_.clCreateProgramWithSource(queue_.context(), 1, &text, &len, &err);
    check(err, "clCreateProgramWithSource(reduction)");
    err = api_.clBuildProgram(program, 1, &device_.device, kBuildOptions, nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::string log = build_log(api_, program, device_.device);
        api_.clReleaseProgram(program);
        throw RuntimeError("OpenCL: building the " + cf::array_reduction_entry(op) +
                           " reduction failed: " + cl_error_name(err) + "\n" + log);
    }
    programs_[i] = program;
    tried_[i] = true;  // a kernel that cannot be created is not retried: the host reduces
    cl_kernel k = api_.clCreateKernel(program, cf::array_reduction_entry(op).c_str(), &err);
    check(err, "clCreateKernel(" + cf::array_reduction_entry(op) + ")");
    // The tree assumes exactly 256 lanes; a kernel the device caps lower reduces on the host.
    std::size_t limit = 0;
    api_.clGetKernelWorkGroupInfo(k, device_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit,
                                  &limit, nullptr);
    if (limit > 0 && limit < kGroup) {
        api_.clReleaseKernel(k);
        return nullptr;
    }
    kernels_[i] = k;
    return k;
}

std::optional<float> Reducer::run(cl_mem mem, const gpu::ReducePlan& plan, ReduceOp op) {
    cl_kernel k = nullptr;
    {
        std::lock_guard guard(mutex_);
        k = kernel(op);
    }
    if (!k) return std::nullopt;
    cl_int err = CL_SUCCESS;
    float identity = plan.identity;
    cl_mem out = api_.clCreateBuffer(queue_.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                     sizeof identity, &identity, &err);
    check(err, "clCreateBuffer(reduction result)");
    float result = identity;
    try {
        {
            std::lock_guard guard(queue_.lock());  // a cl_kernel's arguments are shared state
            auto set = [&](cl_uint index, std::size_t size, const void* value) {
                check(api_.clSetKernelArg(k, index, size, value), "clSetKernelArg(reduction)");
            };
            set(0, sizeof(cl_mem), &mem);
            set(1, sizeof(cl_mem), &out);
            set(2, sizeof plan.count, &plan.count);
            set(3, sizeof plan.stride, &plan.stride);
            const std::size_t local = kGroup;
            const std::size_t global = static_cast<std::size_t>(plan.stride);
            check(api_.clEnqueueNDRangeKernel(queue_.queue(), k, 1, nullptr, &global, &local, 0,
                                              nullptr, nullptr),
                  "clEnqueueNDRangeKernel(reduction)");
        }
        queue_.download(&result, out, 0, sizeof result);
    } catch (...) {
        queue_.release(out);
        throw;
    }
    queue_.release(out);
    return result;
}

std::optional<double> OpenClBackend::reduce_f32(const Buffer& array, std::int64_t count,
                                                ReduceOp op, std::uint64_t max_groups) {
    // The shared rules: empty arrays, the group count and the identity (CONTRACT C15, E4).
    gpu::ReduceDecision d = gpu::plan_reduction(count, op, geometry_, max_groups);
    if (d.empty) return 0.0;
    if (!workgroups_) return std::nullopt;  // fewer than 256 lanes per group (E4)
    const auto& b = static_cast<const ClBuffer&>(array);
    if (static_cast<std::uint64_t>(count) * sizeof(float) > b.nbytes())
        throw RuntimeError("OpenCL: reduction of " + std::to_string(count) +
                           " floats over a smaller buffer");
    // Wrapped memory is the storage: the device copy is refreshed before the launch.
    if (b.host_ptr()) {
        std::lock_guard guard(queue_.lock());
        queue_.enqueue_write(b.mem(), b.host_ptr(), b.nbytes());
    }
    std::optional<float> r = reducer().run(b.mem(), d.plan, op);
    if (!r) return std::nullopt;
    return static_cast<double>(*r);
}

Reducer& OpenClBackend::reducer() {
    std::call_once(reducer_once_,
                   [&] { reducer_ = std::make_unique<Reducer>(api_, device_, queue_); });
    return *reducer_;
}

}  // namespace tack::runtime::opencl
