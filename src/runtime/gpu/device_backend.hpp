#pragma once
// The half of a GPU backend that is the same on every vendor (the seed's GPUBackend): compiling,
// caching and launching variants (check, pack, bind, launch, complete-if-shared, result) and the
// f32 device reductions, written once over a vendor's hooks: compile, load, unload, memory,
// copies, texture handles and the launch call. CUDA and HIP derive from it.
//
// Device addresses and the kernel parameters they become are 64-bit words on every vendor (a
// CUdeviceptr, a HIP void*, a texture object), so the shared half passes std::uint64_t.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/backend.hpp"
#include "runtime/gpu/artifact.hpp"
#include "runtime/gpu/launch_rules.hpp"

namespace tack::runtime::gpu {

class DeviceBackend : public Backend {
  public:
    std::shared_ptr<const Variant> build_variant(const ir::Kernel& kernel,
                                                 const VariantOptions& options) final;
    std::vector<std::uint8_t> variant_artifact(const Variant& variant) const final;
    std::shared_ptr<const Variant> load_variant(std::span<const std::uint8_t> bytes,
                                                const ir::Kernel& kernel,
                                                const VariantOptions& options) final;
    /// GPU launches bind buffers: always dispatch().
    void execute(const Variant& variant, const std::uint64_t* slots, std::int64_t total) final;
    void dispatch(const Variant& variant, const LaunchArgs& args, void* result) final;
    /// E4: f32 on the device (one reduction kernel per kind, compiled at first use); other
    /// dtypes on the host.
    std::optional<double> reduce_array(const Buffer& buffer, DType dtype, std::int64_t count,
                                       ReduceKind op) final;

    const Geometry& geometry() const { return geometry_; }
    /// Modules compiled and loaded from the disk cache (tests, tools).
    std::size_t programs_built() const { return built_; }
    std::size_t binaries_loaded() const { return loaded_; }

    /// A loaded module and its entry, as the vendor's handles.
    struct Code {
        void* module = nullptr;
        void* function = nullptr;
    };

    // --- the vendor's hooks (public for tools and benchmarks that drive a device directly) --
    virtual const codegen::cfamily::Dialect& dialect() const = 0;
    /// The vendor compiler's output for `source` (PTX text, a code object); RuntimeError with
    /// the log and source on failure.
    virtual std::vector<std::uint8_t> compile(const std::string& source,
                                              const std::string& kernel) = 0;
    /// Loads `code` and finds `entry`; RuntimeError naming `kernel`.
    virtual Code load(const std::vector<std::uint8_t>& code, const std::string& entry,
                      const std::string& kernel) = 0;
    /// Unloads a module no queued launch uses any more.
    virtual void unload(Code code) noexcept = 0;
    /// Zero-filled device memory, ordered on the backend's queue; released in queue order.
    virtual std::uint64_t allocate_block(std::size_t nbytes) = 0;
    virtual void release_block(std::uint64_t ptr, std::size_t nbytes) = 0;
    /// A queued copy from host memory (the source may be reused on return), and a copy to host
    /// memory that has completed on return.
    virtual void copy_in(std::uint64_t dst, const void* src, std::size_t n) = 0;
    virtual void copy_out(void* dst, std::uint64_t src, std::size_t n) = 0;
    /// The texture object sampling `buffer` (a texture's storage) with extents `whd`.
    virtual std::uint64_t texture_handle(const Buffer& buffer,
                                         const std::array<std::int64_t, 3>& whd) = 0;
    /// Queues `groups` blocks of `group` threads of `code` with `params` (one pointer per
    /// argument); RuntimeError naming `what` on failure.
    virtual void launch_code(Code code, unsigned groups, unsigned group, void** params,
                             const char* what) = 0;

  protected:
    Geometry geometry_;

  private:
    friend class DeviceVariant;
    void launch(const Variant& variant, const LaunchArgs& args);
    std::shared_ptr<const Variant> make_variant(std::string name, CodeArtifact artifact,
                                                const ir::Kernel* kernel);

    std::atomic<std::size_t> built_ = 0, loaded_ = 0;
    std::mutex reduce_mutex_;
    std::shared_ptr<const Variant> reducers_[3];
};

}  // namespace tack::runtime::gpu
