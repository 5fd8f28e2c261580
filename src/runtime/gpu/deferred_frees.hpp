#pragma once
// Frees that must wait for the queue (seed, CUDA without memory pools): cuMemFree and hipFree
// wait for the whole device, so a dropped buffer is queued here and freed once the queue is
// idle, at the next synchronize or allocation. Thread-safe; the free function runs outside
// the list's lock.

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace tack::runtime::gpu {

template <class Handle>
class DeferredFrees {
  public:
    void defer(Handle h) {
        std::lock_guard guard(mutex_);
        pending_.push_back(h);
    }

    std::size_t pending() const {
        std::lock_guard guard(mutex_);
        return pending_.size();
    }

    /// Frees everything deferred so far. Call only when the queue is idle (after a wait).
    template <class Free>
    std::size_t drain(Free&& free) {
        std::vector<Handle> done;
        {
            std::lock_guard guard(mutex_);
            done.swap(pending_);
        }
        for (Handle& h : done)
            free(h);
        return done.size();
    }

  private:
    mutable std::mutex mutex_;
    std::vector<Handle> pending_;
};

}  // namespace tack::runtime::gpu
