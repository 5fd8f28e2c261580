// Compiling, caching and launching variants on the HIP backend, and its f32 reductions. Needs
// ROCm and an AMD GPU to run; the hipRTC compile is exercised here (tests/unit/hip) and the
// shared parts through tests/unit/gpu and OpenCL.
#include "codegen/cfamily/reduction.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/artifact.hpp"
#include "runtime/gpu/packs.hpp"
#include "runtime/gpu/result.hpp"
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

namespace cf = codegen::cfamily;

struct PackBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
};

/// A loaded code object and its entry with per-launch packs; `mutex_` is held from packing the
/// scalars until the launch is queued (D16).
class HipVariant final : public Variant {
  public:
    HipVariant(std::shared_ptr<HipBackend> backend, std::string name, gpu::CodeArtifact artifact,
               std::pair<hipModule_t, hipFunction_t> loaded)
        : backend_(std::move(backend)),
          name_(std::move(name)),
          artifact_(std::move(artifact)),
          module_(loaded.first),
          function_(loaded.second),
          packs_(artifact_.abi.packs.size()) {}
    ~HipVariant() override {
        packs_.clear([&](PackBuffer p) { backend_->release(p.ptr, p.bytes); });
        try {
            backend_->synchronize();  // no queued launch uses the module any more
        } catch (const std::exception&) {
        }
        DeviceScope scope(backend_->api(), backend_->device());
        backend_->api().hipModuleUnload(module_);
    }
    void keep_result(const ir::Kernel& k) {
        if (k.result) result_kernel_ = std::make_shared<ir::Kernel>(k);
    }

    std::shared_ptr<HipBackend> backend_;
    std::string name_;
    gpu::CodeArtifact artifact_;  // code object + ABI
    hipModule_t module_;
    hipFunction_t function_;
    mutable std::mutex mutex_;
    mutable gpu::PackSlots<PackBuffer> packs_;
    std::shared_ptr<const ir::Kernel> result_kernel_;
};

std::shared_ptr<const Variant> HipBackend::build_variant(const ir::Kernel& kernel,
                                                         const VariantOptions&) {
    auto gen = gpu::generate(kernel, cf::hip_dialect(), geometry_);
    gpu::CodeArtifact artifact;
    artifact.code = compile_code_object(gen.source, kernel.name);
    artifact.abi = std::move(gen.abi);
    auto loaded = load_code(artifact.code, artifact.abi.entry, kernel.name);
    auto self = std::static_pointer_cast<HipBackend>(shared_from_this());
    auto v = std::make_shared<HipVariant>(self, kernel.name, std::move(artifact), loaded);
    v->keep_result(kernel);
    return v;
}

std::vector<std::uint8_t> HipBackend::variant_artifact(const Variant& variant) const {
    return gpu::encode_artifact(static_cast<const HipVariant&>(variant).artifact_);
}

std::shared_ptr<const Variant> HipBackend::load_variant(std::span<const std::uint8_t> bytes,
                                                        const ir::Kernel& kernel,
                                                        const VariantOptions&) {
    std::optional<gpu::CodeArtifact> artifact = gpu::decode_artifact(bytes);
    if (!artifact) return nullptr;
    auto loaded = load_code(artifact->code, artifact->abi.entry, kernel.name);
    auto self = std::static_pointer_cast<HipBackend>(shared_from_this());
    auto v = std::make_shared<HipVariant>(self, kernel.name, std::move(*artifact), loaded);
    v->keep_result(kernel);
    return v;
}

void HipBackend::execute(const Variant&, const std::uint64_t*, std::int64_t) {
    throw diag::InternalError("HIP launches bind buffers: call dispatch()");
}

