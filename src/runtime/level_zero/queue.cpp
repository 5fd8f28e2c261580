#include "runtime/level_zero/queue.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tack::runtime::level_zero {

namespace {

constexpr uint32_t kEvents = 64;
constexpr std::size_t kMaxHolds = 1024;
constexpr std::size_t kMaxHeldBytes = std::size_t(256) << 20;
constexpr std::size_t kMaxPooledUpload = std::size_t(16) << 20;
constexpr std::size_t kMaxStagedDownload = std::size_t(64) << 10;
constexpr std::size_t kSmallestBlock = 64;
constexpr std::size_t kMaxPooledBytes = std::size_t(64) << 20;  // kept for reuse, at most
constexpr uint64_t kForever = UINT64_MAX;

}  // namespace

Queue::Queue(const ZeApi& api, const DeviceHandles& handles, const DeviceInfo& info)
    : api_(api), h_(handles), info_(info) {
    ze_command_queue_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    desc.ordinal = info.compute_ordinal;
    desc.mode =
        info.host_sync ? ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS : ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    check(api.zeCommandListCreateImmediate(h_.context, h_.device, &desc, &list_),
          "zeCommandListCreateImmediate");

    ze_event_pool_desc_t pool{};
    pool.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    pool.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    pool.count = kEvents;
    ze_device_handle_t device = h_.device;
    check(api.zeEventPoolCreate(h_.context, &pool, 1, &device, &pool_), "zeEventPoolCreate");
    for (uint32_t i = 0; i < kEvents; ++i) {
        ze_event_desc_t e{};
        e.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
        e.index = i;
        e.signal = ZE_EVENT_SCOPE_FLAG_HOST;
        e.wait = ZE_EVENT_SCOPE_FLAG_HOST;
        ze_event_handle_t event = nullptr;
        check(api.zeEventCreate(pool_, &e, &event), "zeEventCreate");
        free_events_.push_back(event);
    }
}

Queue::~Queue() {
    try {
        if (!holds_.empty()) synchronize();  // queued copies may still read held blocks
    } catch (...) {                          // a lost device: its memory goes with it
        return;
    }
    for (auto& [bytes, blocks] : pooled_)
        for (void* p : blocks)
            api_.zeMemFree(h_.context, p);
}

Queue::Block Queue::take_block(std::size_t n) {
    Block b{nullptr, n};
    if (n <= kMaxPooledUpload) {
        b.bytes = std::bit_ceil(std::max(n, kSmallestBlock));
        if (auto& free = pooled_[b.bytes]; !free.empty()) {
            b.ptr = free.back();
            free.pop_back();
            pooled_bytes_ -= b.bytes;
            return b;
        }
    }
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    check(api_.zeMemAllocHost(h_.context, &desc, b.bytes, 64, &b.ptr), "zeMemAllocHost");
    ++staging_allocations_;
    return b;
}

void Queue::give_block(Block b) noexcept {
    if (!b.ptr) return;
    if (b.bytes <= kMaxPooledUpload && pooled_bytes_ + b.bytes <= kMaxPooledBytes) {
        try {
            pooled_[b.bytes].push_back(b.ptr);
            pooled_bytes_ += b.bytes;
            return;
        } catch (...) {  // no room to pool it: freed instead
        }
    }
    api_.zeMemFree(h_.context, b.ptr);
}

void Queue::ordered(ze_result_t r, const char* what) {
    check(r, what);
    check(api_.zeCommandListAppendBarrier(list_, nullptr, 0, nullptr),
          "zeCommandListAppendBarrier");
}

void* Queue::allocate(std::size_t nbytes) {
    ze_device_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    void* ptr = nullptr;
    std::size_t n = nbytes ? nbytes : 1;
    check(api_.zeMemAllocDevice(h_.context, &desc, n, 64, h_.device, &ptr), "zeMemAllocDevice");
    const uint8_t zero = 0;
    fill(ptr, &zero, 1, n);
    return ptr;
}

void Queue::free(void* ptr) noexcept {
    if (!ptr) return;
    try {
        std::lock_guard guard(mutex_);
        if (info_.defer_free) {
            ze_memory_free_ext_desc_t desc{};
            desc.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC;
            desc.freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
            if (api_.zeMemFreeExt(h_.context, &desc, ptr) == ZE_RESULT_SUCCESS) return;
        }
        synchronize();
        api_.zeMemFree(h_.context, ptr);
    } catch (...) {
        // A lost device cannot be reported from a destructor; the memory goes with it.
    }
}

void Queue::upload(void* dst, const void* src, std::size_t n) {
    if (n == 0) return;
    std::lock_guard guard(mutex_);
    Block staging = take_block(n);
    std::memcpy(staging.ptr, src, n);
    try {
        ordered(api_.zeCommandListAppendMemoryCopy(list_, dst, staging.ptr, n, nullptr, 0, nullptr),
                "zeCommandListAppendMemoryCopy");
    } catch (...) {
        give_block(staging);  // nothing queued reads it
        throw;
    }
    hold(staging, {}, n);
}

