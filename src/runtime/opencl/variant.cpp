// Compiling, caching and launching variants on the OpenCL backend.
#include <cstring>

#include "codegen/cfamily/emitter.hpp"
#include "ir/ir.hpp"
#include "passes/passes.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/packs.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/runner.hpp"
#include "runtime/result.hpp"

namespace tack::runtime::opencl {

namespace {

codegen::cfamily::GeneratedSource generate(const ir::Kernel& kernel, const gpu::Geometry& g) {
    return gpu::generate(kernel, codegen::cfamily::opencl_dialect(), g);
}

std::string build_log(const ClApi& api, cl_program program, cl_device_id device) {
    size_t n = 0;
    api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && log.back() == '\0')
        log.pop_back();
    return log;
}

std::vector<std::uint8_t> program_binary(const ClApi& api, cl_program program) {
    size_t size = 0;
    if (api.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
            CL_SUCCESS ||
        size == 0)
        return {};
    std::vector<std::uint8_t> bytes(size);
    unsigned char* ptr = bytes.data();
    if (api.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS)
        return {};
    return bytes;
}

}  // namespace

/// A built program and its kernel. Scalars travel in immutable per-launch pack buffers
/// (gpu::PackSlots): a queued launch keeps the values it was given.
class ClVariant final : public Variant {
  public:
    ClVariant(std::shared_ptr<OpenClBackend> backend, std::string name,
              codegen::cfamily::KernelAbi abi, cl_program program, cl_kernel kernel,
              std::vector<std::uint8_t> binary, std::size_t group)
        : backend_(std::move(backend)),
          name_(std::move(name)),
          abi_(std::move(abi)),
          program_(program),
          kernel_(kernel),
          binary_(std::move(binary)),
          group_(group),
          packs_(abi_.packs.size()) {}

    /// Keeps what `return expr` needs (DECISIONS G7); nothing for kernels without a result.
    void keep_result(const ir::Kernel& k) {
        if (k.result) result_kernel_ = std::make_shared<ir::Kernel>(k);
    }
    ~ClVariant() override {
        const ClApi& api = backend_->api();
        packs_.clear([&](cl_mem m) { api.clReleaseMemObject(m); });
        api.clReleaseKernel(kernel_);  // deferred by OpenCL past queued launches
        api.clReleaseProgram(program_);
    }

    std::shared_ptr<OpenClBackend> backend_;  // the context outlives the program
    std::string name_;
    codegen::cfamily::KernelAbi abi_;
    cl_program program_;
    cl_kernel kernel_;
    std::vector<std::uint8_t> binary_;
    std::size_t group_;
    mutable gpu::PackSlots<cl_mem> packs_;  // guarded by the queue lock
    std::shared_ptr<const ir::Kernel> result_kernel_;
};

namespace {

/// The kernel from a built program, or a RuntimeError naming it.
cl_kernel create_kernel(const ClApi& api, cl_program program, const std::string& entry) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = api.clCreateKernel(program, entry.c_str(), &err);
    check(err, "clCreateKernel(" + entry + ")");
    return k;
}

/// 256 lanes unless the device or this kernel admits fewer (collectives then refuse).
std::size_t kernel_group(const ClApi& api, cl_kernel k, const DeviceDesc& d,
                         const codegen::cfamily::KernelAbi& abi, const std::string& name) {
    std::size_t limit = 0;
    api.clGetKernelWorkGroupInfo(k, d.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit,
                                 nullptr);
    std::size_t group = group_size(d);
    if (limit > 0 && limit < group) group = limit;
    if (abi.uses_collectives) gpu::check_collective_lanes(name, group);
    return group;
}

}  // namespace

std::shared_ptr<const Variant> OpenClBackend::build_variant(const ir::Kernel& kernel,
                                                            const VariantOptions&) {
    auto gen = generate(kernel, geometry_);
    const char* text = gen.source.c_str();
    size_t len = gen.source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = api_.clCreateProgramWithSource(queue_.context(), 1, &text, &len, &err);
    check(err, "clCreateProgramWithSource");
    err = api_.clBuildProgram(program, 1, &device_.device, kBuildOptions, nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::string log = build_log(api_, program, device_.device);
        api_.clReleaseProgram(program);
        throw RuntimeError("Kernel '" + kernel.name + "': clBuildProgram failed: " +
                           cl_error_name(err) + "\n" + log + "\nsource:\n" + gen.source);
    }
    cl_kernel k = nullptr;
    try {
        k = create_kernel(api_, program, gen.abi.entry);
    } catch (...) {
        api_.clReleaseProgram(program);
        throw;
    }
    std::size_t group = kernel_group(api_, k, device_, gen.abi, kernel.name);
    ++built_;
    auto self = std::static_pointer_cast<OpenClBackend>(shared_from_this());
    auto v = std::make_shared<ClVariant>(self, kernel.name, std::move(gen.abi), program, k,
                                         program_binary(api_, program), group);
    v->keep_result(kernel);
    return v;
}

std::vector<std::uint8_t> OpenClBackend::variant_artifact(const Variant& variant) const {
    return static_cast<const ClVariant&>(variant).binary_;
}

