#pragma once
// The backend's one asynchronous immediate command list (the seed's _queue). Every launch, fill
// and copy is appended and followed by a barrier (_ordered), which keeps program order:
// Intel's in-order lists (ZE_COMMAND_QUEUE_FLAG_IN_ORDER) cost about 130 us of device time per
// kernel on driver 25.05.32567, a barrier about 5. The list and each kernel's argument state are
// shared by every dispatch and Level Zero forbids using them from two threads at once, so one
// reentrant lock guards every append (launch(): the caller holds lock() while it sets
// arguments). A driver without zeCommandListHostSynchronize gets a synchronous list instead.
//
// Host memory a queued copy or fill reads is held until the next wait, which comes early past
// 1024 objects or 256 MiB. Copies go through USM host memory (the seed's _HostStaging): from
// pageable memory Intel's driver does not return from appending a copy of up to 4 MiB until the
// queue drains (driver 25.05), which would make a launch's scalar upload wait for every kernel
// before it. Blocks of uploads up to 16 MiB and of downloads up to 64 KiB come from a pool by
// power-of-two class and go back to it at the wait that releases them, so a warm queue's
// per-launch scalar uploads and small reads allocate nothing; a larger upload gets a block of
// its own, freed at that wait, and a larger download copies straight to the caller's memory.
// The pool keeps at most 64 MiB.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/level_zero/device.hpp"

namespace tack::runtime::level_zero {

class Queue {
  public:
    Queue(const ZeApi& api, const DeviceHandles& handles, const DeviceInfo& info);
    // Intentionally leaks the list and event pool: Level Zero cleanup at process exit can crash
    // once the driver is unloaded (the seed's LevelZeroBackend.__del__ does nothing). A backend
    // that goes away before exit (a test's, a fresh tack.device) waits for the copies that read
    // held staging blocks and frees its pooled ones.
    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    std::recursive_mutex& lock() { return mutex_; }

    /// Device memory, zero-filled by a queued fill (at least one byte is allocated).
    void* allocate(std::size_t nbytes);
    /// After the work queued so far (zeMemFreeExt DEFER_FREE), else waits, then frees.
    void free(void* device_ptr) noexcept;

    /// Queues a copy of a private snapshot of `src`; returns at once.
    void upload(void* dst, const void* src, std::size_t n);
    /// Queues the copy and waits for it (and everything before it).
    void download(void* dst, const void* src, std::size_t n);
    void fill(void* dst, const void* pattern, std::size_t pattern_size, std::size_t n);
    /// Queues a copy of a whole image's texels from device memory at `src` (the texture's
    /// source array, x fastest) into `image`; returns at once.
    void copy_to_image(ze_image_handle_t image, const void* src);
    /// Appends the launch and a barrier. The caller holds lock() since setting the arguments:
    /// they are captured at this append, so the next call may set its own.
    void launch(ze_kernel_handle_t kernel, uint32_t groups);
    /// Waits for everything queued so far and releases the held host memory.
    void synchronize();
    /// The seed's _ListMarker: a pooled host-visible event a barrier signals once the work
    /// queued so far has run, or nullptr (a synchronous list, or every event in use: the caller
    /// synchronizes instead).
    ze_event_handle_t mark();
    /// Waits for a mark's event outside the lock, so other threads queue launches meanwhile,
    /// and returns it to the pool; RuntimeError for a failed wait.
    void wait_mark(ze_event_handle_t event);
    /// Returns a mark's event to the pool once its barrier has run (a mark dropped unwaited).
    void drop_mark(ze_event_handle_t event) noexcept;
    /// zeMemAllocHost calls so far (tests: a warm queue's small copies make none).
    std::size_t staging_allocations() const { return staging_allocations_; }

  private:
    /// A USM host block of at least `n` bytes: pooled up to 16 MiB.
    struct Block {
        void* ptr = nullptr;
        std::size_t bytes = 0;  // the class (a power of two) for pooled blocks
    };
    Block take_block(std::size_t n);
    void give_block(Block b) noexcept;

    void ordered(ze_result_t r, const char* what);
    void hold(Block usm_host, std::vector<std::uint8_t> bytes, std::size_t n);
    void release_holds();
    ze_event_handle_t take_event();

    const ZeApi& api_;
    DeviceHandles h_;
    DeviceInfo info_;
    ze_command_list_handle_t list_ = nullptr;
    ze_event_pool_handle_t pool_ = nullptr;
    std::vector<ze_event_handle_t> free_events_;
    std::recursive_mutex mutex_;

    struct Hold {
        Block usm_host;
        std::vector<std::uint8_t> bytes;
    };
    std::vector<Hold> holds_;
    std::size_t held_bytes_ = 0;
    std::map<std::size_t, std::vector<void*>> pooled_;  // free blocks by class
    std::size_t pooled_bytes_ = 0;
    std::size_t staging_allocations_ = 0;
};

}  // namespace tack::runtime::level_zero
