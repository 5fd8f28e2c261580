#pragma once
// The CUDA backend (seed "CUDA"): CUDA C from the C-family emitter, PTX from NVRTC, loaded with
// cuModuleLoadData; everything through the driver API loaded with dlopen (cu_api.hpp).
//
// Context: one current on the thread that makes the device is adopted (an embedding
// application's) and never released; otherwise the device's primary context is retained (the
// CUDA runtime, PyTorch and CuPy use it; Tack's own cuCtxCreate context once made their next
// launch fail with CUDA_ERROR_INVALID_HANDLE). Backends on one context share a token
// (gpu::ContextTokens) holding its stream; an owned primary context is released with its last
// backend. Better than the seed: every driver call Tack makes runs with its context current
// (ContextScope), so a thread that never called cuCtxSetCurrent dispatches correctly; on the
// thread that made the device this costs one cuCtxGetCurrent.
//
// Queue (DECISIONS G9): one stream per context. Launches, fills, uploads, pack uploads and
// stream-ordered allocations and frees are queued in program order and return; reads,
// reductions, synchronize() and shared buffers wait with cuStreamSynchronize, where a queued
// launch's error surfaces. Memory is cuMemAllocAsync / cuMemFreeAsync from the device's default
// pool with its release threshold raised, so a dropped array's memory is handed back out after
// the launches queued on it, with no device round trip; a device without pools uses cuMemAlloc,
// and cuMemFree (which waits for the device) is deferred to the next wait (gpu::DeferredFrees).

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "runtime/backend.hpp"
#include "runtime/cuda/cu_api.hpp"
#include "runtime/gpu/context_token.hpp"
#include "runtime/gpu/deferred_frees.hpp"
#include "runtime/gpu/device_backend.hpp"
#include "runtime/gpu/launch_rules.hpp"

namespace tack::runtime::cuda {

struct VmmAllocation;  // export.cpp: cuMemCreate memory mapped in the backend's context

const BackendEntry& backend_entry();

/// What belongs to a context rather than to one backend.
struct ContextState {
    CUstream stream = nullptr;  // made on first use
};
using ContextTokens = gpu::ContextTokens<CUcontext, ContextState>;
using ContextToken = ContextTokens::Token;

/// Makes `ctx` current on this thread for the scope when it is not (pushed, then popped).
/// `quiet`: a failed push is ignored (destructors and frees, which must not throw; a free in a
/// destroyed context is skipped that way). Otherwise a context that no longer exists (an
/// adopted one the application destroyed: Tack's own live as long as their arrays) is CONTRACT
/// C5's RuntimeError "Cannot <verb> this CUDA field: the CUDA context this field was allocated
/// in has been destroyed ...".
class ContextScope {
  public:
    ContextScope(const CuApi& api, CUcontext ctx, bool quiet = false, const char* verb = "use");
    ~ContextScope();
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;

  private:
    const CuApi& api_;
    bool pushed_ = false;
};

class CudaBackend final : public gpu::DeviceBackend {
  public:
    CudaBackend(const CuApi& api, CUdevice device, std::shared_ptr<ContextToken> token);
    ~CudaBackend() override;

    const BackendEntry& entry() const override { return backend_entry(); }
    /// cuPointerGetAttribute: "cuda", "cuda_pinned", "cuda_managed", else "cpu".
    std::string memory_space(std::uint64_t address) const override;
    int device_ordinal() const override { return int(device_); }
    /// cuDriverGetVersion's encoding, 1000 * major + 10 * minor: "13.0".
    std::string runtime_version() const override;
    /// E5: within the device's 3-D texture limits, with a driver that has texture objects.
    bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const override;

    /// The VMM allocation an exportable array lives in, or nullptr.
    std::shared_ptr<VmmAllocation> allocation_of(const Buffer& buffer) const;
    /// `nbytes` (rounded to the granularity) of zero-filled VMM memory mapped for the device
    /// (export.cpp); its address in `*ptr`.
    std::shared_ptr<VmmAllocation> map_exportable(std::size_t nbytes, CUdeviceptr* ptr);
    /// cuMemCreate / cuMemMap memory exported as a POSIX fd (export.cpp): the array's own
    /// allocation when it was made exportable, else a snapshot of `buffer` taken after the
    /// launches queued so far. RuntimeError when the driver lacks the VMM API.
    std::optional<ExportedMemory> export_memory(const Buffer& buffer) override;
    /// Zero-filled VMM memory (export.cpp), exported as itself by export_memory.
    std::shared_ptr<Buffer> allocate_exportable(std::size_t nbytes) override;

    void synchronize() override;
    std::optional<std::string> cache_target() const override;

    const CuApi& api() const { return api_; }
    CUcontext context() const { return token_->context(); }
    CUstream stream() const { return stream_; }

    // The vendor's half of gpu::DeviceBackend, every call with the context current and ordered
    // on its stream: NVRTC to PTX and modules (variant.cpp), memory (cuMemAllocAsync from the
    // default pool, or cuMemAlloc with deferred frees), events, texture objects (texture.cpp).
    TACK_DEVICE_BACKEND_HOOKS

  private:
    void drain_frees();

    const CuApi& api_;
    CUdevice device_;
    std::shared_ptr<ContextToken> token_;
    CUstream stream_ = nullptr;
    bool pools_ = false;
    std::string device_name_;
    int cc_major_ = 0, cc_minor_ = 0, driver_version_ = 0;
    std::int64_t max_texture_3d_ = 0;  // the smallest of the 3-D texture extent limits
    gpu::DeferredFrees<CUdeviceptr> frees_;
};

/// The device ordinal, context and ownership the backend adopts (current on this thread) or
/// retains (device 0's primary context). RuntimeError "Cannot initialize 'cuda' backend: ...".
std::shared_ptr<ContextToken> open_context(const CuApi& api, CUdevice* device);

}  // namespace tack::runtime::cuda
