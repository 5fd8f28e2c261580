#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "runtime/backend.hpp"
#include "runtime/fork_guard.hpp"
#include "runtime/graph/graph.hpp"
#include "support/env.hpp"
#include "support/platform.hpp"

namespace tack::runtime {

namespace {
// One cache line, and the widest vector register on current x86 (AVX-512) and Arm (SVE 512).
constexpr std::size_t kAlignment = 64;
// Arrays from this size on start on a 2 MiB boundary and ask for transparent huge pages, as
// NumPy does for its own (>= 4 MiB, madvise): over 4 KiB pages a streaming kernel misses the
// TLB every page. Measured on the 2-core EPYC VM (2026-12, THP in madvise mode, one
// `make bench-peers` each): saxpy f32 2^24 60.9 -> 72.5 GB/s (0.91 -> 1.00x Numba prange over
// NumPy's arrays), copy 39.4 -> 45.8 GB/s, the 1024^2 heat step 0.078 -> 0.062 ms.
constexpr std::size_t kHugeFrom = std::size_t(4) << 20;
constexpr std::size_t kHugePage = std::size_t(2) << 20;

void* allocate_host(std::size_t padded) {
    if (padded < kHugeFrom) return std::aligned_alloc(kAlignment, padded);
    if (padded > std::numeric_limits<std::size_t>::max() - kHugePage) return nullptr;
    std::size_t rounded = (padded + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    // TACK_MADVISE_HUGEPAGE=0 leaves the advice out (with THP defrag in madvise mode a fault
    // on such a range may stall to compact memory).
    if (p && support::env_madvise_hugepage()) support::platform::advise_huge_pages(p, rounded);
    return p;
}
}  // namespace

// The host's ways into a buffer meet the fork guard first: in a fork child, the parent's
// device driver would wait forever for threads it no longer has.
void Buffer::share() {
    require_unforked(*backend_);
    refuse_in_capture("handing an array's memory outside Tack");
    shared_.store(true, std::memory_order_relaxed);
    backend().synchronize();  // DECISIONS G9: memory leaves Tack here
}

void Buffer::synchronize() const {
    require_unforked(*backend_);
    backend_->synchronize();
}

void Buffer::write(std::size_t offset, const void* src, std::size_t n) {
    if (n) std::memcpy(static_cast<char*>(host_) + offset, src, n);
}

void Buffer::write_in_order(std::size_t offset, const void* src, std::size_t n) {
    require_unforked(*backend_);
    refuse_in_capture("writing host data into an array");
    const bool queued = copies_in_queue_order();
    if (!queued) backend().synchronize();
    write(offset, src, n);
    if (queued && shared()) backend().synchronize();
}

void Buffer::read_in_order(std::size_t offset, void* dst, std::size_t n) const {
    require_unforked(*backend_);
    refuse_in_capture("reading an array on the host");
    // An empty read still waits: it is where a queued launch's error surfaces (G9).
    if (!copies_in_queue_order() || n == 0) backend().synchronize();
    read(offset, dst, n);
}

void Buffer::read(std::size_t offset, void* dst, std::size_t n) const {
    if (n) std::memcpy(dst, static_cast<const char*>(host_) + offset, n);
}

std::shared_ptr<HostBuffer> HostBuffer::allocate(std::shared_ptr<Backend> backend,
                                                 std::size_t nbytes) {
    // At least one line even for empty arrays (CONTRACT E12: "≥1 byte"), so every array has a
    // distinct address and the disjointness check never sees two empty arrays as aliases.
    // std::bad_alloc (Python: MemoryError) for a request no allocator can meet, also when the
    // padding itself would wrap.
    if (nbytes > std::numeric_limits<std::size_t>::max() - kAlignment) throw std::bad_alloc();
    std::size_t padded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    if (padded == 0) padded = kAlignment;
    void* p = allocate_host(padded);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, padded);
    auto address = reinterpret_cast<std::uintptr_t>(p);
    return std::shared_ptr<HostBuffer>(
        new HostBuffer(std::move(backend), address, p, nbytes, true));
}

std::shared_ptr<HostBuffer> HostBuffer::wrap(std::shared_ptr<Backend> backend, void* ptr,
                                             std::size_t nbytes) {
    auto address = reinterpret_cast<std::uintptr_t>(ptr);
    return std::shared_ptr<HostBuffer>(
        new HostBuffer(std::move(backend), address, ptr, nbytes, false));
}

HostBuffer::~HostBuffer() {
    if (owned()) std::free(host_ptr());
}

}  // namespace tack::runtime

namespace tack::runtime {

namespace {

class SynchronizingMark final : public QueueMark {
  public:
    explicit SynchronizingMark(std::shared_ptr<Backend> b) : b_(std::move(b)) {}
    void wait() override { b_->synchronize(); }

  private:
    std::shared_ptr<Backend> b_;
};

}  // namespace

std::unique_ptr<QueueMark> synchronizing_mark(std::shared_ptr<Backend> backend) {
    return std::make_unique<SynchronizingMark>(std::move(backend));
}

}  // namespace tack::runtime
