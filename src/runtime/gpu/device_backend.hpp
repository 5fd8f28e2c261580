#pragma once
// The half of a GPU backend that is the same on every vendor (the seed's GPUBackend): compiling,
// caching and launching variants (check, pack, bind, launch, complete-if-shared, result) and the
// f32 device reductions and hardware textures, written once over a vendor's hooks: compile,
// load, unload, memory, copies, images and the launch call. CUDA and HIP derive from it.
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
                                       ir::ReduceOp op) final;

    const Geometry& geometry() const { return geometry_; }
    /// Modules compiled and loaded from the disk cache (tests, tools).
    std::size_t programs_built() const { return built_; }
    std::size_t binaries_loaded() const { return loaded_; }
    /// Captured graphs this device replays as vendor graphs (tests: the others loop).
    std::size_t vendor_graphs() const { return graphs_; }

    /// CONTRACT A39: the image alone (one copy of the texels) where texture_in_hardware(whd).
    std::shared_ptr<Buffer> make_texture_image(const Buffer& source, std::uint64_t address,
                                               const std::array<std::int64_t, 3>& whd) final;

    // Memory and the queue, over the hooks below: arrays are blocks of device memory whose
    // copies, fills and release are queued in order with the launches.
    std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) override;
    /// Device, pinned or managed memory another library owns (gpu::require_device_pointer):
    /// shared, never released. (Metal wraps an MTLBuffer object instead, and overrides it.)
    std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) override;
    /// 1-, 2- and 4-byte patterns on the device (fill_block); 8-byte ones through the buffer.
    bool fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                    std::size_t count) final;
    bool copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) final;
    /// A blocking-sync event recorded after the work queued so far.
    std::unique_ptr<QueueMark> mark_queue() final;
    /// A captured graph as the vendor's graph (built node by node, one chain) where the runtime
    /// has graphs and every node can be one: no buffer shared outside Tack (those launches
    /// complete before returning), fills of 1-, 2- and 4-byte elements with no parameter.
    /// Otherwise the core's loop.
    std::unique_ptr<GraphExec> instantiate_graph(const GraphRecord& record) final;
    /// Waits for the work queued so far on such an event (never a stream-wide synchronize,
    /// which some runtimes hold the queue through). `interruptible`: tack.sync()'s wait, which
    /// a Ctrl-C ends (gpu/interruptible_wait.hpp); never where a wait guards a release.
    void wait_for_queue(bool interruptible = false);

    /// A loaded module and its entry, as the vendor's handles.
    struct Code {
        void* module = nullptr;
        void* function = nullptr;
    };
    /// Loads `code` and finds `entry` (load_module, find_function); RuntimeError naming
    /// `kernel`, with nothing left loaded.
    Code load(const std::vector<std::uint8_t>& code, const std::string& entry,
              const std::string& kernel);
    /// What one kernel argument is: an array's device address, a texture object, or a 64-bit
    /// value (a count). Vendors whose kernels take their arguments by position ignore it;
    /// Metal's take one argument buffer (CONTRACT E13), where an array is written as its GPU
    /// address and declared resident, and a texture as its resource id.
    enum class ArgKind : std::uint8_t { Array, Texture, Value };
    /// One launch: `groups` groups of `group` lanes covering `threads` iterations (groups *
    /// group >= threads; a vendor with exact grids, Metal, dispatches `threads`), `params[i]`
    /// pointing at argument i, which `kinds[i]` describes.
    /// `complete_groups`: the kernel has collectives, so every group must have exactly `group`
    /// lanes (CONTRACT D12); a vendor that would pick fewer refuses instead.
    struct LaunchShape {
        unsigned groups = 0, group = 0;
        std::uint64_t threads = 0;
        void** params = nullptr;
        std::span<const ArgKind> kinds;
        bool complete_groups = false;
    };
    /// A texture's image: the vendor's 3-D array and the texture object sampling it.
    struct Image {
        void* array = nullptr;
        std::uint64_t object = 0;
    };

    // --- the vendor's hooks (public for tools and benchmarks that drive a device directly) --
    virtual const codegen::cfamily::Dialect& dialect() const = 0;
    /// The vendor compiler's output for `source` (PTX text, a code object); RuntimeError with
    /// the log and source on failure.
    virtual std::vector<std::uint8_t> compile(const std::string& source,
                                              const std::string& kernel) = 0;
    /// Loads `code` into `*module` / finds `entry` in it: "" on success, else the failed call
    /// and the driver's name for its error.
    virtual std::string load_module(const std::vector<std::uint8_t>& code, void** module) = 0;
    virtual std::string find_function(void* module, const std::string& entry, void** function) = 0;
    /// Unloads a module no queued launch uses any more.
    virtual void unload(Code code) noexcept = 0;
    /// Zero-filled device memory, ordered on the backend's queue (std::bad_alloc when the
    /// device has no room for it, after what the backend can give back); released in queue
    /// order, after the launches queued on it.
    virtual std::uint64_t allocate_block(std::size_t nbytes) = 0;
    virtual void release_block(std::uint64_t ptr, std::size_t nbytes) noexcept = 0;
    /// A queued copy from host memory (the source may be reused on return), and a copy to host
    /// memory that has completed on return (after the work queued before it).
    virtual void copy_in(std::uint64_t dst, const void* src, std::size_t n) = 0;
    virtual void copy_out(void* dst, std::uint64_t src, std::size_t n) = 0;
    /// A queued device-to-device copy.
    virtual void copy_block(std::uint64_t dst, std::uint64_t src, std::size_t n) = 0;
    /// Queues `count` copies of the low `elem_size` (1, 2 or 4) bytes of `pattern` at `dst`.
    virtual void fill_block(std::uint64_t dst, std::uint32_t pattern, std::size_t elem_size,
                            std::size_t count) = 0;
    /// A blocking-sync event (no timing); recorded on the queue after the work queued so far;
    /// waited for with the device current (the queued launches' error, as a RuntimeError);
    /// destroyed.
    virtual void* create_event() = 0;
    virtual void record_event(void* event) = 0;
    virtual void wait_event(void* event) = 0;
    /// Whether the work before the event has run (or failed) (a Ctrl-C's wait polls it).
    virtual bool event_done(void* event) = 0;
    virtual void destroy_event(void* event) noexcept = 0;
    /// A 3-D array of one f32 channel of extents `whd`, filled from the texels at `src` (device
    /// memory, (D, H, W) with x fastest) on the queue after the work queued so far, and a
    /// texture object over it: linear filtering, clamp addressing, coordinates as the dialect
    /// emits them. RuntimeError on a driver failure, with nothing left allocated.
    virtual Image make_image(std::uint64_t src, const std::array<std::int64_t, 3>& whd) = 0;
    /// Destroys an image that no queued launch or copy reads any more (the caller waited).
    virtual void destroy_image(Image image) noexcept = 0;
    /// One node of a vendor graph: a launch of `code` as launch_code queues it, or, where
    /// `code.function` is null, a fill as fill_block queues it.
    struct GraphStep {
        Code code;
        unsigned groups = 0, group = 0;
        void** params = nullptr;
        std::uint64_t dst = 0;
        std::uint32_t pattern = 0;
        std::size_t elem_size = 0, count = 0;
    };
    /// Whether the vendor runtime builds graphs.
    virtual bool has_graphs() const = 0;
    /// An empty graph; the node of `step` added after `after` (nullptr: the first), the driver
    /// copying the parameters; the executable graph of a finished one, which is destroyed (on
    /// failure too). RuntimeError naming the failed call.
    virtual void* graph_create() = 0;
    virtual void* graph_add(void* graph, void* after, const GraphStep& step) = 0;
    virtual void* graph_instantiate(void* graph) = 0;
    /// Destroys a graph that is not instantiated.
    virtual void graph_discard(void* graph) noexcept = 0;
    /// Queues one run of an executable graph; destroys one no queued run uses any more.
    virtual void launch_graph(void* exec) = 0;
    virtual void destroy_graph(void* exec) noexcept = 0;
    /// Queues the launch `shape` of `code`; RuntimeError naming `what` on failure.
    virtual void launch_code(Code code, const LaunchShape& shape, const char* what) = 0;

  protected:
    /// An array over `nbytes` at `ptr`: released through release_block when `owned`, unless
    /// `owner` holds the memory (CUDA's exportable VMM allocations), which the buffer keeps.
    std::shared_ptr<Buffer> device_buffer(std::uint64_t ptr, std::size_t nbytes, bool owned,
                                          std::shared_ptr<void> owner = nullptr);
    /// The `owner` a buffer of this backend was made with, or nullptr.
    static const std::shared_ptr<void>& owner_of(const Buffer& buffer);

    Geometry geometry_;

  private:
    friend class DeviceVariant;
    friend class VendorGraph;
    void launch(const Variant& variant, const LaunchArgs& args);
    std::shared_ptr<const Variant> make_variant(std::string name, CodeArtifact artifact,
                                                const ir::Kernel* kernel);

    std::atomic<std::size_t> built_ = 0, loaded_ = 0, graphs_ = 0;
    std::mutex reduce_mutex_;
    std::shared_ptr<const Variant> reducers_[3];
};

}  // namespace tack::runtime::gpu

