#pragma once
// The Metal backend (seed "Metal") on the shared GPU skeleton (gpu::DeviceBackend), through the
// Objective-C runtime's C API (objc.hpp): no SDK, no Objective-C++.
//
// Device: MTLCreateSystemDefaultDevice() (unavailable when there is none) and one command
// queue. Kernels: MSL from the C-family emitter in the seed's form (one argument buffer, exact
// grid), compiled by newLibraryWithSource:options:error: with fastMathEnabled = false (the
// source is the disk cache's artifact; TACK_DUMP_MSL writes it to /tmp/tack_<entry>.msl), a
// pipeline state per kernel, threadgroups of min(maxTotalThreadsPerThreadgroup, 256) lanes,
// dispatchThreads over exactly the range (at most 2^32 threads: thread_position_in_grid is a
// uint). Queue: launches, device copies and fills are encoded into the open command buffer
// under the batch lock, which is committed every 64 commands with at most 4 committed ones in
// flight; a wait commits the open one and waits, and a command buffer's error surfaces there.
// Each launch owns its argument buffer and holds a reference to every buffer and texture it
// binds until its command buffer completes, so a dropped array outlives the launches using it.
// Memory: buffers in shared storage (unified memory), whose contents pointer is the array's
// address; host reads and writes wait for the command buffers that use the buffer, then touch
// the memory directly. Interop (CONTRACT C19, C24): field_from_ptr wraps an MTLBuffer object
// (shared storage, this device, long enough), which the field retains; export_memory hands out
// the array's own MTLBuffer (handle_type "mtl_buffer", the object's id), which the export
// retains.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/gpu/device_backend.hpp"
#include "runtime/metal/objc.hpp"

namespace tack::runtime::metal {

const BackendEntry& backend_entry();

/// The seed's batching constants: commands per command buffer, committed buffers in flight.
inline constexpr unsigned kBatch = 64;
inline constexpr unsigned kInFlight = 4;

class MetalBackend final : public gpu::DeviceBackend {
  public:
    MetalBackend(const Messages& m, Id device);
    ~MetalBackend() override;

    const BackendEntry& entry() const override { return backend_entry(); }
    /// MTLDevice.name ("Apple M2"): Metal has no runtime version of its own.
    const std::string& device_name() const { return device_name_; }
    /// Apple GPUs sample 3-D textures of up to 2048 texels per axis.
    bool texture_in_hardware(const std::array<std::int64_t, 3>& whd) const override;
    void synchronize() override;
    std::optional<std::string> cache_target() const override { return std::string("metal"); }
    /// `object` is an MTLBuffer (the id a pyobjc object's __c_void_p__ gives): TypeError for
    /// an object that is no buffer (nil, or one not answering -contents, -length, -device and
    /// -gpuAddress), ValueError for one of another device, in private storage, or shorter than
    /// `nbytes`. The field shares the memory: launches that bind it complete before returning.
    std::shared_ptr<Buffer> wrap_ptr(void* object, std::size_t nbytes) override;
    /// The array's MTLBuffer after the work queued on it: live (later kernel writes are seen
    /// through it), retained until the export is dropped.
    std::optional<ExportedMemory> export_memory(const Buffer& buffer) override;

    /// The MTLDevice (tests: buffers made outside Tack).
    Id device() const { return device_; }
    /// Command buffers committed so far (tests: the batching).
    std::size_t command_buffers() const { return committed_; }
    /// Committed command buffers not yet waited for (at most kInFlight).
    std::size_t in_flight() {
        std::lock_guard lock(mutex_);
        return in_flight_.size();
    }

    TACK_DEVICE_BACKEND_HOOKS

  private:
    /// One shared-storage MTLBuffer: its GPU address and the last batch that uses it. A block
    /// Tack allocated is `owned` until release_block; wrapping fields count in `wraps`, each
    /// holding a reference of its own. It leaves the map when neither holds it.
    struct Block {
        std::uint64_t address = 0;  // its contents
        Id buffer = nullptr;
        std::size_t bytes = 0;
        std::uint64_t gpu = 0;
        std::uint64_t last_use = 0;
        bool owned = true;
        unsigned wraps = 0;
    };
    /// A committed command buffer and what its commands hold until it completes.
    struct Batch {
        Id commands = nullptr;
        std::vector<Id> keep;
        std::uint64_t sequence = 0;
    };

    // Everything below is guarded by mutex_ (the seed's batch lock).
    Block* block_of(std::uint64_t address);  // the live block holding `address`, or nullptr
    Id open_commands();                      // the open command buffer (made on demand)
    void hold(Id object);                    // the open batch keeps a reference
    void count_command();                    // commits after kBatch commands
    void commit_open();
    void retire_oldest();
    /// Waits until batch `sequence` has completed; throws the first failure of the ones waited.
    void wait_through(std::uint64_t sequence);
    /// Waits for the batches that use the block at `address` before the host touches it.
    void wait_for_users(std::uint64_t address);
    void throw_failure();
    /// A wrapping field of the block at `address` is gone (its reference is released apart).
    void unwrap(std::uint64_t address) noexcept;

    const Messages& m_;
    Id device_ = nullptr, queue_ = nullptr;
    std::string device_name_;
    std::mutex mutex_;
    std::map<std::uint64_t, Block> blocks_;  // by contents address
    std::set<Id> textures_;
    Id open_ = nullptr;
    unsigned open_commands_ = 0;
    std::vector<Id> open_keep_;
    std::uint64_t open_sequence_ = 1, completed_ = 0;
    std::deque<Batch> in_flight_;
    std::string failure_;
    std::size_t committed_ = 0;
};

}  // namespace tack::runtime::metal
