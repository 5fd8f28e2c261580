#include "runtime/host_ops.hpp"

#include "runtime/backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tack::runtime {

namespace {

/// Calls f(T{}) with the C++ type of `t`.
template <class F>
decltype(auto) with_type(DType t, F&& f) {
    switch (t) {
        case DType::i8:
            return f(int8_t{});
        case DType::u8:
            return f(uint8_t{});
        case DType::i16:
            return f(int16_t{});
        case DType::u16:
            return f(uint16_t{});
        case DType::i32:
            return f(int32_t{});
        case DType::u32:
            return f(uint32_t{});
        case DType::i64:
            return f(int64_t{});
        case DType::u64:
            return f(uint64_t{});
        case DType::f32:
            return f(float{});
        case DType::f64:
            return f(double{});
    }
    return f(int32_t{});
}

constexpr double pow2(int k) {
    double r = 1.0;
    for (int i = 0; i < k; ++i)
        r *= 2.0;
    return r;
}

// The IR's Cast semantics (ir.hpp): saturating float->int with NaN -> 0; C++20 integer
// conversions are already modular; int->float and f64->f32 round to nearest.
template <class To, class From>
To cast_value(From v) {
    if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
        constexpr int kBits = 8 * sizeof(To);
        constexpr double kLo = std::is_signed_v<To> ? -pow2(kBits - 1) : 0.0;
        constexpr double kHi = std::is_signed_v<To> ? pow2(kBits - 1) : pow2(kBits);
        double d = static_cast<double>(v);
        if (std::isnan(d)) return 0;
        if (d <= kLo) return std::numeric_limits<To>::min();
        if (d >= kHi) return std::numeric_limits<To>::max();
        return static_cast<To>(d);
    } else {
        return static_cast<To>(v);
    }
}

template <class T>
T from_bits(uint64_t bits) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(bits);
    } else {
        T v;
        std::memcpy(&v, &bits, sizeof(T));
        return v;
    }
}

template <class T>
uint64_t to_bits(T v) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
    } else {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof(T));
        return bits;
    }
}

constexpr size_t kLanes = 8;
constexpr size_t kBlock = 4096;  // elements summed by one set of lanes before pairing up
// Below this many elements per chunk a fan-out costs more than the threads save.
constexpr size_t kMinChunk = size_t{1} << 16;
// Chunks per thread: the pool balances by stealing whole chunks, so with one per thread a
// worker that starts late (a wake-up, another process on its CPU) leaves the caller waiting for
// its entire half; measured on the 2-core VM (2026-12), a 2^24 f32 sum ran 30-59 GB/s with 2
// chunks against 52-66 for OpenMP's reduction.
constexpr size_t kChunksPerThread = 8;

/// v[0] + ... + v[count-1] summed pairwise in index order. count > 0.
template <class T>
T sum_in_pairs(const T* v, size_t count) {
    if (count == 1) return v[0];
    size_t half = count / 2;
    return sum_in_pairs(v, half) + sum_in_pairs(v + half, count - half);
}

template <class T>
T sum_block(const T* x, size_t n) {
    T lanes[kLanes] = {};
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (size_t l = 0; l < kLanes; ++l)
            lanes[l] += x[i + l];
    }
    T tail = 0;
    for (; i < n; ++i)
        tail += x[i];
    return sum_in_pairs(lanes, kLanes) + tail;
}

// Pairwise summation: error grows with log(n) rather than n, well inside the contract's
// gamma_n bound (C18), and the independent lanes vectorize.
template <class T>
T sum_pairwise(const T* x, size_t n) {
    if (n <= kBlock) return sum_block(x, n);
    size_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return sum_pairwise(x, half) + sum_pairwise(x + half, n - half);
}

// Integers accumulate modulo 2^64 in u64 (signed values sign-extended first), C16.
template <class T>
uint64_t sum_integers(const T* x, size_t n) {
    uint64_t lanes[kLanes] = {};
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (size_t l = 0; l < kLanes; ++l) {
            lanes[l] += static_cast<uint64_t>(static_cast<int64_t>(x[i + l]));
        }
    }
    uint64_t total = 0;
    for (; i < n; ++i)
        total += static_cast<uint64_t>(static_cast<int64_t>(x[i]));
    for (uint64_t l : lanes)
        total += l;
    return total;
}

template <bool kMin, class T>
T pick(T v, T m) {
    return kMin ? (v < m ? v : m) : (v > m ? v : m);
}

