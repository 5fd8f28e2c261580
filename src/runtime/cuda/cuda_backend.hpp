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
/// `quiet`: a failed push is ignored (destructors and frees, which must not throw).
class ContextScope {
  public:
    ContextScope(const CuApi& api, CUcontext ctx, bool quiet = false);
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
    DTypeSet supported_dtypes() const override { return DTypeSet::all(); }
    DTypeSet target_atomic_dtypes() const override {
        return {DType::i32, DType::u32, DType::i64, DType::u64, DType::f32, DType::f64};
    }
    bool supports_device_reductions() const override { return true; }
    bool supports_workgroups() const override { return true; }
    std::vector<std::string> device_memory_spaces() const override {
        return {"cuda", "cuda_pinned", "cuda_managed"};
    }
    /// cuPointerGetAttribute: "cuda", "cuda_pinned", "cuda_managed", else "cpu".
    std::string memory_space(std::uint64_t address) const override;
    /// CONTRACT E1: device (and pinned and managed) memory in, kDLCUDA out.
    std::vector<int> dlpack_imports() const override { return {2, 3, 13}; }
    std::pair<int, int> dlpack_device() const override { return {2, int(device_)}; }
    /// E5: within the device's 3-D texture limits, with a driver that has texture objects.
    bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const override;

    std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) override;
    /// The VMM allocation an exportable array lives in, or nullptr.
    std::shared_ptr<VmmAllocation> allocation_of(const Buffer& buffer) const;
    /// `nbytes` (rounded to the granularity) of zero-filled VMM memory mapped for the device
    /// (export.cpp); its address in `*ptr`.
    std::shared_ptr<VmmAllocation> map_exportable(std::size_t nbytes, CUdeviceptr* ptr);
    /// A device (or managed) pointer another library owns: shared, never freed.
    std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) override;
    bool fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                    std::size_t count) override;
    bool copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) override;
    /// cuMemCreate / cuMemMap memory exported as a POSIX fd (export.cpp): the array's own
    /// allocation when it was made exportable, else a snapshot of `buffer` taken after the
    /// launches queued so far. RuntimeError when the driver lacks the VMM API.
    std::optional<ExportedMemory> export_memory(const Buffer& buffer) override;
    /// Zero-filled VMM memory (export.cpp), exported as itself by export_memory.
    std::shared_ptr<Buffer> allocate_exportable(std::size_t nbytes) override;

    void synchronize() override;
    /// A blocking-sync event recorded on the stream; waited on with the context current.
    std::unique_ptr<QueueMark> mark_queue() override;

    std::optional<std::string> cache_target() const override;

    // Queue and memory, for buffers and variants (all ordered on the context's stream).
    const CuApi& api() const { return api_; }
    CUcontext context() const { return token_->context(); }
    CUstream stream() const { return stream_; }
    CUdeviceptr allocate(std::size_t nbytes);
    void free(CUdeviceptr ptr);
    void upload(CUdeviceptr dst, const void* src, std::size_t n);
    void download(void* dst, CUdeviceptr src, std::size_t n);
    /// The texture object of `buffer` (a texture's storage, this backend's) for extents `whd`,
    /// made at its first use (texture.hpp).
    CUtexObject texture_object(const Buffer& buffer, const std::array<std::int64_t, 3>& whd);
    // The vendor's half of gpu::DeviceBackend (variant.cpp): NVRTC to PTX, modules loaded in this
    // context, launches on its stream.
    const codegen::cfamily::Dialect& dialect() const override;
    std::vector<std::uint8_t> compile(const std::string& source,
                                      const std::string& kernel) override;
    Code load(const std::vector<std::uint8_t>& ptx, const std::string& entry,
              const std::string& kernel) override;
    void unload(Code code) noexcept override;
    std::uint64_t allocate_block(std::size_t nbytes) override { return allocate(nbytes); }
    void release_block(std::uint64_t ptr, std::size_t) override { free(ptr); }
    void copy_in(std::uint64_t dst, const void* src, std::size_t n) override {
        upload(dst, src, n);
    }
    void copy_out(void* dst, std::uint64_t src, std::size_t n) override { download(dst, src, n); }
    std::uint64_t texture_handle(const Buffer& buffer,
                                 const std::array<std::int64_t, 3>& whd) override {
        return texture_object(buffer, whd);
    }
    void launch_code(Code code, unsigned groups, unsigned group, void** params,
                     const char* what) override;

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
