#include "runtime/cpu/algorithms.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

#include "runtime/cpu/cpu_info.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace tack::runtime::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// How long a thread waits for a predecessor's block total before summing that block itself:
// about what summing it costs (128 KiB from memory), so a late predecessor costs at most twice
// that, and a descheduled one never stalls the scan.
constexpr auto kWaitBudget = std::chrono::microseconds(20);
// Fewer blocks run on the calling thread: a fan-out costs 5-50 us, a block about 10 us.
constexpr int64_t kMinParallelBlocks = 4;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// The arithmetic of a scan in T: unsigned for integers, so sums wrap at T's width instead of
// overflowing (the bits are the same as two's-complement wrapping).
template <class T>
struct ArithOf {
    using Type = T;
};
template <class T>
requires std::is_integral_v<T>
struct ArithOf<T> {
    using Type = std::make_unsigned_t<T>;
};
template <class T>
using Arith = typename ArithOf<T>::Type;

template <class A>
uint64_t bits_of(A v) {
    if constexpr (std::is_integral_v<A>) {
        return static_cast<uint64_t>(v);
    } else if constexpr (sizeof(A) == 4) {
        uint32_t b;
        std::memcpy(&b, &v, sizeof b);
        return b;
    } else {
        uint64_t b;
        std::memcpy(&b, &v, sizeof b);
        return b;
    }
}

template <class A>
A value_of(uint64_t bits) {
    if constexpr (std::is_integral_v<A>) {
        return static_cast<A>(bits);
    } else if constexpr (sizeof(A) == 4) {
        auto b = static_cast<uint32_t>(bits);
        A v;
        std::memcpy(&v, &b, sizeof v);
        return v;
    } else {
        A v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
}

// 16-byte vectors (SSE2 on x86-64, NEON on AArch64; GCC and Clang vector extensions).
template <class A>
struct Vec16 {
    typedef A Type __attribute__((vector_size(16)));
    static constexpr int kLanes = 16 / sizeof(A);
};

template <class V, class A>
V load16(const A* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// x[0] + ... + x[n-1] in 64 bytes of lanes (element i into lane i mod 64/sizeof(A)), the lanes
/// then added pairwise: one fixed order, so a float block's total never depends on who computes
/// it. Four vector accumulators, so the adds pipeline and the lanes stay in registers.
template <class A>
A block_sum(const A* x, int64_t n) {
    using V = typename Vec16<A>::Type;
    constexpr int L = Vec16<A>::kLanes;
    V acc0{}, acc1{}, acc2{}, acc3{};
    int64_t i = 0;
    for (; i + 4 * L <= n; i += 4 * L) {
        acc0 += load16<V>(x + i);
        acc1 += load16<V>(x + i + L);
        acc2 += load16<V>(x + i + 2 * L);
        acc3 += load16<V>(x + i + 3 * L);
    }
    A lanes[4 * L];
    std::memcpy(lanes, &acc0, sizeof acc0);
    std::memcpy(lanes + L, &acc1, sizeof acc1);
    std::memcpy(lanes + 2 * L, &acc2, sizeof acc2);
    std::memcpy(lanes + 3 * L, &acc3, sizeof acc3);
    for (int l = 0; i < n; ++i, ++l)
        lanes[l] += x[i];
    for (int w = 2 * L; w > 0; w /= 2) {
        for (int l = 0; l < w; ++l)
            lanes[l] += lanes[l + w];
    }
    return lanes[0];
}

// --- integer block scans ------------------------------------------------------------------------
//
// A vector of L lanes is scanned in log2(L) shift-and-add steps, then offset by the running
// value; the serial recurrence would be one dependent add per element. Wrapping arithmetic makes
// every order give the same integers.

// v shifted up by S lanes, zeros shifted in.
template <class V, int L, int S, std::size_t... I>
V shift_up(V v, std::index_sequence<I...>) {
    return __builtin_shufflevector(V{}, v, (I >= S ? L + static_cast<int>(I) - S : 0)...);
}

template <class V, int L, std::size_t... I>
V splat_last(V v, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, (static_cast<int>(I) * 0 + L - 1)...);
}

template <class V, int L>
V vector_prefix(V v) {
    constexpr auto lanes = std::make_index_sequence<L>{};
    if constexpr (L >= 2) v += shift_up<V, L, 1>(v, lanes);
    if constexpr (L >= 4) v += shift_up<V, L, 2>(v, lanes);
    if constexpr (L >= 8) v += shift_up<V, L, 4>(v, lanes);
    if constexpr (L >= 16) v += shift_up<V, L, 8>(v, lanes);
    return v;
}

template <class V>
void store16(void* dst, V v, bool stream) {
#if defined(__x86_64__)
    if (stream) {
        __m128i m;
        std::memcpy(&m, &v, sizeof m);
        _mm_stream_si128(static_cast<__m128i*>(dst), m);
        return;
    }
#endif
    std::memcpy(dst, &v, sizeof v);
}

/// Scans n integers from `run`; returns the running value after the last. With `stream`, the
/// stores bypass the caches (the caller fences).
template <class A>
A scan_integers(const A* src, A* dst, int64_t n, A run, bool inclusive, bool stream) {
    using V = typename Vec16<A>::Type;
    constexpr int L = Vec16<A>::kLanes;
    int64_t i = 0;
    // Scalar up to a 16-byte boundary of dst (streaming stores need it).
    for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) % 16 != 0); ++i) {
        A x = src[i];
        run += x;
        dst[i] = inclusive ? run : A(run - x);
    }
    // Two vectors a step: their prefixes are independent, and the carry (one add and one
    // broadcast per step) is the only chain. Measured on one core over 2^26 i32 (SSE2): one
    // vector a step 17.1 ms, two 13.8 ms, memcpy 13.4 ms.
    constexpr auto lanes = std::make_index_sequence<L>{};
    V carry = V{} + run;
    for (; i + 2 * L <= n; i += 2 * L) {
        V x0 = load16<V>(src + i);
        V x1 = load16<V>(src + i + L);
        V p0 = vector_prefix<V, L>(x0);
        V p1 = vector_prefix<V, L>(x1) + splat_last<V, L>(p0, lanes);
        p0 += carry;
        p1 += carry;
        store16(dst + i, inclusive ? p0 : V(p0 - x0), stream);
        store16(dst + i + L, inclusive ? p1 : V(p1 - x1), stream);
        carry = splat_last<V, L>(p1, lanes);
    }
    run = carry[0];
    for (; i < n; ++i) {
        A x = src[i];
        run += x;
        dst[i] = inclusive ? run : A(run - x);
    }
    return run;
}

