#pragma once
// One context and one in-order command queue (DECISIONS G9): launches, fills and host-to-device
// copies are queued and return; the host waits where it reads, at synchronize(), and before
// memory leaves Tack. A queued command's error surfaces at the next wait.
//
// Lifetimes: host memory a queued write reads is held (hold) until the next wait. Device memory
// relies on clReleaseMemObject's deferred deletion: the OpenCL spec deletes a released buffer
// only once the commands queued that use it have finished, so an array dropped while a launch
// still uses it outlives that launch with no bookkeeping here.

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/opencl/device.hpp"

namespace tack::runtime::opencl {

class Queue {
  public:
    Queue(const ClApi& api, const DeviceDesc& device);
    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    cl_context context() const { return context_; }
    cl_command_queue queue() const { return queue_; }
    /// Serializes argument binding and enqueueing (a cl_kernel's arguments are shared state).
    std::mutex& lock() { return mutex_; }

    /// A zero-filled buffer (at least one byte: OpenCL refuses empty buffers).
    cl_mem allocate(std::size_t nbytes);
    void release(cl_mem mem);

    /// Queued copy from a private copy of `src`, held until the next wait.
    void upload(cl_mem dst, std::size_t offset, const void* src, std::size_t n);
    /// Queued copies that read or write `host` when they run (the caller keeps it alive).
    void enqueue_write(cl_mem dst, const void* host, std::size_t n);
    void enqueue_read(void* host, cl_mem src, std::size_t n);
    /// Waits for the queue, then copies.
    void download(void* dst, cl_mem src, std::size_t offset, std::size_t n);
    void fill(cl_mem dst, const void* pattern, std::size_t pattern_size, std::size_t bytes);
    /// Waits for every command queued so far; throws the first failure since the last wait.
    void synchronize();
    /// A marker event after the commands queued so far (tack.sync_async, numpy_async).
    std::unique_ptr<QueueMark> mark();

  private:
    void hold(std::shared_ptr<void> memory, std::size_t bytes);
    void wait_interruptibly();

    const ClApi& api_;
    cl_context context_ = nullptr;
    cl_command_queue queue_ = nullptr;
    std::mutex mutex_;
    std::mutex holds_mutex_;
    std::vector<std::shared_ptr<void>> holds_;
    std::size_t held_bytes_ = 0;
};

}  // namespace tack::runtime::opencl
