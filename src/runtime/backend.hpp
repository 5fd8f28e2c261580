#pragma once
// The Backend contract every device implements (seed "The Backend contract", CONTRACT E2).
//
// A backend declares its capabilities instead of being probed: its row of the target table
// (driver/targets.cpp), narrowed by the device. The two derived capabilities (supports_f64,
// supported_atomic_dtypes) are computed here from the declared ones so they can never disagree
// with supported_dtypes. Shared code (dispatch, arrays, the device registry)
// reads these attributes and never branches on a backend's name.
//
// Required: allocate_array, wrap_ptr, build_variant + execute (the seed's execute() split in
// two: the shared dispatch resolves the variant and calls build_variant on a miss, then
// execute for every launch). Optional, with defaults for a backend whose launches complete
// before execute() returns: synchronize (no-op), fill_array (false: Array::fill writes through
// the buffer), cache_target (nullopt: variants stay off the disk cache), variant_artifact /
// load_variant (store and rebuild a variant from bytes).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"
#include "tack/dtype.hpp"
#include "tack/tack.hpp"

namespace tack::driver {
struct Target;  // driver/targets.hpp
}

namespace tack::runtime {

class Backend;
struct GraphRecord;  // runtime/graph/graph.hpp
class GraphExec;

/// The storage of one array (the seed's DeviceBuffer). Allocated storage is zero-filled.
class Buffer {
  public:
    virtual ~Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    Backend& backend() const { return *backend_; }
    const std::shared_ptr<Backend>& backend_ptr() const { return backend_; }
    std::size_t nbytes() const { return nbytes_; }
    /// The address kernels receive.
    std::uint64_t address() const { return address_; }
    /// Host-visible pointer to the storage, or nullptr for device-only memory.
    void* host_ptr() const { return host_; }
    /// False for wrapped memory, which Tack never frees.
    bool owned() const { return owned_; }

    /// Hands the storage outside Tack (DLPack export, export_memory): waits for the launches
    /// queued so far, and every later launch that binds this buffer completes before returning,
    /// since the other library may read it with no Tack call in between (the seed's share()).
    void share();
    /// Waits for every launch, fill and copy queued on this buffer's device so far, and raises
    /// a queued launch's error (the seed's DeviceBuffer.synchronize()).
    void synchronize() const;
    /// Wrapped memory, or memory handed out by share().
    bool shared() const { return !owned_ || shared_.load(std::memory_order_relaxed); }

    /// Host <-> storage copies (byte offsets). The defaults copy through host_ptr().
    virtual void write(std::size_t offset, const void* src, std::size_t n);
    virtual void read(std::size_t offset, void* dst, std::size_t n) const;
    /// True where write() and read() are copies in order with the queued launches: a write
    /// queued behind them from a copy of the source taken before it returns (CUDA's and HIP's
    /// staged uploads, Level Zero's staging memory), a read that waits for what was queued
    /// before it (and raises a queued launch's error); false where they copy at once, so the
    /// caller waits for the queue first.
    virtual bool copies_in_queue_order() const { return false; }
    /// A host write in program order (the seed's queued from_numpy): it waits for the queue
    /// only where write() copies at once, and completes before returning where the memory is
    /// shared with another library, which may read it with no Tack call in between.
    void write_in_order(std::size_t offset, const void* src, std::size_t n);
    /// A host read after everything queued before it: where read() waits by itself it is the
    /// only wait (Level Zero's waits on a marker outside the launch lock, so other threads keep
    /// launching; a full synchronize would hold it).
    void read_in_order(std::size_t offset, void* dst, std::size_t n) const;

  protected:
    Buffer(std::shared_ptr<Backend> backend, std::uint64_t address, void* host, std::size_t nbytes,
           bool owned)
        : backend_(std::move(backend)),
          address_(address),
          host_(host),
          nbytes_(nbytes),
          owned_(owned) {}

