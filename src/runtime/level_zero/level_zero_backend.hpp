#pragma once
// The Level Zero backend (seed "Level Zero"): OpenCL C from the C-family emitter, compiled to
// SPIR-V in process by libocloc and loaded with zeModuleCreate; device memory from
// zeMemAllocDevice; every launch, fill and copy queued on one asynchronous immediate command
// list (queue.hpp). Launches return once queued; the host waits where it reads an array or
// synchronizes (DECISIONS G9).

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "runtime/backend.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/level_zero/device.hpp"
#include "runtime/level_zero/module.hpp"
#include "runtime/level_zero/ocloc.hpp"
#include "runtime/level_zero/queue.hpp"

namespace tack::runtime::level_zero {

const BackendEntry& backend_entry();

class L0Variant;

/// OpenCL C source and entry -> a loaded module (ocloc + zeModuleCreate; tests substitute one).
using ReductionCompiler =
    std::function<LoadedModule(const std::string& source, const std::string& entry)>;

class LevelZeroBackend final : public Backend {
  public:
    LevelZeroBackend(const ZeApi& api, DeviceHandles handles, DeviceInfo info);

    const BackendEntry& entry() const override { return backend_entry(); }
    DTypeSet supported_dtypes() const override { return level_zero::supported_dtypes(info_); }
    // reduce.cpp
    std::optional<double> reduce_array(const Buffer& buffer, DType dtype, std::int64_t count,
                                       ir::ReduceOp op) override;
    /// The f32 reduction with modules from `compile` (built once per operation). nullopt when
    /// the device's groups are below 256 lanes (the caller reduces on the host).
    std::optional<double> reduce_f32(const Buffer& buffer, std::int64_t count, ir::ReduceOp op,
                                     const ReductionCompiler& compile);
    /// E5 and the seed's rule: hardware where the device has samplers (maxSamplers > 0; Xe-HPC
    /// has none) and every extent is at most maxImageDims3D.
    bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const override;
    /// A 3-D 32-bit float image (zeImageCreate), filled on the queue straight from the source
    /// array's device memory: the texture holds this one copy (gpu::ImageBuffer), and kernels
    /// receive its handle, sampled through the program-scope sampler of the OpenCL dialect.
    std::shared_ptr<Buffer> make_texture_image(const Buffer& source, std::uint64_t address,
                                               const std::array<std::int64_t, 3>& whd) override;
    /// zeMemGetAllocProperties: "level_zero" for device and shared allocations of the
    /// backend's context, "cpu" for anything else (host allocations included, CONTRACT C21).
    std::string memory_space(std::uint64_t address) const override;
    /// CONTRACT E1 (the row): Level Zero device memory in (PyTorch XPU, dpctl), kDLOneAPI out;
    /// host tensors are refused (a kernel could not read them), not wrapped as device memory.
    int device_ordinal() const override { return int(handles_.ordinal); }

    std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) override;
    std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) override;
    bool fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                    std::size_t count) override;

    // variant.cpp
    std::shared_ptr<const Variant> build_variant(const ir::Kernel& kernel,
                                                 const VariantOptions& options) override;
    /// Launches bind buffers (dispatch); a bare slot launch is an internal error.
    void execute(const Variant& variant, const std::uint64_t* slots, std::int64_t total) override;
    /// The launch; one that binds shared memory (wrapped, exported) completes before returning.
    void dispatch(const Variant& variant, const LaunchArgs& args, void* result) override;
    void synchronize() override { queue_.synchronize(); }
    /// The seed's _ListMarker: a barrier signalling a pooled event, waited for outside the
    /// launch lock (Queue::mark); a synchronizing mark where the list has no events to spare.
    std::unique_ptr<QueueMark> mark_queue() override;

    std::optional<std::string> cache_target() const override;
    std::vector<std::uint8_t> variant_artifact(const Variant& variant) const override;
    std::shared_ptr<const Variant> load_variant(std::span<const std::uint8_t> bytes,
                                                const ir::Kernel& kernel,
                                                const VariantOptions& options) override;

    const ZeApi& api() const { return api_; }
    const DeviceHandles& handles() const { return handles_; }
    const DeviceInfo& info() const { return info_; }
    Queue& queue() { return queue_; }
    /// Native binaries the driver refused from the disk cache (loaded from SPIR-V instead).
    std::size_t native_refused() const { return native_refused_; }

  private:
    void launch(const L0Variant& v, const LaunchArgs& args);
    ReductionCompiler ocloc_compiler();

    const ZeApi& api_;
    DeviceHandles handles_;
    DeviceInfo info_;
    Queue queue_;
    uint32_t group_ = 0;
    gpu::Geometry geometry_;
    std::string options_;  // ocloc options and zeModuleCreate build flags
    std::atomic<std::size_t> native_refused_ = 0;
    std::mutex reduce_mutex_;
    LoadedModule reducers_[3];  // kept, like variants' modules (no Level Zero cleanup)
};

}  // namespace tack::runtime::level_zero
