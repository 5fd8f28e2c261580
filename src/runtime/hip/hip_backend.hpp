#pragma once
// The HIP backend (seed "HIP"): HIP C from the C-family emitter (the CUDA table with a few
// overrides), a code object from hipRTC with -ffp-contract=on, loaded with hipModuleLoadData.
//
// Device: hipGetDevice() at construction; HIP manages the context. Every call Tack makes runs
// with that device current on the calling thread (DeviceScope), so another thread may dispatch.
// Queue (DECISIONS G9): one blocking stream per device, made on first use and shared by every
// backend on it (ordered with the null stream). Waits record a blocking-sync event after the
// queued work and wait on it, never hipStreamSynchronize: ROCm 7.1's stream synchronize holds
// the stream, so another thread's launch on it took the whole wait (350 ms; 60 us on an event).
// Memory: hipMalloc through a cache of dropped buffers by capacity class, at most a quarter of
// the device (gpu::BufferCache); TACK_HIP_ALLOCATOR=pool selects hipMallocAsync. One launch
// indexes at most min(maxGridDimX x 256, 2^32 - 256) iterations: the AMD dispatch packet holds
// the grid's total work-item count in 32 bits.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "runtime/backend.hpp"
#include "runtime/gpu/buffer_cache.hpp"
#include "runtime/gpu/device_backend.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/hip/hip_api.hpp"

namespace tack::runtime::hip {

const BackendEntry& backend_entry();

/// Makes `device` current on this thread for the scope when it is not.
class DeviceScope {
  public:
    DeviceScope(const HipApi& api, hipDevice_t device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

  private:
    const HipApi& api_;
    hipDevice_t previous_ = -1;
};

/// D10 for HIP: maxGridDimX blocks of 256, capped at 2^32 - 256 (tested without a device).
std::uint64_t launch_limit(std::uint64_t max_grid_x);

class HipBackend final : public gpu::DeviceBackend {
  public:
    HipBackend(const HipApi& api, hipDevice_t device);
    ~HipBackend() override;

    const BackendEntry& entry() const override { return backend_entry(); }
    /// hipPointerGetAttributes: "hip", "hip_pinned", "hip_managed", else "cpu".
    std::string memory_space(std::uint64_t address) const override;
    /// "gfx90a:sramecc+:xnack-" (hipGetDeviceProperties), or "" where the runtime lacks it.
    const std::string& arch() const { return arch_; }
    int device_ordinal() const override { return int(device_); }
    /// HIP_VERSION's encoding, major * 10^7 + minor * 10^5 + patch: "7.1.25424".
    std::string runtime_version() const override;
    /// E5: image support, extents within the smallest 3-D texture limit (<= 0: unbounded), and
    /// a runtime with texture objects (texture.cpp).
    bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const override;

    void synchronize() override;
    std::optional<std::string> cache_target() const override;

    const HipApi& api() const { return api_; }
    hipDevice_t device() const { return device_; }
    hipStream_t stream() const { return stream_; }
    /// Whether the device has texture hardware, and its smallest maximum 3D extent (<= 0:
    /// unbounded; CONTRACT E5).
    bool image_support() const { return image_support_; }
    int max_texture_3d() const { return max_texture_3d_; }

    // The vendor's half of gpu::DeviceBackend, every call with the device current and ordered
    // on its stream: hipRTC code objects and modules (variant.cpp), memory through the buffer
    // cache (or hipMallocAsync), events, texture objects (texture.cpp).
    TACK_DEVICE_BACKEND_HOOKS

  private:
    const HipApi& api_;
    hipDevice_t device_;
    hipStream_t stream_ = nullptr;
    bool pool_ = false;
    std::string device_name_;
    int runtime_version_ = 0;
    std::string arch_;
    bool image_support_ = false;
    int max_texture_3d_ = 0;
    std::unique_ptr<gpu::BufferCache<void*>> cache_;
};

}  // namespace tack::runtime::hip
