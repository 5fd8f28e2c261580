#pragma once
// The OpenCL backend (DECISIONS "An opencl backend"): OpenCL C from the C-family emitter, built
// with clBuildProgram on any OpenCL 1.2+ device (PoCL here), program binaries kept in the disk
// cache, every launch, fill and copy queued on one in-order queue (queue.hpp). Launches return
// once queued; the host waits where it reads an array or synchronizes (DECISIONS G9).
//
// Arrays are cl_mem buffers, not pointers, so an array's address() is a unique, 4 KiB-aligned
// token from a private address range (disjoint byte ranges per buffer, as the aliasing and
// alignment checks expect). Launches bind the ClBuffer itself (LaunchArgs::buffers).
//
// Wrapped host memory (wrap_ptr) stays the storage: host reads and writes go straight to it,
// and a launch that binds it copies it into a private device buffer first and back after,
// completing before it returns (the seed's share()). CL_MEM_USE_HOST_PTR would be zero-copy on
// PoCL, but a discrete device may cache such a buffer, and host access outside map/unmap is
// then undefined.

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "runtime/backend.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/opencl/device.hpp"
#include "runtime/opencl/queue.hpp"
#include "runtime/opencl/reduce.hpp"

namespace tack::runtime::opencl {

const BackendEntry& backend_entry();

class OpenClBackend;

/// A cl_mem with a token address. Ordinary arrays are device-only, so reads and writes queue;
/// wrapped memory (host_ptr()) is read and written in place.
class ClBuffer final : public Buffer {
  public:
    ClBuffer(std::shared_ptr<OpenClBackend> backend, cl_mem mem, std::size_t nbytes, void* host);
    ~ClBuffer() override;
    void write(std::size_t offset, const void* src, std::size_t n) override;
    void read(std::size_t offset, void* dst, std::size_t n) const override;
    cl_mem mem() const { return mem_; }

  private:
    OpenClBackend& cl() const;
    cl_mem mem_;
};

class OpenClBackend final : public Backend {
  public:
    OpenClBackend(const ClApi& api, DeviceDesc device);

    const BackendEntry& entry() const override { return backend_entry(); }
    DTypeSet supported_dtypes() const override { return opencl::supported_dtypes(device_); }
    DTypeSet target_atomic_dtypes() const override { return atomic_dtypes(device_); }
    bool supports_device_reductions() const override { return workgroups_; }
    bool supports_workgroups() const override { return workgroups_; }
    std::uint64_t private_bytes() const override {
        return opencl::private_bytes(device_, Backend::private_bytes());
    }

    std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) override;
    std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) override;
    bool fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                    std::size_t count) override;
    bool copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) override;

    // variant.cpp
    std::shared_ptr<const Variant> build_variant(const ir::Kernel& kernel,
                                                 const VariantOptions& options) override;
    /// Launches bind buffers (dispatch); a bare slot launch is an internal error.
    void execute(const Variant& variant, const std::uint64_t* slots, std::int64_t total) override;
    /// The launch, then DECISIONS G7's result evaluated on the host (result.hpp).
    void dispatch(const Variant& variant, const LaunchArgs& args, void* result) override;
    void synchronize() override { queue_.synchronize(); }
    std::unique_ptr<QueueMark> mark_queue() override { return queue_.mark(); }

    std::optional<std::string> cache_target() const override {
        return opencl::cache_target(device_);
    }
    std::vector<std::uint8_t> variant_artifact(const Variant& variant) const override;
    std::shared_ptr<const Variant> load_variant(std::span<const std::uint8_t> bytes,
                                                const ir::Kernel& kernel,
                                                const VariantOptions& options) override;

    // reduce.cpp
    /// f32 on the device (256-lane tree + atomic combine); other dtypes on the host. Each lane
    /// sums kElementsPerLane elements or more: one element per lane made PoCL run 65536 groups
    /// for 2^24 floats, each a tree and an atomic update of one float (13 ns per element);
    /// 16 per lane cut that to ~1.5 ns (PoCL 5 on 2 cores), and a GPU wants several too.
    static constexpr std::int64_t kElementsPerLane = 16;
    std::optional<double> reduce_array(const Buffer& buffer, DType dtype, std::int64_t count,
                                       ir::ReduceOp op) override {
        if (dtype != DType::f32) return std::nullopt;
        const std::int64_t groups = std::max<std::int64_t>(1, count / (256 * kElementsPerLane));
        return reduce_f32(buffer, count, static_cast<ReduceOp>(op),
                          static_cast<std::uint64_t>(groups));
    }
    /// CONTRACT C14-C18/E4: reduces the first `count` f32 elements of `array` on the device,
    /// over at most `max_groups` groups of 256 lanes (the kernel strides past them). Empty:
    /// sum 0.0, min/max ValueError, nothing launched. nullopt when the device cannot run
    /// 256-lane groups: the caller reduces on the host.
    std::optional<double> reduce_f32(
        const Buffer& array, std::int64_t count, ReduceOp op,
        std::uint64_t max_groups = std::numeric_limits<std::uint64_t>::max());

    /// Programs built from source and loaded from cached binaries (for tests and tools).
    std::size_t programs_built() const { return built_; }
    std::size_t binaries_loaded() const { return loaded_; }

    const ClApi& api() const { return api_; }
    const DeviceDesc& device() const { return device_; }
    Queue& queue() { return queue_; }

    const gpu::Geometry& geometry() const { return geometry_; }
    /// A fresh token range of `nbytes` (ClBuffer's address()).
    std::uint64_t next_token(std::size_t nbytes);

  private:
    void launch(const Variant& variant, const LaunchArgs& args);
    Reducer& reducer();

    const ClApi& api_;
    DeviceDesc device_;
    Queue queue_;
    gpu::Geometry geometry_;
    bool workgroups_ = false;
    std::atomic<std::uint64_t> next_address_ = std::uint64_t(1) << 44;
    std::atomic<std::size_t> built_ = 0, loaded_ = 0;
    std::once_flag reducer_once_;
    std::unique_ptr<Reducer> reducer_;  // declared after queue_: released before its context
};

}  // namespace tack::runtime::opencl