/// Floats: the left-to-right recurrence. In the first block (`first`) the first element starts
/// the recurrence itself, as in np.cumsum (0.0 + -0.0 would be +0.0): an exclusive scan is then
/// [0, cumsum[:-1]] bit for bit.
template <class A>
A scan_floats(const A* src, A* dst, int64_t n, A run, bool inclusive, bool first) {
    int64_t i = 0;
    if (first && n > 0) {
        run = src[0];
        dst[0] = inclusive ? run : A{};
        i = 1;
    }
    if (inclusive) {
        for (; i < n; ++i) {
            run = run + src[i];
            dst[i] = run;
        }
    } else {
        for (; i < n; ++i) {
            A x = src[i];
            dst[i] = run;
            run = run + x;
        }
    }
    return run;
}

// One block's shared state, a cache line each (threads on neighbouring blocks write them).
//
// A block's total has exactly one publisher, the first thread to claim `total_state` (its
// owner, or a successor that summed the block itself): in an in-place scan the owner overwrites
// the block once the total is published, so a successor's sum is only used when the successor
// finished reading the block before anyone published (its claim succeeded); a later one is
// dropped. Prefixes need no such care: every thread that forms block b's prefix forms it from
// the same published totals in the same order.
struct alignas(64) BlockState {
    std::atomic<uint32_t> total_state{0};  // kNone, kClaimed (being stored), kReady
    std::atomic<uint32_t> prefix_ready{0};
    std::atomic<uint64_t> total{0};   // the block's block_sum, once kReady
    std::atomic<uint64_t> prefix{0};  // the sum of all earlier blocks, once prefix_ready
};
constexpr uint32_t kNone = 0;
constexpr uint32_t kClaimed = 1;
constexpr uint32_t kReady = 2;