template <class T, bool kMin>
T extremum_lanes(const T* x, size_t n, bool& saw_nan) {
    T lanes[kLanes];
    for (size_t l = 0; l < kLanes; ++l)
        lanes[l] = x[0];
    int nan = 0;
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (size_t l = 0; l < kLanes; ++l) {
            T v = x[i + l];
            if constexpr (std::is_floating_point_v<T>) nan |= (v != v);
            lanes[l] = pick<kMin>(v, lanes[l]);
        }
    }
    T m = lanes[0];
    for (; i < n; ++i) {
        T v = x[i];
        if constexpr (std::is_floating_point_v<T>) nan |= (v != v);
        m = pick<kMin>(v, m);
    }
    for (size_t l = 1; l < kLanes; ++l)
        m = pick<kMin>(lanes[l], m);
    if constexpr (std::is_floating_point_v<T>) nan |= (m != m);  // x[0] itself may be NaN
    saw_nan = nan != 0;
    return m;
}

int chunk_count(size_t n, const HostParallelism& par) {
    if (!par.run || par.threads < 2) return 1;
    return static_cast<int>(
        std::clamp<size_t>(n / kMinChunk, 1, size_t(par.threads) * kChunksPerThread));
}

/// Start of chunk i of `chunks` proportional pieces of [0, n), aligned down to 16 elements so
/// every chunk's vector loads stay aligned; chunk `chunks` starts at n. Chunks >= kMinChunk
/// long stay non-empty after the alignment.
size_t chunk_begin(size_t n, int chunks, int i) {
    if (i == chunks) return n;
    auto c = static_cast<size_t>(chunks), k = static_cast<size_t>(i);
    return (n / c * k + n % c * k / c) & ~size_t{15};  // floor(n * k / c) without overflow
}

/// body(chunk, begin, end) for each chunk of [0, n), run through `par`; returns the count.
template <class F>
int for_each_chunk_indexed(size_t n, const HostParallelism& par, F body) {
    int chunks = chunk_count(n, par);
    auto one = [&](int i) { body(i, chunk_begin(n, chunks, i), chunk_begin(n, chunks, i + 1)); };
    if (chunks == 1) {
        one(0);
    } else {
        par.run(
            chunks, [](void* ctx, int i) { (*static_cast<decltype(one)*>(ctx))(i); }, &one);
    }
    return chunks;
}

template <class F>
void for_each_chunk(size_t n, const HostParallelism& par, F body) {
    for_each_chunk_indexed(n, par, [&](int, size_t b, size_t e) { body(b, e); });
}

/// per_chunk(begin, end) for each chunk of [0, n), run through `par`; the partials in chunk
/// order.
template <class P, class F>
std::vector<P> chunk_partials(size_t n, const HostParallelism& par, F per_chunk) {
    std::vector<P> partials(static_cast<size_t>(chunk_count(n, par)));
    for_each_chunk_indexed(n, par,
                           [&](int i, size_t b, size_t e) { partials[i] = per_chunk(b, e); });
    return partials;
}

template <class T>
double sum_floats(const T* x, size_t n, const HostParallelism& par) {
    if (n == 0) return 0.0;
    auto partials =
        chunk_partials<T>(n, par, [x](size_t b, size_t e) { return sum_pairwise(x + b, e - b); });
    return static_cast<double>(sum_in_pairs(partials.data(), partials.size()));
}

template <class T>
uint64_t sum_wrapping(const T* x, size_t n, const HostParallelism& par) {
    auto partials = chunk_partials<uint64_t>(
        n, par, [x](size_t b, size_t e) { return sum_integers(x + b, e - b); });
    uint64_t total = 0;
    for (uint64_t p : partials)
        total += p;
    return total;
}

template <class T>
struct Extremum {
    T value;
    bool saw_nan;
};

// C17: NaN propagates; a zero result is -0.0 for min when any -0.0 is present and +0.0 for
// max when any +0.0 is present, whatever the order of the elements (nor the chunking).
template <class T, bool kMin>
double extremum(const T* x, size_t n, const HostParallelism& par) {
    auto partials = chunk_partials<Extremum<T>>(n, par, [x](size_t b, size_t e) {
        Extremum<T> p{};
        p.value = extremum_lanes<T, kMin>(x + b, e - b, p.saw_nan);
        return p;
    });
    T m = partials[0].value;
    bool saw_nan = false;
    for (const auto& p : partials) {
        saw_nan |= p.saw_nan;
        m = pick<kMin>(p.value, m);
    }
    if constexpr (std::is_floating_point_v<T>) {
        if (saw_nan) return std::numeric_limits<double>::quiet_NaN();
        if (m == 0) {
            bool want_negative = kMin;
            for (size_t i = 0; i < n; ++i) {
                if (x[i] == 0 && std::signbit(x[i]) == want_negative) {
                    return want_negative ? -0.0 : 0.0;
                }
            }
            return want_negative ? 0.0 : -0.0;
        }
    }
    return static_cast<double>(m);
}

}  // namespace