void HipBackend::launch(const Variant& variant, const LaunchArgs& args) {
    const auto& v = static_cast<const HipVariant&>(variant);
    const auto& abi = v.artifact_.abi;
    gpu::check_dispatch(v.name_, abi, args.total, geometry_);  // before anything is queued
    auto packs =
        abi.pack_scalars(std::vector<std::uint64_t>(args.slots, args.slots + abi.params.size()));
    std::vector<void*> values(static_cast<std::size_t>(abi.num_args));
    std::vector<void*> params(values.size());
    bool shared = false;
    DeviceScope scope(api_, device_);
    for (std::size_t i = 0; i < abi.params.size(); ++i) {
        const auto& p = abi.params[i];
        if (!p.is_array) continue;
        values[std::size_t(p.arg_index)] =
            p.is_texture ? static_cast<void*>(texture_object(*args.buffers[i], p.texture_extent))
                         : reinterpret_cast<void*>(args.buffers[i]->address());
        shared = shared || gpu::completes_before_return(p, *args.buffers[i]);
    }
    std::int64_t n = args.total;
    {
        std::lock_guard guard(v.mutex_);
        for (std::size_t j = 0; j < packs.size(); ++j) {
            auto make = [&](const std::vector<std::uint8_t>& bytes) {
                PackBuffer p{allocate(bytes.size()), bytes.size()};
                upload(p.ptr, bytes.data(), bytes.size());
                return p;
            };
            auto drop = [&](PackBuffer p) { release(p.ptr, p.bytes); };  // queued reuse
            values[std::size_t(abi.packs[j].arg_index)] =
                v.packs_.bind(j, std::move(packs[j]), make, drop).ptr;
        }
        for (std::size_t a = 0; a < values.size(); ++a)
            params[a] = &values[a];
        params[std::size_t(abi.n_arg_index)] = &n;
        check(api_,
              api_.hipModuleLaunchKernel(v.function_, unsigned(geometry_.groups(n)), 1, 1,
                                         unsigned(geometry_.group), 1, 1, 0, stream_, params.data(),
                                         nullptr),
              "hipModuleLaunchKernel");
    }
    if (shared) synchronize();
}

void HipBackend::dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
    if (args.total > 0) launch(variant, args);
    if (!result) return;
    const auto& v = static_cast<const HipVariant&>(variant);
    if (!v.result_kernel_) throw RuntimeError("the compiled kernel has no result");
    gpu::ResultInputs in{v.result_kernel_.get(), args.slots,
                         [&](int param, std::size_t offset, void* dst, std::size_t bytes) {
                             auto base =
                                 reinterpret_cast<const char*>(args.buffers[param]->address());
                             download(dst, base + offset, bytes);
                         }};
    gpu::evaluate_result(in, result);
}

std::optional<double> HipBackend::reduce_array(const Buffer& buffer, DType dtype,
                                               std::int64_t count, ReduceKind op) {
    if (dtype != DType::f32) return std::nullopt;  // E4: other dtypes on the host
    gpu::ReduceDecision d = gpu::plan_reduction(count, op, geometry_, ~std::uint64_t(0));
    if (d.empty) return 0.0;
    auto cop = static_cast<cf::ReduceOp>(op);
    std::shared_ptr<const Variant> reducer;
    {
        std::lock_guard guard(reduce_mutex_);
        auto& slot = reducers_[static_cast<int>(op)];
        if (!slot) {
            std::string entry = cf::array_reduction_entry(cop);
            gpu::CodeArtifact a;
            a.abi.entry = entry;
            a.code = compile_code_object(cf::array_reduction_source(cf::hip_dialect(), cop), entry);
            auto self = std::static_pointer_cast<HipBackend>(shared_from_this());
            auto loaded = load_code(a.code, entry, entry);
            slot = std::make_shared<HipVariant>(self, entry, std::move(a), loaded);
        }
        reducer = slot;
    }
    const auto& r = static_cast<const HipVariant&>(*reducer);
    void* out = allocate(sizeof(float));
    float result = d.plan.identity;
    upload(out, &result, sizeof result);
    void* in = reinterpret_cast<void*>(buffer.address());
    std::int64_t n = d.plan.count, stride = d.plan.stride;
    void* params[] = {&in, &out, &n, &stride};
    {
        DeviceScope scope(api_, device_);
        check(api_,
              api_.hipModuleLaunchKernel(r.function_, unsigned(d.plan.groups), 1, 1,
                                         unsigned(gpu::kCollectiveLanes), 1, 1, 0, stream_, params,
                                         nullptr),
              "hipModuleLaunchKernel(reduction)");
    }
    download(&result, out, sizeof result);
    release(out, sizeof(float));
    return static_cast<double>(result);
}

}  // namespace tack::runtime::hip
