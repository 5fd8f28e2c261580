// Compiling, caching and launching variants on the CUDA backend, and its f32 reductions. Needs a
// driver and a GPU: none of this runs here; the shared parts it is made of (launch rules, packs,
// artifact, context tokens, deferred frees) are tested through tests/unit/gpu and OpenCL.
#include <cstring>

#include "codegen/cfamily/reduction.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/artifact.hpp"
#include "runtime/gpu/packs.hpp"
#include "runtime/gpu/result.hpp"

namespace tack::runtime::cuda {

namespace cf = codegen::cfamily;

/// A loaded module and its entry, with per-launch pack buffers (gpu::PackSlots). `mutex` is the
/// seed's dispatch_lock: held from packing the scalars until the launch is queued (D16), so
/// different variants still dispatch concurrently.
class CuVariant final : public Variant {
  public:
    CuVariant(std::shared_ptr<CudaBackend> backend, std::string name, gpu::CodeArtifact artifact,
              std::pair<CUmodule, CUfunction> loaded)
        : backend_(std::move(backend)),
          name_(std::move(name)),
          artifact_(std::move(artifact)),
          module_(loaded.first),
          function_(loaded.second),
          packs_(artifact_.abi.packs.size()) {}
    ~CuVariant() override {
        packs_.clear([&](CUdeviceptr p) { backend_->free(p); });
        ContextScope scope(backend_->api(), backend_->context(), /*quiet=*/true);
        backend_->api().cuStreamSynchronize(backend_->stream());  // no queued launch uses it
        backend_->api().cuModuleUnload(module_);
    }
    void keep_result(const ir::Kernel& k) {
        if (k.result) result_kernel_ = std::make_shared<ir::Kernel>(k);
    }