void Queue::fill(void* dst, const void* pattern, std::size_t pattern_size, std::size_t n) {
    if (n == 0) return;
    std::lock_guard guard(mutex_);
    const auto* p = static_cast<const uint8_t*>(pattern);
    std::vector<uint8_t> copy(p, p + pattern_size);
    ordered(api_.zeCommandListAppendMemoryFill(list_, dst, copy.data(), pattern_size, n, nullptr, 0,
                                               nullptr),
            "zeCommandListAppendMemoryFill");
    hold({}, std::move(copy), pattern_size);
}

void Queue::copy_to_image(ze_image_handle_t image, const void* src) {
    std::lock_guard guard(mutex_);
    ordered(api_.zeCommandListAppendImageCopyFromMemory(list_, image, src, nullptr, nullptr, 0,
                                                        nullptr),
            "zeCommandListAppendImageCopyFromMemory");
}

void Queue::launch(ze_kernel_handle_t kernel, uint32_t groups) {
    std::lock_guard guard(mutex_);
    ze_group_count_t count{groups, 1, 1};
    ordered(api_.zeCommandListAppendLaunchKernel(list_, kernel, &count, nullptr, 0, nullptr),
            "zeCommandListAppendLaunchKernel");
}

void Queue::download(void* dst, const void* src, std::size_t n) {
    if (n == 0) return;
    ze_event_handle_t marker = nullptr;
    std::size_t holds_before = 0;
    Block staging;
    // A small read lands in pooled USM host memory and is copied out after the wait.
    auto finish = [&] {
        if (!staging.ptr) return;
        std::memcpy(dst, staging.ptr, n);
        give_block(staging);
    };
    {
        std::lock_guard guard(mutex_);
        if (n <= kMaxStagedDownload) staging = take_block(n);
        void* to = staging.ptr ? staging.ptr : dst;
        try {
            check(api_.zeCommandListAppendMemoryCopy(list_, to, src, n, nullptr, 0, nullptr),
                  "zeCommandListAppendMemoryCopy");
            marker = info_.host_sync ? take_event() : nullptr;
            if (!marker) {  // synchronous list, or every marker in use
                synchronize();
                return finish();
            }
            check(api_.zeCommandListAppendBarrier(list_, marker, 0, nullptr),
                  "zeCommandListAppendBarrier");
        } catch (...) {
            synchronize();  // a queued copy may still write the block
            give_block(staging);
            throw;
        }
        holds_before = holds_.size();
    }
    // Waiting outside the lock lets other threads queue launches meanwhile (the seed's
    // _ListMarker).
    ze_result_t r = api_.zeEventHostSynchronize(marker, kForever);
    api_.zeEventHostReset(marker);
    std::lock_guard guard(mutex_);
    free_events_.push_back(marker);
    if (r != ZE_RESULT_SUCCESS) give_block(staging);
    check(r, "a queued launch (zeEventHostSynchronize)");
    for (std::size_t i = 0; i < holds_before && i < holds_.size(); ++i)
        give_block(holds_[i].usm_host);
    holds_.erase(holds_.begin(), holds_.begin() + std::min(holds_before, holds_.size()));
    held_bytes_ = holds_.empty() ? 0 : held_bytes_;
    finish();
}

ze_event_handle_t Queue::mark() {
    std::lock_guard guard(mutex_);
    ze_event_handle_t e = info_.host_sync ? take_event() : nullptr;
    if (!e) return nullptr;
    if (ze_result_t r = api_.zeCommandListAppendBarrier(list_, e, 0, nullptr)) {
        free_events_.push_back(e);
        check(r, "zeCommandListAppendBarrier");
    }
    return e;
}

void Queue::wait_mark(ze_event_handle_t event) {
    ze_result_t r = api_.zeEventHostSynchronize(event, kForever);
    api_.zeEventHostReset(event);
    {
        std::lock_guard guard(mutex_);
        free_events_.push_back(event);
    }
    check(r, "a queued launch (zeEventHostSynchronize)");
}

void Queue::drop_mark(ze_event_handle_t event) noexcept {
    // Reused only once signalled: a reset before its barrier has run would lose the signal.
    api_.zeEventHostSynchronize(event, kForever);
    api_.zeEventHostReset(event);
    try {
        std::lock_guard guard(mutex_);
        free_events_.push_back(event);
    } catch (...) {  // the pool loses one event
    }
}

void Queue::synchronize() {
    std::lock_guard guard(mutex_);
    if (info_.host_sync)
        check(api_.zeCommandListHostSynchronize(list_, kForever),
              "a queued launch (zeCommandListHostSynchronize)");
    release_holds();
}

void Queue::hold(Block usm_host, std::vector<std::uint8_t> bytes, std::size_t n) {
    holds_.push_back({usm_host, std::move(bytes)});
    held_bytes_ += n;
    if (!info_.host_sync) return release_holds();  // a synchronous append has completed
    if (holds_.size() > kMaxHolds || held_bytes_ > kMaxHeldBytes) synchronize();
}

void Queue::release_holds() {
    for (Hold& h : holds_)
        give_block(h.usm_host);
    holds_.clear();
    held_bytes_ = 0;
}

ze_event_handle_t Queue::take_event() {
    if (free_events_.empty()) return nullptr;
    ze_event_handle_t e = free_events_.back();
    free_events_.pop_back();
    return e;
}

}  // namespace tack::runtime::level_zero