/// Declares every vendor hook of gpu::DeviceBackend as an override, inside a vendor backend's
/// class (one list, so a hook added here is one every vendor must write).
#define TACK_DEVICE_BACKEND_HOOKS                                                                \
    const ::tack::codegen::cfamily::Dialect& dialect() const override;                           \
    std::vector<std::uint8_t> compile(const std::string& source, const std::string& kernel)      \
        override;                                                                                \
    std::string load_module(const std::vector<std::uint8_t>& code, void** module) override;      \
    std::string find_function(void* module, const std::string& entry, void** function) override; \
    void unload(Code code) noexcept override;                                                    \
    void launch_code(Code code, const LaunchShape& shape, const char* what) override;            \
    std::uint64_t allocate_block(std::size_t nbytes) override;                                   \
    void release_block(std::uint64_t ptr, std::size_t nbytes) noexcept override;                 \
    void copy_in(std::uint64_t dst, const void* src, std::size_t n) override;                    \
    void copy_out(void* dst, std::uint64_t src, std::size_t n) override;                         \
    void copy_block(std::uint64_t dst, std::uint64_t src, std::size_t n) override;               \
    void fill_block(std::uint64_t dst, std::uint32_t pattern, std::size_t elem_size,             \
                    std::size_t count) override;                                                 \
    void* create_event() override;                                                               \
    void record_event(void* event) override;                                                     \
    void wait_event(void* event) override;                                                       \
    bool event_done(void* event) override;                                                       \
    void destroy_event(void* event) noexcept override;                                           \
    Image make_image(std::uint64_t src, const std::array<std::int64_t, 3>& whd) override;        \
    void destroy_image(Image image) noexcept override;                                           \
    bool has_graphs() const override;                                                            \
    void* graph_create() override;                                                               \
    void* graph_add(void* graph, void* after, const GraphStep& step) override;                   \
    void* graph_instantiate(void* graph) override;                                               \
    void graph_discard(void* graph) noexcept override;                                           \
    void launch_graph(void* exec) override;                                                      \
    void destroy_graph(void* exec) noexcept override;