void convert_elements(DType from, const void* src, DType to, void* dst, size_t n) {
    with_type(from, [&](auto f) {
        using From = decltype(f);
        with_type(to, [&](auto t) {
            using To = decltype(t);
            const From* s = static_cast<const From*>(src);
            To* d = static_cast<To*>(dst);
            for (size_t i = 0; i < n; ++i)
                d[i] = cast_value<To>(s[i]);
        });
    });
}

uint64_t convert_scalar(Scalar value, DType to) {
    return with_type(value.dtype, [&](auto f) {
        using From = decltype(f);
        From v = from_bits<From>(value.bits);
        return with_type(to, [&](auto t) { return to_bits(cast_value<decltype(t)>(v)); });
    });
}

namespace {

// Fills of more bytes than this bypass the caches (streaming stores). An ordinary store that
// misses reads its line from memory first (read for ownership), so a cached fill moves twice the
// bytes it writes, and an array this large evicts its own head anyway. glibc's memset switches
// the same way near the last-level cache size.
constexpr size_t kStreamingFillBytes = size_t{8} << 20;

template <class T>
void fill_range(T* d, size_t n, T v, bool streaming) {
#if defined(__x86_64__)
    if (streaming) {
        size_t i = 0;  // ordinary stores up to the first 16-byte boundary
        while (i < n && (reinterpret_cast<uintptr_t>(d + i) & 15) != 0)
            d[i++] = v;
        constexpr size_t kPerVector = 16 / sizeof(T);
        if (i < n) {  // d + i is 16-byte aligned: T's own alignment allowed reaching it
            alignas(16) T lanes[kPerVector];
            std::fill(lanes, lanes + kPerVector, v);
            __m128i pattern = _mm_load_si128(reinterpret_cast<const __m128i*>(lanes));
            auto* out = reinterpret_cast<__m128i*>(d + i);
            size_t vectors = (n - i) / kPerVector;
            for (size_t k = 0; k < vectors; ++k)
                _mm_stream_si128(out + k, pattern);
            _mm_sfence();  // streaming stores are weakly ordered: drain before the chunk ends
            i += vectors * kPerVector;
        }
        std::fill(d + i, d + n, v);
        return;
    }
#endif
    (void)streaming;
    std::fill(d, d + n, v);
}

}  // namespace

void fill_elements(void* dst, DType dtype, uint64_t bits, size_t n, const HostParallelism& par) {
    with_type(dtype, [&](auto t) {
        using T = decltype(t);
        T v = from_bits<T>(bits);
        T* d = static_cast<T*>(dst);
        bool streaming = n * sizeof(T) > kStreamingFillBytes;
        for_each_chunk(n, par, [=](size_t b, size_t e) { fill_range(d + b, e - b, v, streaming); });
    });
}

double sum_elements(DType dtype, const void* data, size_t n, const HostParallelism& par) {
    return with_type(dtype, [&](auto t) -> double {
        using T = decltype(t);
        const T* x = static_cast<const T*>(data);
        if constexpr (std::is_floating_point_v<T>) {
            return sum_floats(x, n, par);
        } else if constexpr (std::is_signed_v<T>) {
            return static_cast<double>(static_cast<int64_t>(sum_wrapping(x, n, par)));
        } else {
            return static_cast<double>(sum_wrapping(x, n, par));
        }
    });
}

double min_elements(DType dtype, const void* data, size_t n, const HostParallelism& par) {
    return with_type(dtype, [&](auto t) {
        using T = decltype(t);
        return extremum<T, true>(static_cast<const T*>(data), n, par);
    });
}

double max_elements(DType dtype, const void* data, size_t n, const HostParallelism& par) {
    return with_type(dtype, [&](auto t) {
        using T = decltype(t);
        return extremum<T, false>(static_cast<const T*>(data), n, par);
    });
}

HostParallelism host_parallelism(Backend& backend) {
    return {backend.host_threads(), [&backend](int count, HostTaskFn task, void* ctx) {
                backend.run_host_tasks(count, task, ctx);
            }};
}

void fill_buffer(Buffer& buffer, DType dtype, uint64_t bits, size_t count) {
    Backend& backend = buffer.backend();
    auto elem = static_cast<size_t>(size_bytes(dtype));
    if (backend.fill_array(buffer, &bits, elem, count)) return;
    backend.synchronize();
    if (void* p = buffer.host_ptr()) {
        fill_elements(p, dtype, bits, count, host_parallelism(backend));
        return;
    }
    std::vector<unsigned char> tmp(count * elem);
    fill_elements(tmp.data(), dtype, bits, count);
    buffer.write(0, tmp.data(), tmp.size());
}

}  // namespace tack::runtime