std::shared_ptr<const Variant> OpenClBackend::load_variant(std::span<const std::uint8_t> bytes,
                                                           const ir::Kernel& kernel,
                                                           const VariantOptions&) {
    if (bytes.empty()) return nullptr;
    // The ABI is regenerated rather than stored: the emitter is deterministic and cheap.
    auto gen = generate(kernel, geometry_);
    const unsigned char* data = bytes.data();
    size_t size = bytes.size();
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    cl_program program = api_.clCreateProgramWithBinary(queue_.context(), 1, &device_.device, &size,
                                                        &data, &status, &err);
    if (!program) return nullptr;
    if (err != CL_SUCCESS || status != CL_SUCCESS ||
        api_.clBuildProgram(program, 1, &device_.device, kBuildOptions, nullptr, nullptr) !=
            CL_SUCCESS) {
        api_.clReleaseProgram(program);
        return nullptr;  // a binary the driver refuses: the caller compiles the source
    }
    cl_int kerr = CL_SUCCESS;
    cl_kernel k = api_.clCreateKernel(program, gen.abi.entry.c_str(), &kerr);
    if (!k) {
        api_.clReleaseProgram(program);
        return nullptr;
    }
    std::size_t group = kernel_group(api_, k, device_, gen.abi, kernel.name);
    ++loaded_;
    auto self = std::static_pointer_cast<OpenClBackend>(shared_from_this());
    auto v =
        std::make_shared<ClVariant>(self, kernel.name, std::move(gen.abi), program, k,
                                    std::vector<std::uint8_t>(bytes.begin(), bytes.end()), group);
    v->keep_result(kernel);
    return v;
}

void OpenClBackend::execute(const Variant&, const std::uint64_t*, std::int64_t) {
    throw diag::InternalError("OpenCL launches bind buffers: call dispatch()");
}

void OpenClBackend::launch(const Variant& variant, const LaunchArgs& args) {
    const auto& v = static_cast<const ClVariant&>(variant);
    const auto& abi = v.abi_;
    gpu::check_dispatch(v.name_, abi, args.total, geometry_);  // before anything is queued
    std::vector<std::vector<std::uint8_t>> packs;
    if (!abi.packs.empty())
        packs = abi.pack_scalars(
            std::vector<std::uint64_t>(args.slots, args.slots + abi.params.size()));
    cl_kernel k = v.kernel_;
    auto set = [&](int index, std::size_t size, const void* value) {
        check(api_.clSetKernelArg(k, static_cast<cl_uint>(index), size, value), "clSetKernelArg");
    };
    std::vector<const ClBuffer*> wrapped;
    {
        std::lock_guard guard(queue_.lock());
        for (std::size_t i = 0; i < abi.params.size(); ++i) {
            if (!abi.params[i].is_array) continue;
            const auto* b = static_cast<const ClBuffer*>(args.buffers[i]);
            if (b->host_ptr()) {
                queue_.enqueue_write(b->mem(), b->host_ptr(), b->nbytes());
                wrapped.push_back(b);
            }
            cl_mem mem = b->mem();
            set(abi.params[i].arg_index, sizeof(cl_mem), &mem);
        }
        for (std::size_t j = 0; j < packs.size(); ++j) {
            auto make = [&](const std::vector<std::uint8_t>& bytes) {
                cl_int err = CL_SUCCESS;
                cl_mem mem = api_.clCreateBuffer(
                    queue_.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(),
                    const_cast<std::uint8_t*>(bytes.data()), &err);
                check(err, "clCreateBuffer(pack)");
                return mem;
            };
            // Deferred by OpenCL past the launches that read it.
            auto release = [&](cl_mem m) { api_.clReleaseMemObject(m); };
            cl_mem mem = v.packs_.bind(j, std::move(packs[j]), make, release);
            set(abi.packs[j].arg_index, sizeof(cl_mem), &mem);
        }
        const std::int64_t n = args.total;
        set(abi.n_arg_index, sizeof n, &n);
        const std::size_t local = v.group_;
        const std::size_t global = gpu::Geometry{"", local, 0}.groups(n) * local;
        check(api_.clEnqueueNDRangeKernel(queue_.queue(), k, 1, nullptr, &global, &local, 0,
                                          nullptr, nullptr),
              "clEnqueueNDRangeKernel");
        for (const ClBuffer* b : wrapped)
            queue_.enqueue_read(b->host_ptr(), b->mem(), b->nbytes());
    }
    // Wrapped memory belongs to another library, which may read it with no Tack call between.
    if (!wrapped.empty()) queue_.synchronize();
}

void OpenClBackend::dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
    if (args.total > 0) launch(variant, args);
    if (!result) return;
    const auto& v = static_cast<const ClVariant&>(variant);
    if (!v.result_kernel_) throw RuntimeError("the compiled kernel has no result");
    ResultInputs in{v.result_kernel_.get(), args.slots, args.buffers,
                    [&](int param, std::size_t offset, void* dst, std::size_t bytes) {
                        const auto* b = static_cast<const ClBuffer*>(args.buffers[param]);
                        queue_.download(dst, b->mem(), offset, bytes);
                    }};
    runtime::evaluate_result(in, result);
}

}  // namespace tack::runtime::opencl
