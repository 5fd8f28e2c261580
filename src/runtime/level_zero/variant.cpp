// Compiling, loading and launching variants on the Level Zero backend. Needs a driver: none of
// this runs on a machine without an Intel GPU, so the pure parts it relies on (ocloc arguments,
// launch limits, the artifact encoding) are tested separately.
#include "codegen/cfamily/emitter.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/image_buffer.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/level_zero/level_zero_backend.hpp"
#include "runtime/level_zero/module.hpp"
#include "runtime/result.hpp"

namespace tack::runtime::level_zero {

/// A loaded kernel with its pack arrays, allocated once when the variant is built. Each
/// dispatch queues an upload of its scalars after the launches before it, so a queued launch
/// still reads the values it was given.
class L0Variant final : public Variant {
  public:
    L0Variant(std::shared_ptr<LevelZeroBackend> backend, std::string name,
              codegen::cfamily::KernelAbi abi, LoadedModule module, Artifact artifact)
        : backend_(std::move(backend)),
          name_(std::move(name)),
          abi_(std::move(abi)),
          module_(module),
          artifact_(std::move(artifact)) {
        for (const auto& pack : abi_.packs)
            packs_.push_back(backend_->queue().allocate(pack.count * size_bytes(pack.dtype)));
    }
    // The module and kernel are kept: a queued launch may still use them, and Level Zero
    // cleanup is avoided where the driver may already be gone (the seed's __del__).
    ~L0Variant() override {
        for (void* p : packs_)
            backend_->queue().free(p);
    }

    std::shared_ptr<LevelZeroBackend> backend_;  // the queue outlives the pack arrays
    std::string name_;
    codegen::cfamily::KernelAbi abi_;
    LoadedModule module_;
    Artifact artifact_;
    std::vector<void*> packs_;
    std::shared_ptr<const ir::Kernel> result_kernel_;  // DECISIONS G7: kernels with a `return`
};

namespace {

std::shared_ptr<const Variant> with_result(std::shared_ptr<L0Variant> v, const ir::Kernel& k) {
    if (k.result) v->result_kernel_ = std::make_shared<ir::Kernel>(k);
    return v;
}

}  // namespace

namespace {

// D13 participation and D12 lanes come with the shared layer's generate (before, Level Zero
// skipped the participation check).
codegen::cfamily::GeneratedSource generate(const ir::Kernel& kernel, const gpu::Geometry& g) {
    return gpu::generate(kernel, codegen::cfamily::level_zero_dialect(), g);
}

}  // namespace

std::shared_ptr<const Variant> LevelZeroBackend::build_variant(const ir::Kernel& kernel,
                                                               const VariantOptions&) {
    auto gen = generate(kernel, geometry_);
    std::string why;
    const OclocApi* ocloc = ocloc_api(&why);
    if (!ocloc)
        throw RuntimeError("Kernel '" + kernel.name + "': cannot compile for Level Zero: " + why);
    SpirvResult spv = compile_to_spirv(*ocloc, gen.source, info_.device_id, options_);
    if (spv.spirv.empty()) {
        throw RuntimeError("Kernel '" + kernel.name + "': " + spv.log + "\nsource:\n" + gen.source);
    }
    LoadedModule module = create_from_spirv(api_, handles_.context, handles_.device, spv.spirv,
                                            options_, gen.abi.entry, gen.source);
    Artifact artifact{native_binary(api_, module.module), std::move(spv.spirv)};
    auto self = std::static_pointer_cast<LevelZeroBackend>(shared_from_this());
    return with_result(std::make_shared<L0Variant>(self, kernel.name, std::move(gen.abi), module,
                                                   std::move(artifact)),
                       kernel);
}

std::vector<std::uint8_t> LevelZeroBackend::variant_artifact(const Variant& variant) const {
    return encode_artifact(static_cast<const L0Variant&>(variant).artifact_);
}

std::shared_ptr<const Variant> LevelZeroBackend::load_variant(std::span<const std::uint8_t> bytes,
                                                              const ir::Kernel& kernel,
                                                              const VariantOptions&) {
    std::optional<Artifact> artifact = decode_artifact(bytes);
    if (!artifact) return nullptr;
    // The ABI is regenerated rather than stored: the emitter is deterministic and takes
    // microseconds, against ~190 ms for ocloc.
    auto gen = generate(kernel, geometry_);
    std::optional<LoadedModule> module = create_from_native(api_, handles_.context, handles_.device,
                                                            artifact->native, gen.abi.entry);
    if (!module) {
        ++native_refused_;
        if (artifact->spirv.empty()) return nullptr;
        module = create_from_spirv(api_, handles_.context, handles_.device, artifact->spirv,
                                   options_, gen.abi.entry, gen.source);
    }
    auto self = std::static_pointer_cast<LevelZeroBackend>(shared_from_this());
    return with_result(std::make_shared<L0Variant>(self, kernel.name, std::move(gen.abi), *module,
                                                   std::move(*artifact)),
                       kernel);
}

void LevelZeroBackend::execute(const Variant&, const std::uint64_t*, std::int64_t) {
    throw diag::InternalError("Level Zero launches bind buffers: call dispatch()");
}

void LevelZeroBackend::dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
    const auto& v = static_cast<const L0Variant&>(variant);
    if (args.total > 0) launch(v, args);
    if (!result) return;
    // The result reads device memory after the launch, through the queue (it waits first).
    if (!v.result_kernel_) throw RuntimeError("the compiled kernel has no result");
    ResultInputs in{v.result_kernel_.get(), args.slots, args.buffers,
                    [&](int param, std::size_t offset, void* dst, std::size_t bytes) {
                        auto* base =
                            reinterpret_cast<const std::uint8_t*>(args.buffers[param]->address());
                        queue_.download(dst, base + offset, bytes);
                    }};
    runtime::evaluate_result(in, result);
}