template <class T>
class BlockScan {
  public:
    using A = Arith<T>;

    BlockScan(const void* src, void* dst, int64_t n, bool inclusive, bool stream)
        : src_(static_cast<const A*>(src)),
          dst_(static_cast<A*>(dst)),
          n_(n),
          blocks_((n + kScanBlock - 1) / kScanBlock),
          inclusive_(inclusive),
          in_place_(src == dst),
          stream_(stream),
          states_(std::make_unique<BlockState[]>(static_cast<size_t>(blocks_))) {}

    A result() const { return value_of<A>(result_.load(std::memory_order_acquire)); }

    /// Claims blocks in order until none is left.
    void run() {
        for (;;) {
            int64_t b = next_.fetch_add(1, std::memory_order_relaxed);
            if (b >= blocks_) break;
            if constexpr (std::is_integral_v<A>) {
                if (!in_place_ && b > 0 &&
                    states_[b].prefix_ready.load(std::memory_order_acquire)) {
                    // The prefix is known already (a thread running ahead of the others, or
                    // alone on a loaded host): integers need no separate total, so the block
                    // streams through once, as in a serial scan, and publishes its total after
                    // (out of place only: a successor may sum the block meanwhile).
                    A prefix = value_of<A>(states_[b].prefix.load(std::memory_order_relaxed));
                    A end = scan(b, prefix);
                    A total = publish_total(b, A(end - prefix));
                    if (b + 1 < blocks_) publish_prefix(b + 1, A(prefix + total));
                    continue;
                }
            }
            A total = total_of(b, /*owner=*/true);
            A prefix = prefix_of(b);
            if (b + 1 < blocks_) publish_prefix(b + 1, A(prefix + total));
            scan(b, prefix);
        }
#if defined(__x86_64__)
        if (stream_) _mm_sfence();  // streaming stores are weakly ordered: drain before return
#endif
    }

  private:
    int64_t begin(int64_t b) const {
        return b * kScanBlock;
    }
    int64_t length(int64_t b) const {
        return std::min(kScanBlock, n_ - begin(b));
    }

    /// Publishes `total` as block b's unless another thread claimed that first; the published
    /// total.
    A publish_total(int64_t b, A total) {
        BlockState& s = states_[b];
        uint32_t expected = kNone;
        if (!s.total_state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) {
            return published_total(b);
        }
        s.total.store(bits_of(total), std::memory_order_relaxed);
        s.total_state.store(kReady, std::memory_order_release);
        return total;
    }

    /// The total of a claimed block, once its publisher has stored it (two stores away).
    A published_total(int64_t b) {
        BlockState& s = states_[b];
        while (s.total_state.load(std::memory_order_acquire) != kReady)
            cpu_relax();
        return value_of<A>(s.total.load(std::memory_order_relaxed));
    }

    /// Block b's total: the owner sums its block (unless a successor has published it); any
    /// other thread takes the published total, waiting up to kWaitBudget for it before summing
    /// the block itself. In place it waits for the owner however long that takes (yielding
    /// its core after the budget, which may be the owner's): the owner overwrites the block
    /// once its total is out, and a successor's sum would race with those writes. The owner
    /// never waits before publishing, so the wait ends.
    A total_of(int64_t b, bool owner) {
        BlockState& s = states_[b];
        if (s.total_state.load(std::memory_order_acquire) != kNone) return published_total(b);
        if (owner) return publish_total(b, block_sum(src_ + begin(b), length(b)));
        auto deadline = Clock::now() + kWaitBudget;
        bool late = false;
        for (int spin = 1; s.total_state.load(std::memory_order_acquire) == kNone; ++spin) {
            if (late) {
                std::this_thread::yield();
            } else {
                cpu_relax();
                late = spin % 64 == 0 && Clock::now() > deadline;
                if (late && !in_place_) {
                    return publish_total(b, block_sum(src_ + begin(b), length(b)));
                }
            }
        }
        return published_total(b);
    }