    std::shared_ptr<CudaBackend> backend_;  // the context outlives the module
    std::string name_;
    gpu::CodeArtifact artifact_;  // PTX + ABI
    CUmodule module_;
    CUfunction function_;
    mutable std::mutex mutex_;
    mutable gpu::PackSlots<CUdeviceptr> packs_;  // guarded by mutex_
    std::shared_ptr<const ir::Kernel> result_kernel_;
};

std::shared_ptr<const Variant> CudaBackend::build_variant(const ir::Kernel& kernel,
                                                          const VariantOptions&) {
    auto gen = gpu::generate(kernel, cf::cuda_dialect(), geometry_);
    gpu::CodeArtifact artifact;
    std::string ptx = compile_ptx(gen.source, kernel.name);
    artifact.code.assign(ptx.begin(), ptx.end());
    artifact.abi = std::move(gen.abi);
    auto loaded = load_ptx(ptx, artifact.abi.entry, kernel.name);
    ++built_;
    auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
    auto v = std::make_shared<CuVariant>(self, kernel.name, std::move(artifact), loaded);
    v->keep_result(kernel);
    return v;
}

std::vector<std::uint8_t> CudaBackend::variant_artifact(const Variant& variant) const {
    return gpu::encode_artifact(static_cast<const CuVariant&>(variant).artifact_);
}

std::shared_ptr<const Variant> CudaBackend::load_variant(std::span<const std::uint8_t> bytes,
                                                         const ir::Kernel& kernel,
                                                         const VariantOptions&) {
    // PTX, entry and layouts come from the cache: no code generation, no NVRTC. The checks
    // generate() makes (D13, D12 lanes) ran when the artifact was built for this target.
    std::optional<gpu::CodeArtifact> artifact = gpu::decode_artifact(bytes);
    if (!artifact) return nullptr;
    std::string ptx(artifact->code.begin(), artifact->code.end());
    auto loaded = load_ptx(ptx, artifact->abi.entry, kernel.name);
    ++loaded_;
    auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
    auto v = std::make_shared<CuVariant>(self, kernel.name, std::move(*artifact), loaded);
    v->keep_result(kernel);
    return v;
}

void CudaBackend::execute(const Variant&, const std::uint64_t*, std::int64_t) {
    throw diag::InternalError("CUDA launches bind buffers: call dispatch()");
}

void CudaBackend::launch(const Variant& variant, const LaunchArgs& args) {
    const auto& v = static_cast<const CuVariant&>(variant);
    const auto& abi = v.artifact_.abi;
    gpu::check_dispatch(v.name_, abi, args.total, geometry_);  // before anything is queued
    auto packs =
        abi.pack_scalars(std::vector<std::uint64_t>(args.slots, args.slots + abi.params.size()));
    std::vector<CUdeviceptr> values(static_cast<std::size_t>(abi.num_args));
    std::vector<void*> params(values.size());
    bool shared = false;
    ContextScope scope(api_, context());
    for (std::size_t i = 0; i < abi.params.size(); ++i) {
        const cf::AbiParam& p = abi.params[i];
        if (!p.is_array) continue;
        values[std::size_t(p.arg_index)] = p.is_texture
                                               ? texture_object(*args.buffers[i], p.texture_extent)
                                               : args.buffers[i]->address();
        shared = shared || gpu::completes_before_return(p, *args.buffers[i]);
    }
    std::int64_t n = args.total;
    {
        std::lock_guard guard(v.mutex_);
        for (std::size_t j = 0; j < packs.size(); ++j) {
            auto make = [&](const std::vector<std::uint8_t>& bytes) {
                CUdeviceptr p = allocate(bytes.size());
                upload(p, bytes.data(), bytes.size());
                return p;
            };
            auto release = [&](CUdeviceptr p) { free(p); };  // stream-ordered
            values[std::size_t(abi.packs[j].arg_index)] =
                v.packs_.bind(j, std::move(packs[j]), make, release);
        }
        for (std::size_t a = 0; a < values.size(); ++a)
            params[a] = &values[a];
        params[std::size_t(abi.n_arg_index)] = &n;
        auto groups = static_cast<unsigned>(geometry_.groups(n));
        check(api_,
              api_.cuLaunchKernel(v.function_, groups, 1, 1, unsigned(geometry_.group), 1, 1, 0,
                                  stream_, params.data(), nullptr),
              "cuLaunchKernel");
    }
    // Memory outside Tack may be read by its owner with no Tack call in between.
    if (shared) synchronize();
}

void CudaBackend::dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
    if (args.total > 0) launch(variant, args);
    if (!result) return;
    const auto& v = static_cast<const CuVariant&>(variant);
    if (!v.result_kernel_) throw RuntimeError("the compiled kernel has no result");
    gpu::ResultInputs in{v.result_kernel_.get(), args.slots,
                         [&](int param, std::size_t offset, void* dst, std::size_t bytes) {
                             download(dst, args.buffers[param]->address() + offset, bytes);
                         }};
    gpu::evaluate_result(in, result);
}

std::optional<double> CudaBackend::reduce_array(const Buffer& buffer, DType dtype,
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
            std::string ptx =
                compile_ptx(cf::array_reduction_source(cf::cuda_dialect(), cop), entry);
            gpu::CodeArtifact a;
            a.abi.entry = entry;
            auto self = std::static_pointer_cast<CudaBackend>(shared_from_this());
            slot =
                std::make_shared<CuVariant>(self, entry, std::move(a), load_ptx(ptx, entry, entry));
        }
        reducer = slot;
    }
    const auto& r = static_cast<const CuVariant&>(*reducer);
    CUdeviceptr out = allocate(sizeof(float));
    float result = d.plan.identity;
    upload(out, &result, sizeof result);
    CUdeviceptr in = buffer.address();
    std::int64_t n = d.plan.count, stride = d.plan.stride;
    void* params[] = {&in, &out, &n, &stride};
    {
        ContextScope scope(api_, context());
        check(
            api_,
            api_.cuLaunchKernel(r.function_, unsigned(d.plan.groups), 1, 1,
                                unsigned(gpu::kCollectiveLanes), 1, 1, 0, stream_, params, nullptr),
            "cuLaunchKernel(reduction)");
    }
    download(&result, out, sizeof result);
    free(out);
    return static_cast<double>(result);
}

}  // namespace tack::runtime::cuda
