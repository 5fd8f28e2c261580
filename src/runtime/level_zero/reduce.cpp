// f32 device reductions on Level Zero (CONTRACT E4), through the shared plan: one module per
// operation built on first use from the OpenCL dialect's reduction source, launched on the
// backend's list, the one float read back. Before, Level Zero declared device reductions and
// reduced on the host.
#include "codegen/cfamily/reduction.hpp"
#include "runtime/errors.hpp"
#include "runtime/level_zero/level_zero_backend.hpp"

namespace tack::runtime::level_zero {

namespace cf = codegen::cfamily;

ReductionCompiler LevelZeroBackend::ocloc_compiler() {
    return [this](const std::string& source, const std::string& entry) -> LoadedModule {
        std::string why;
        const OclocApi* ocloc = ocloc_api(&why);
        if (!ocloc) throw RuntimeError("Level Zero: cannot compile the reduction: " + why);
        SpirvResult spv = compile_to_spirv(*ocloc, source, info_.device_id, options_);
        if (spv.spirv.empty()) throw RuntimeError("Level Zero: " + entry + ": " + spv.log);
        return create_from_spirv(api_, handles_.context, handles_.device, spv.spirv, options_,
                                 entry, source);
    };
}

std::optional<double> LevelZeroBackend::reduce_array(const Buffer& buffer, DType dtype,
                                                     std::int64_t count, ir::ReduceOp op) {
    if (dtype != DType::f32) return std::nullopt;  // E4: other dtypes on the host
    return reduce_f32(buffer, count, op, ocloc_compiler());
}

std::optional<double> LevelZeroBackend::reduce_f32(const Buffer& buffer, std::int64_t count,
                                                   ir::ReduceOp op,
                                                   const ReductionCompiler& compile) {
    gpu::ReduceDecision d = gpu::plan_reduction(count, op, geometry_, ~std::uint64_t(0));
    if (d.empty) return 0.0;
    if (group_ < gpu::kCollectiveLanes) return std::nullopt;  // E4: fewer than 256 lanes
    ze_kernel_handle_t k = nullptr;
    {
        std::lock_guard guard(reduce_mutex_);
        LoadedModule& m = reducers_[static_cast<int>(op)];
        if (!m.kernel)
            m = compile(cf::array_reduction_source(cf::level_zero_dialect(), op),
                        cf::array_reduction_entry(op));
        k = m.kernel;
    }
    void* out = queue_.allocate(sizeof(float));
    float result = d.plan.identity;
    queue_.upload(out, &result, sizeof result);
    void* in = reinterpret_cast<void*>(buffer.address());
    auto set = [&](uint32_t index, std::size_t size, const void* value) {
        check(api_.zeKernelSetArgumentValue(k, index, size, value), "zeKernelSetArgumentValue");
    };
    {
        std::lock_guard guard(queue_.lock());  // the kernel's arguments are shared state
        set(0, sizeof in, &in);
        set(1, sizeof out, &out);
        set(2, sizeof d.plan.count, &d.plan.count);
        set(3, sizeof d.plan.stride, &d.plan.stride);
        check(api_.zeKernelSetGroupSize(k, uint32_t(gpu::kCollectiveLanes), 1, 1),
              "zeKernelSetGroupSize");
        queue_.launch(k, static_cast<uint32_t>(d.plan.groups));
    }
    queue_.download(&result, out, sizeof result);
    queue_.free(out);
    return static_cast<double>(result);
}

}  // namespace tack::runtime::level_zero
