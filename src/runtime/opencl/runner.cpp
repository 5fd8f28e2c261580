#include "runtime/opencl/runner.hpp"

#include <cstdlib>
#include <sstream>

#include "diag/diagnostic.hpp"
#include "support/env.hpp"

namespace tack::runtime::opencl {

namespace {

std::string device_string(const ClApi& api, cl_device_id dev, cl_uint what) {
    size_t n = 0;
    if (api.clGetDeviceInfo(dev, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
    std::string s(n, '\0');
    api.clGetDeviceInfo(dev, what, n, s.data(), nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

std::string platform_name(const ClApi& api, cl_platform_id p) {
    char buf[256] = {};
    api.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof buf - 1, buf, nullptr);
    return buf;
}

// TACK_OPENCL_DEVICE: index over every platform's devices, parsed as the backend parses it;
// -1 when malformed.
int device_index_from_env() {
    try {
        auto v = support::env_integer("TACK_OPENCL_DEVICE");
        return v && *v >= 0 ? static_cast<int>(*v) : v ? -1 : 0;
    } catch (const diag::CompileError&) {
        return -1;
    }
}

std::string fail(const std::string& what, cl_int code) {
    return what + " failed: " + cl_error_name(code);
}

}  // namespace

bool ClDeviceInfo::has_extension(const std::string& ext) const {
    std::istringstream in(extensions);
    for (std::string word; in >> word;)
        if (word == ext) return true;
    return false;
}

std::unique_ptr<ClRunner> ClRunner::create(std::string* why, int index) {
    const ClApi* api = cl_api(why);
    if (!api) return nullptr;
    if (index < 0) index = device_index_from_env();
    if (index < 0) {
        *why = "TACK_OPENCL_DEVICE must be a non-negative integer";
        return nullptr;
    }
    cl_uint np = 0;
    if (api->clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
        *why = "OpenCL unavailable: no OpenCL platform (is an ICD such as PoCL installed?)";
        return nullptr;
    }
    std::vector<cl_platform_id> platforms(np);
    api->clGetPlatformIDs(np, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
        cl_uint nd = 0;
        if (api->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
        std::vector<cl_device_id> devs(nd);
        api->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
        if (index >= static_cast<int>(nd)) {
            index -= static_cast<int>(nd);
            continue;
        }
        std::unique_ptr<ClRunner> r(new ClRunner());
        r->api_ = api;
        r->device_ = devs[index];
        r->info_.platform = platform_name(*api, p);
        r->info_.name = device_string(*api, r->device_, CL_DEVICE_NAME);
        r->info_.version = device_string(*api, r->device_, CL_DEVICE_VERSION);
        r->info_.c_version = device_string(*api, r->device_, CL_DEVICE_OPENCL_C_VERSION);
        r->info_.extensions = device_string(*api, r->device_, CL_DEVICE_EXTENSIONS);
        r->info_.fp64 = r->info_.has_extension("cl_khr_fp64");
        r->info_.int64_atomics = r->info_.has_extension("cl_khr_int64_base_atomics");
        api->clGetDeviceInfo(r->device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t),
                             &r->info_.max_work_group_size, nullptr);
        api->clGetDeviceInfo(r->device_, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(uint64_t),
                             &r->info_.local_mem_bytes, nullptr);
        cl_int err = CL_SUCCESS;
        r->context_ = api->clCreateContext(nullptr, 1, &r->device_, nullptr, nullptr, &err);
        if (!r->context_) {
            *why = fail("clCreateContext", err);
            return nullptr;
        }
        // Properties 0: an in-order queue, so copies, launches and reads run in program order.
        r->queue_ = api->clCreateCommandQueue(r->context_, r->device_, 0, &err);
        if (!r->queue_) {
            *why = fail("clCreateCommandQueue", err);
            return nullptr;
        }
        return r;
    }
    *why = "OpenCL unavailable: no OpenCL device with index " + std::to_string(index);
    return nullptr;
}

ClRunner::~ClRunner() {
    if (queue_) api_->clReleaseCommandQueue(queue_);
    if (context_) api_->clReleaseContext(context_);
}

std::string ClRunner::build(const std::string& source, const std::string& options,
                            cl_program* out) {
    const char* text = source.c_str();
    size_t len = source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = api_->clCreateProgramWithSource(context_, 1, &text, &len, &err);
    if (!program) return fail("clCreateProgramWithSource", err);
    err = api_->clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        size_t n = 0;
        api_->clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        if (n)
            api_->clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, n, log.data(),
                                        nullptr);
        api_->clReleaseProgram(program);
        return fail("clBuildProgram", err) + "\n" + log;
    }
    *out = program;
    return "";
}

std::string ClRunner::launch(cl_program program, const std::string& entry, std::vector<ClArg>& args,
                             uint64_t items, size_t local_size) {
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = api_->clCreateKernel(program, entry.c_str(), &err);
    if (!kernel) return fail("clCreateKernel(" + entry + ")", err);
    std::vector<cl_mem> mems(args.size(), nullptr);
    std::string error;
    for (size_t i = 0; i < args.size() && error.empty(); ++i) {
        ClArg& a = args[i];
        if (a.image_whd[0]) {
            mems[i] = create_image3d(a, &err);
            if (mems[i])
                err =
                    api_->clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mems[i]);
        } else if (!a.is_buffer) {
            err = api_->clSetKernelArg(kernel, static_cast<cl_uint>(i), a.bytes, a.data);
        } else {
            // OpenCL refuses empty buffers; an empty array still gets one byte.
            cl_bitfield flags = CL_MEM_READ_WRITE | (a.bytes ? CL_MEM_COPY_HOST_PTR : 0);
            mems[i] = api_->clCreateBuffer(context_, flags, a.bytes ? a.bytes : 1,
                                           a.bytes ? a.data : nullptr, &err);
            if (mems[i])
                err =
                    api_->clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mems[i]);
        }
        if (err != CL_SUCCESS) error = fail("argument " + std::to_string(i), err);
    }
    if (error.empty() && items > 0) {
        size_t groups = static_cast<size_t>((items + local_size - 1) / local_size);
        size_t global = groups * local_size;
        err = api_->clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &local_size, 0,
                                           nullptr, nullptr);
        if (err != CL_SUCCESS) error = fail("clEnqueueNDRangeKernel", err);
    }
    for (size_t i = 0; i < args.size() && error.empty(); ++i) {
        if (!mems[i] || !args[i].read_back || args[i].bytes == 0) continue;
        err = api_->clEnqueueReadBuffer(queue_, mems[i], CL_TRUE, 0, args[i].bytes, args[i].data, 0,
                                        nullptr, nullptr);
        if (err != CL_SUCCESS) error = fail("clEnqueueReadBuffer", err);
    }
    api_->clFinish(queue_);
    for (cl_mem m : mems)
        if (m) api_->clReleaseMemObject(m);
    api_->clReleaseKernel(kernel);
    return error;
}

cl_mem ClRunner::create_image3d(const ClArg& a, cl_int* err) {
    if (!api_->clCreateImage) {
        *err = -1;  // CL_DEVICE_NOT_FOUND: an OpenCL 1.1 loader has no clCreateImage
        return nullptr;
    }
    ClImageFormat format{CL_R, CL_FLOAT};
    ClImageDesc desc;
    desc.image_type = CL_MEM_OBJECT_IMAGE3D;
    desc.width = a.image_whd[0];
    desc.height = a.image_whd[1];
    desc.depth = a.image_whd[2];
    return api_->clCreateImage(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                               a.data, err);
}

std::string ClRunner::run(const std::string& source, const std::string& entry,
                          std::vector<ClArg>& args, uint64_t items, size_t local_size,
                          const std::string& options) {
    cl_program program = nullptr;
    std::string error = build(source, options, &program);
    if (!error.empty()) return error;
    error = launch(program, entry, args, items, local_size);
    api_->clReleaseProgram(program);
    return error;
}

}  // namespace tack::runtime::opencl