  private:
    std::shared_ptr<Backend> backend_;  // arrays keep their backend alive
    std::uint64_t address_;
    void* host_;
    std::size_t nbytes_;
    bool owned_;
    std::atomic<bool> shared_{false};
};

/// A point in a backend's queue (the seed's async_marker): wait() blocks until every launch,
/// fill and copy queued before the mark was taken has run, and raises a queued command's error.
/// Waiting on another thread is safe (tack.sync_async runs it in Tack's wait threads).
class QueueMark {
  public:
    virtual ~QueueMark() = default;
    virtual void wait() = 0;
};

/// A mark that waits with backend->synchronize(): correct for any queued backend (it may also
/// wait for launches queued after the mark), for one without events of its own.
std::unique_ptr<QueueMark> synchronizing_mark(std::shared_ptr<Backend> backend);

/// A compiled, loaded variant of one kernel; each backend subclasses it.
class Variant {
  public:
    virtual ~Variant() = default;
};

/// How a variant is compiled beyond its IR (part of its key).
struct VariantOptions {
    bool noalias = false;  // CONTRACT D7: array pointers carry noalias (CPU disjoint variant)
    bool operator==(const VariantOptions&) const = default;
};

/// One dispatch's arguments, per parameter: the packed slot (an array's address or a scalar's
/// bits) and the array's buffer (nullptr for a scalar). GPU backends bind buffers, never look
/// addresses up; every buffer is one this backend binds (Backend::binds, checked by dispatch).
struct LaunchArgs {
    const std::uint64_t* slots = nullptr;
    const Buffer* const* buffers = nullptr;
    std::int64_t total = 0;  // flattened iterations; <= 0 launches nothing
};

/// CONTRACT C24: device memory handed to another API or process as an OS handle. `keep` owns
/// the exported allocation (and closes the handle) when the last reference goes.
struct ExportedMemory {
    std::string backend;              // "cuda"
    std::size_t size = 0;             // the array's bytes
    std::size_t allocation_size = 0;  // rounded up to the allocation granularity
    std::int64_t handle = -1;         // a POSIX file descriptor on Linux
    std::string handle_type;          // "posix_fd"
    std::string device_uuid;          // 32 hex digits
    bool live = false;                // the array's own memory (exportable), not a snapshot
    std::shared_ptr<void> keep;
};

using BackendFactory = std::shared_ptr<Backend> (*)(const DeviceOptions& options);

/// What the registry knows about a backend before constructing one.
struct BackendEntry {
    std::string_view name;  // "cpu": its row of driver/targets.cpp holds the rest
    std::span<const std::string_view> device_options;
    BackendFactory create;
};

class Backend : public std::enable_shared_from_this<Backend> {
  public:
    virtual ~Backend() = default;

    // --- capabilities -------------------------------------------------------------------
    // The defaults answer the backend's row of the target table (driver/targets.cpp); a
    // device overrides one only to narrow it (OpenCL without fp64, say).
    virtual const BackendEntry& entry() const = 0;
    std::string_view name() const { return entry().name; }
    /// "CPU": the row's, or the name of a backend outside the table (a test's fake).
    std::string_view display_name() const;
    std::span<const std::string_view> device_options() const { return entry().device_options; }
    /// This backend's row of the target table.
    const driver::Target& target() const;
    virtual DTypeSet supported_dtypes() const;
    /// This target's row of the atomic table (ATOMIC_DTYPES); see supported_atomic_dtypes.
    virtual DTypeSet target_atomic_dtypes() const;
    virtual bool supports_device_reductions() const;
    /// CONTRACT C14/E4: reduces the first `count` (> 0) elements of `buffer` on the device, or
    /// nullopt to have the caller reduce on the host (the default, and what a backend answers
    /// for dtypes it does not reduce natively).
    virtual std::optional<double> reduce_array(const Buffer& buffer, DType dtype,
                                               std::int64_t count, ir::ReduceOp op) {
        return std::nullopt;
    }
    virtual bool supports_workgroups() const;
    /// The bytes of local arrays one iteration may hold (driver/targets.hpp).
    virtual std::uint64_t private_bytes() const;
    std::vector<std::string> device_memory_spaces() const;
    /// CONTRACT C21: where `address` lives as this backend sees it ("cpu", or one of
    /// device_memory_spaces()). Never fails: an address no driver knows is "cpu".
    virtual std::string memory_space(std::uint64_t address) const { return "cpu"; }
    /// DLPack device types (DLDeviceType codes) whose memory wrap_ptr takes without copying
    /// (CONTRACT E1; host memory on the CPU and OpenCL).
    std::vector<int> dlpack_imports() const;
    /// What a refused DLPack import adds (its target row's; Metal's), or "".
    std::string_view dlpack_refusal_note() const;
    /// What wrap_ptr's pointer is when not an address: the object's class (its target row's;
    /// Metal's "MTLBuffer", whose id it is), or "".
    std::string_view wraps_object() const;
    /// The DLPack device type of this backend's arrays on export (the row's) and its device
    /// ordinal.
    std::pair<int, int> dlpack_device() const;
    /// The device's ordinal among its driver's devices.
    virtual int device_ordinal() const { return 0; }
    /// The vendor runtime's release as "major.minor[.patch]" (HIP: hipRuntimeGetVersion's
    /// ROCm release; CUDA: the driver's CUDA version), or empty where there is none. Known
    /// toolchain defects are keyed on it (tests/python/test_known_defects.py).
    virtual std::string runtime_version() const { return {}; }
    /// Whether calls whose written arrays overlap no other array get a `noalias` variant.
    virtual bool specializes_disjoint() const { return false; }
    /// Whether launches on this device compile and run debug variants (DECISIONS "Debug mode"):
    /// the `debug` option every backend accepts, else TACK_DEBUG when the device was built
    /// (registry.cpp). A thread's tack::DebugScope overrides it (runtime/debug_mode.hpp).
    bool debug() const { return debug_; }
    void set_debug(bool on) { debug_ = on; }

