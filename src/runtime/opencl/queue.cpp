#include "runtime/opencl/queue.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "runtime/errors.hpp"
#include "runtime/gpu/interruptible_wait.hpp"
#include "support/interrupt.hpp"

namespace tack::runtime::opencl {

namespace {

// Past these the next upload waits first, so held staging copies stay bounded.
constexpr std::size_t kMaxHeldBytes = std::size_t(256) << 20;
constexpr std::size_t kMaxHolds = 1024;

}  // namespace

Queue::Queue(const ClApi& api, const DeviceDesc& device) : api_(api) {
    cl_int err = CL_SUCCESS;
    context_ = api_.clCreateContext(nullptr, 1, &device.device, nullptr, nullptr, &err);
    if (!context_)
        throw RuntimeError("Cannot initialize 'opencl' backend: clCreateContext failed: " +
                           cl_error_name(err));
    // Properties 0: in order, so copies, launches and reads run in program order.
    queue_ = api_.clCreateCommandQueue(context_, device.device, 0, &err);
    if (!queue_) {
        api_.clReleaseContext(context_);
        throw RuntimeError("Cannot initialize 'opencl' backend: clCreateCommandQueue failed: " +
                           cl_error_name(err));
    }
}

Queue::~Queue() {
    api_.clFinish(queue_);
    api_.clReleaseCommandQueue(queue_);
    api_.clReleaseContext(context_);
}

cl_mem Queue::allocate(std::size_t nbytes) {
    cl_int err = CL_SUCCESS;
    std::size_t n = nbytes ? nbytes : 1;
    cl_mem mem = api_.clCreateBuffer(context_, CL_MEM_READ_WRITE, n, nullptr, &err);
    // Too big for the device is std::bad_alloc (Python: MemoryError naming the shape), like
    // the host allocator; CL_INVALID_BUFFER_SIZE is PoCL 5's answer past
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE.
    // (-61 CL_INVALID_BUFFER_SIZE, -4 CL_MEM_OBJECT_ALLOCATION_FAILURE, -5 CL_OUT_OF_RESOURCES,
    // -6 CL_OUT_OF_HOST_MEMORY.)
    if (err == -61 || err == -4 || err == -5 || err == -6) throw std::bad_alloc();
    check(err, "clCreateBuffer");
    const std::uint8_t zero = 0;
    fill(mem, &zero, 1, n);
    return mem;
}

void Queue::release(cl_mem mem) {
    api_.clReleaseMemObject(mem);  // deferred until the queued commands using it finish
}

void Queue::hold(std::shared_ptr<void> memory, std::size_t bytes) {
    bool wait = false;
    {
        std::lock_guard guard(holds_mutex_);
        holds_.push_back(std::move(memory));
        held_bytes_ += bytes;
        wait = held_bytes_ > kMaxHeldBytes || holds_.size() > kMaxHolds;
    }
    if (wait) synchronize();
}

void Queue::upload(cl_mem dst, std::size_t offset, const void* src, std::size_t n) {
    if (n == 0) return;
    std::shared_ptr<std::uint8_t[]> copy(new std::uint8_t[n]);
    std::memcpy(copy.get(), src, n);
    {
        std::lock_guard guard(mutex_);
        check(api_.clEnqueueWriteBuffer(queue_, dst, CL_FALSE, offset, n, copy.get(), 0, nullptr,
                                        nullptr),
              "clEnqueueWriteBuffer");
    }
    hold(std::move(copy), n);
}

void Queue::enqueue_write(cl_mem dst, const void* host, std::size_t n) {
    if (n == 0) return;
    check(api_.clEnqueueWriteBuffer(queue_, dst, CL_FALSE, 0, n, host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
}

void Queue::enqueue_read(void* host, cl_mem src, std::size_t n) {
    if (n == 0) return;
    check(api_.clEnqueueReadBuffer(queue_, src, CL_FALSE, 0, n, host, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
}

void Queue::download(void* dst, cl_mem src, std::size_t offset, std::size_t n) {
    synchronize();
    if (n == 0) return;
    check(api_.clEnqueueReadBuffer(queue_, src, CL_TRUE, offset, n, dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
}

void Queue::fill(cl_mem dst, const void* pattern, std::size_t pattern_size, std::size_t bytes) {
    if (bytes == 0) return;
    std::lock_guard guard(mutex_);
    // The pattern is copied by the call (OpenCL 1.2), so nothing needs holding.
    check(
        api_.clEnqueueFillBuffer(queue_, dst, pattern, pattern_size, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
}

namespace {

/// clEnqueueMarkerWithWaitList's event: complete once everything queued before it has run.
class ClMark final : public QueueMark {
  public:
    ClMark(const ClApi& api, cl_event event) : api_(api), event_(event) {}
    ~ClMark() override { api_.clReleaseEvent(event_); }
    void wait() override {
        cl_int r = api_.clWaitForEvents(1, &event_);
        cl_int status = 0;
        api_.clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                            nullptr);
        check(r != CL_SUCCESS ? r : (status < 0 ? status : CL_SUCCESS),
              "a queued command (clWaitForEvents)");
    }

  private:
    const ClApi& api_;
    cl_event event_;
};

struct Completion {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
};

// Runs once, on a thread of the implementation, when the marker completes or fails; the
// waiter may have gone (interrupted), so the callback owns a reference.
void on_complete(cl_event, cl_int, void* data) {
    auto* owned = static_cast<std::shared_ptr<Completion>*>(data);
    {
        std::lock_guard guard((*owned)->mutex);
        (*owned)->done = true;
    }
    (*owned)->done_cv.notify_all();
    delete owned;
}

}  // namespace

// With an interrupt poll (tack.sync() from Python), a marker's completion callback is awaited
// first so that a Ctrl-C ends the wait (gpu/interruptible_wait.hpp), before the holds are
// touched: an interrupted wait leaves them to the commands still running. clFinish then
// returns at once. A callback, not polling the marker's status: a spinning host thread took a
// core from PoCL's workers (a 1M-element launch and wait took 2x as long).
void Queue::wait_interruptibly() {
    if (!support::current_interrupt_poll()) return;
    cl_event marker = nullptr;
    {
        std::lock_guard guard(mutex_);
        if (api_.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker) != CL_SUCCESS) return;
    }
    auto completion = std::make_shared<Completion>();
    auto* owned = new std::shared_ptr<Completion>(completion);
    ClMark owner(api_, marker);  // released however the wait ends
    if (api_.clSetEventCallback(marker, CL_COMPLETE, &on_complete, owned) != CL_SUCCESS) {
        delete owned;
        return;  // clFinish waits
    }
    api_.clFlush(queue_);
    gpu::wait_interruptibly([&](std::chrono::nanoseconds timeout) {
        std::unique_lock lock(completion->mutex);
        return completion->done_cv.wait_for(lock, timeout, [&] { return completion->done; });
    });
}

void Queue::synchronize() {
    wait_interruptibly();
    // Holds taken before clFinish belong to commands it covers.
    std::vector<std::shared_ptr<void>> done;
    {
        std::lock_guard guard(holds_mutex_);
        done.swap(holds_);
        held_bytes_ = 0;
    }
    check(api_.clFinish(queue_), "a queued command (clFinish)");
}

std::unique_ptr<QueueMark> Queue::mark() {
    cl_event event = nullptr;
    std::lock_guard guard(mutex_);
    check(api_.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event),
          "clEnqueueMarkerWithWaitList");
    return std::make_unique<ClMark>(api_, event);
}

}  // namespace tack::runtime::opencl