void LevelZeroBackend::launch(const L0Variant& v, const LaunchArgs& args) {
    const std::int64_t total = args.total;
    const std::uint64_t* slots = args.slots;
    const auto& abi = v.abi_;
    // ze_group_count_t is 32-bit and truncates rather than rejects; D12's complete groups were
    // missing here before the shared layer.
    gpu::check_dispatch(v.name_, abi, total, geometry_);
    std::vector<std::uint64_t> bits(slots, slots + abi.params.size());
    auto packs = abi.pack_scalars(bits);
    std::vector<std::uint64_t> bound(abi.params.size());  // array parameters' arguments
    bool complete = false;
    for (std::size_t i = 0; i < abi.params.size(); ++i) {
        const auto& p = abi.params[i];
        if (!p.is_array) continue;
        bound[i] = gpu::kernel_argument(p, *args.buffers[i], slots[i], v.name_);
        complete = complete || gpu::completes_before_return(p, *args.buffers[i]);
    }
    ze_kernel_handle_t k = v.module_.kernel;
    auto set = [&](int index, std::size_t size, const void* value) {
        check(api_.zeKernelSetArgumentValue(k, static_cast<uint32_t>(index), size, value),
              "zeKernelSetArgumentValue");
    };
    {
        std::lock_guard guard(queue_.lock());
        for (std::size_t j = 0; j < packs.size(); ++j)
            queue_.upload(v.packs_[j], packs[j].data(), packs[j].size());
        for (std::size_t i = 0; i < abi.params.size(); ++i)
            if (abi.params[i].is_array) set(abi.params[i].arg_index, sizeof(void*), &bound[i]);
        for (std::size_t j = 0; j < abi.packs.size(); ++j)
            set(abi.packs[j].arg_index, sizeof(void*), &v.packs_[j]);
        const std::int64_t n = total;
        set(abi.n_arg_index, sizeof n, &n);
        check(api_.zeKernelSetGroupSize(k, group_, 1, 1), "zeKernelSetGroupSize");
        const uint64_t groups = geometry_.groups(total);
        queue_.launch(k, static_cast<uint32_t>(groups));
    }
    // The seed's completion rule (memory another library may read with no Tack call in
    // between, or an image a queued launch must not outlive).
    if (complete) queue_.synchronize();
}

}  // namespace tack::runtime::level_zero