    void publish_prefix(int64_t b, A prefix) {
        states_[b].prefix.store(bits_of(prefix), std::memory_order_relaxed);
        states_[b].prefix_ready.store(1, std::memory_order_release);
    }

    /// The sum of blocks 0..b-1: the nearest published prefix, then the totals after it, each
    /// step's prefix published on the way.
    A prefix_of(int64_t b) {
        int64_t k = b;
        while (k > 0 && !states_[k].prefix_ready.load(std::memory_order_acquire))
            --k;
        A value = k == 0 ? A{} : value_of<A>(states_[k].prefix.load(std::memory_order_relaxed));
        for (int64_t j = k; j < b; ++j) {
            value = A(value + total_of(j, false));
            publish_prefix(j + 1, value);
        }
        return value;
    }

    A scan(int64_t b, A prefix) {
        const A* s = src_ + begin(b);
        A* d = dst_ + begin(b);
        A end;
        if constexpr (std::is_floating_point_v<A>) {
            end = scan_floats(s, d, length(b), prefix, inclusive_, b == 0);
        } else {
            end = scan_integers(s, d, length(b), prefix, inclusive_, stream_);
        }
        if (b == blocks_ - 1) result_.store(bits_of(end), std::memory_order_release);
        return end;
    }

    const A* src_;
    A* dst_;
    int64_t n_;
    int64_t blocks_;
    bool inclusive_;
    bool in_place_;
    bool stream_;
    std::unique_ptr<BlockState[]> states_;
    std::atomic<int64_t> next_{0};
    std::atomic<uint64_t> result_{0};
};

template <class T>
uint64_t scan_typed(const void* src, void* dst, int64_t n, bool inclusive,
                    const HostParallelism& par) {
    using A = Arith<T>;
    if (n <= 0) return 0;
    // Streaming stores pay off once the output is larger than the last-level cache (as for the
    // kernels' streaming variant).
    const bool stream = n * static_cast<int64_t>(sizeof(T)) >= last_level_cache_bytes();
    const int64_t blocks = (n + kScanBlock - 1) / kScanBlock;
    const bool parallel = par.run && par.threads >= 2 && blocks >= kMinParallelBlocks;
    if constexpr (std::is_integral_v<A>) {
        // Integers are exact in any order: one thread scans straight through.
        if (!parallel) {
            A end = scan_integers(static_cast<const A*>(src), static_cast<A*>(dst), n, A{},
                                  inclusive, stream);
#if defined(__x86_64__)
            if (stream) _mm_sfence();
#endif
            return bits_of(end);
        }
    }
    BlockScan<T> job(src, dst, n, inclusive, stream);
    if (parallel) {
        auto task = [](void* ctx, int) { static_cast<BlockScan<T>*>(ctx)->run(); };
        par.run(static_cast<int>(std::min<int64_t>(par.threads, blocks)), task, &job);
    } else {
        job.run();
    }
    return bits_of(job.result());
}

using ScanFn = uint64_t (*)(const void*, void*, int64_t, bool, const HostParallelism&);

// Indexed by DType (i8, u8, i16, u16, i32, u32, i64, u64, f32, f64).
constexpr ScanFn kScans[] = {
    &scan_typed<int8_t>,  &scan_typed<uint8_t>,  &scan_typed<int16_t>, &scan_typed<uint16_t>,
    &scan_typed<int32_t>, &scan_typed<uint32_t>, &scan_typed<int64_t>, &scan_typed<uint64_t>,
    &scan_typed<float>,   &scan_typed<double>,
};
static_assert(std::size(kScans) == 10);

}  // namespace

uint64_t scan_elements(DType dtype, const void* src, void* dst, int64_t n, bool inclusive,
                       const HostParallelism& par) {
    return kScans[static_cast<size_t>(dtype)](src, dst, n, inclusive, par);
}

}  // namespace tack::runtime::cpu
