#pragma once
// Dropped arrays' device buffers kept for reuse by capacity class (seed "HIP", BufferCache):
// hipFree waits for the whole device, and ROCm 7.1.1's stream-ordered pool slowed with every
// allocation it had made (63 -> 600 us a call over 512 pieces, where hipMalloc stayed at 17 us).
// Every use of a buffer is queued on the backend's one stream, so a dropped array's work runs
// before the next array's that reuses its buffer: what a stream-ordered pool promises.
//
// Classes are powers of two from 256 bytes to 2 MiB, multiples of 2 MiB above; the cache holds at
// most `budget` bytes (a quarter of the device) and frees what does not fit. Thread-safe; generic
// over the handle so it is tested without a driver.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace tack::runtime::gpu {

/// The capacity a request of `nbytes` is served with: the next power of two from 256 bytes up
/// to 2 MiB, then the next multiple of 2 MiB (the device's page), so a large array never asks
/// for much more than it needs (a 33 GiB array once asked for 64). 0 stays 0 past 2^64 - 2 MiB.
inline constexpr std::size_t kLargeClass = std::size_t(2) << 20;
inline std::size_t capacity_class(std::size_t nbytes) {
    if (nbytes > kLargeClass)
        return nbytes > ~std::size_t(0) - kLargeClass
                   ? nbytes
                   : (nbytes + kLargeClass - 1) / kLargeClass * kLargeClass;
    std::size_t c = 256;
    while (c < nbytes)
        c <<= 1;
    return c;
}

template <class Handle>
class BufferCache {
  public:
    explicit BufferCache(std::size_t budget) : budget_(budget) {}

    /// A cached buffer of `capacity` (a capacity_class), or nullopt.
    std::optional<Handle> take(std::size_t capacity) {
        std::lock_guard guard(mutex_);
        auto it = free_.find(capacity);
        if (it == free_.end() || it->second.empty()) return std::nullopt;
        Handle h = it->second.back();
        it->second.pop_back();
        held_ -= capacity;
        return h;
    }

    /// Keeps a dropped buffer of `capacity`; false when over budget (the caller frees it).
    bool give(Handle h, std::size_t capacity) {
        std::lock_guard guard(mutex_);
        if (held_ + capacity > budget_) return false;
        free_[capacity].push_back(h);
        held_ += capacity;
        return true;
    }

    /// Empties the cache through `free` (the backend's destructor).
    template <class Free>
    void clear(Free&& free) {
        std::map<std::size_t, std::vector<Handle>> all;
        {
            std::lock_guard guard(mutex_);
            all.swap(free_);
            held_ = 0;
        }
        for (auto& [cap, list] : all)
            for (Handle h : list)
                free(h);
    }

    std::size_t held_bytes() const {
        std::lock_guard guard(mutex_);
        return held_;
    }

  private:
    mutable std::mutex mutex_;
    std::size_t budget_;
    std::size_t held_ = 0;
    std::map<std::size_t, std::vector<Handle>> free_;
};

}  // namespace tack::runtime::gpu