    /// CONTRACT E5: whether a texture of extents (W, H, D) is sampled by texture hardware on
    /// this device, which changes the generated code (decided before the variant is built, so
    /// its key records it; never a rejection). The default is the target's row in
    /// driver/targets.cpp; a device may only narrow it.
    virtual bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const;

    /// CONTRACT A39: where this device samples a texture of extents `whd` in hardware, the
    /// texture made from the f32 texels at `address` in `source` (this backend's; (D, H, W), x
    /// fastest): the device's image alone, copied in queue order, so a texture holds one copy.
    /// Kernels sample it; nothing reads or writes it. nullptr (the default, and software
    /// sampling): the texture is a view of linear storage.
    virtual std::shared_ptr<Buffer> make_texture_image(const Buffer& source, std::uint64_t address,
                                                       const std::array<std::int64_t, 3>& whd) {
        return nullptr;
    }

    bool supports_f64() const { return supported_dtypes().contains(DType::f64); }
    DTypeSet supported_atomic_dtypes() const { return target_atomic_dtypes() & supported_dtypes(); }

    // --- memory -------------------------------------------------------------------------
    /// Whether a kernel on this backend can bind `buffer`. By default only its own arrays: a
    /// GPU array of another device (an earlier tack.init, another tack.device) lives in another
    /// context. A backend that runs on host memory accepts any host-visible buffer.
    virtual bool binds(const Buffer& buffer) const { return &buffer.backend() == this; }
    /// Zero-filled storage of at least `nbytes` (a zero-byte request still allocates).
    virtual std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) = 0;
    /// CONTRACT C6: an array whose memory stays exportable for its whole life (export_memory
    /// hands out the allocation itself, so later kernel writes are seen through the handle)
    /// where the backend can make one (CUDA's virtual memory management API); elsewhere an
    /// ordinary array.
    virtual std::shared_ptr<Buffer> allocate_exportable(std::size_t nbytes) {
        return allocate_array(nbytes);
    }
    /// Memory owned elsewhere, never freed by Tack.
    virtual std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) = 0;
    /// Fills `count` elements of `elem_size` bytes from `pattern`; false = not handled here.
    virtual bool fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                            std::size_t count) {
        return false;
    }

    /// CONTRACT C24: exports `buffer` (a snapshot taken now, after the queued launches), or
    /// nullopt when this backend cannot export memory.
    virtual std::optional<ExportedMemory> export_memory(const Buffer& buffer) {
        return std::nullopt;
    }
    /// Queues a copy of `nbytes` from `src` to `dst` (both this backend's arrays) in order with
    /// the launches; false = not handled here (the caller copies through the host).
    virtual bool copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) { return false; }

    // --- host work ----------------------------------------------------------------------
    /// Threads that host-side work on this backend's arrays (Array reductions) may split over.
    virtual int host_threads() const { return 1; }
    /// Runs task(ctx, i) once for every i in [0, count), count <= host_threads(), possibly
    /// concurrently; returns when all are done.
    virtual void run_host_tasks(int count, void (*task)(void* ctx, int index), void* ctx) {
        for (int i = 0; i < count; ++i)
            task(ctx, i);
    }

    // --- algorithms (tack.algorithms) -------------------------------------------------
    /// CONTRACT C33: scans the first `n` (> 0) elements of `src` into `dst`, both of `dtype` and
    /// both bound by this backend, starting `src_offset` / `dst_offset` bytes into them (the
    /// same element range for an in-place scan; other overlaps are refused by the caller), in
    /// order with the launches. Returns the sum of the n inputs as a Scalar of `dtype`, or
    /// nullopt when this backend has no native scan (the default): the caller then runs
    /// tack.algorithms' scan kernels. Integer results must equal the kernels' exactly.
    virtual std::optional<Scalar> scan_array(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                             std::size_t dst_offset, DType dtype, std::int64_t n,
                                             bool inclusive) {
        return std::nullopt;
    }

    // --- code ---------------------------------------------------------------------------
    /// Compiles and loads one specialized, optimized kernel.
    virtual std::shared_ptr<const Variant> build_variant(const ir::Kernel& kernel,
                                                         const VariantOptions& options) = 0;
    /// Runs flattened iterations [0, total) with the packed parameter slots (one uint64 per
    /// parameter: an array's address or a scalar's bits). total > 0. `slots` is valid only
    /// during the call: a backend that queues the launch copies what it needs.
    virtual void execute(const Variant& variant, const std::uint64_t* slots,
                         std::int64_t total) = 0;
    /// DECISIONS G7: evaluates the kernel's `return expr` (after its launch) into `out`, which
    /// has room for 8 bytes. Only called for kernels with a result.
    virtual void evaluate_result(const Variant& variant, const std::uint64_t* slots, void* out) {
        throw NotImplementedError(std::string(display_name()) +
                                  " backend does not support kernel return values");
    }
    /// One dispatch: the launch when total > 0, then the kernel's result into `result` (8 bytes)
    /// when it is not null. The default runs execute() and evaluate_result() on the slots.
    virtual void dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
        if (args.total > 0) execute(variant, args.slots, args.total);
        if (result) evaluate_result(variant, args.slots, result);
    }
    /// How long dispatch() of `total` iterations is predicted to run on the calling thread, in
    /// ns; +infinity when unknown, when it would use other threads or when it only queues the
    /// launch (the default). Callers holding a lock others may need (the GIL) keep it across
    /// launches predicted brief.
    virtual double inline_run_ns(const Variant& variant, std::int64_t total) const {
        return std::numeric_limits<double>::infinity();
    }
    /// Waits for every launch queued so far; a queued launch's error surfaces here (G9).
    virtual void synchronize() {}
    /// A mark after the work queued so far, or nullptr when there is nothing to wait for (a
    /// backend whose launches complete before returning, the default).
    virtual std::unique_ptr<QueueMark> mark_queue() { return nullptr; }
    /// What replays a captured graph (runtime/graph): the core's loop over the nodes (the
    /// default), or the vendor's graph. `record`'s nodes stay put while the result lives.
    virtual std::unique_ptr<GraphExec> instantiate_graph(const GraphRecord& record);

    // --- disk cache ---------------------------------------------------------------------
    /// Describes the code this backend produces (target, toolchain); nullopt keeps its
    /// variants off the disk cache.
    virtual std::optional<std::string> cache_target() const { return std::nullopt; }
    /// The bytes that rebuild `variant` through load_variant.
    virtual std::vector<std::uint8_t> variant_artifact(const Variant& variant) const { return {}; }
    /// nullptr when the bytes cannot be used (the caller then compiles).
    virtual std::shared_ptr<const Variant> load_variant(std::span<const std::uint8_t> bytes,
                                                        const ir::Kernel& kernel,
                                                        const VariantOptions& options) {
        return nullptr;
    }

  private:
    bool debug_ = false;
};

/// Host memory buffer shared by host-visible backends: 64-byte aligned, zero-filled, or wrapped.
class HostBuffer : public Buffer {
  public:
    static std::shared_ptr<HostBuffer> allocate(std::shared_ptr<Backend> backend,
                                                std::size_t nbytes);
    static std::shared_ptr<HostBuffer> wrap(std::shared_ptr<Backend> backend, void* ptr,
                                            std::size_t nbytes);
    ~HostBuffer() override;

  private:
    using Buffer::Buffer;
};

}  // namespace tack::runtime
