#include "runtime/host_ops.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

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
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
           ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7])) + tail;
}

// Pairwise summation: error grows with log(n) rather than n, well inside the contract's
// gamma_n bound (C18), and the 8 independent lanes vectorize.
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
            lanes[l] = kMin ? (v < lanes[l] ? v : lanes[l]) : (v > lanes[l] ? v : lanes[l]);
        }
    }
    T m = lanes[0];
    for (; i < n; ++i) {
        T v = x[i];
        if constexpr (std::is_floating_point_v<T>) nan |= (v != v);
        m = kMin ? (v < m ? v : m) : (v > m ? v : m);
    }
    for (size_t l = 1; l < kLanes; ++l)
        m = kMin ? (lanes[l] < m ? lanes[l] : m) : (lanes[l] > m ? lanes[l] : m);
    if constexpr (std::is_floating_point_v<T>) nan |= (m != m);  // x[0] itself may be NaN
    saw_nan = nan != 0;
    return m;
}

// C17: NaN propagates; a zero result is -0.0 for min when any -0.0 is present and +0.0 for
// max when any +0.0 is present, whatever the order of the elements.
template <class T, bool kMin>
double extremum(const T* x, size_t n) {
    bool saw_nan = false;
    T m = extremum_lanes<T, kMin>(x, n, saw_nan);
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

void fill_elements(void* dst, DType dtype, uint64_t bits, size_t n) {
    with_type(dtype, [&](auto t) {
        using T = decltype(t);
        T v = from_bits<T>(bits);
        T* d = static_cast<T*>(dst);
        for (size_t i = 0; i < n; ++i)
            d[i] = v;
    });
}

double sum_elements(DType dtype, const void* data, size_t n) {
    return with_type(dtype, [&](auto t) -> double {
        using T = decltype(t);
        const T* x = static_cast<const T*>(data);
        if constexpr (std::is_floating_point_v<T>) {
            return n == 0 ? 0.0 : static_cast<double>(sum_pairwise(x, n));
        } else if constexpr (std::is_signed_v<T>) {
            return static_cast<double>(static_cast<int64_t>(sum_integers(x, n)));
        } else {
            return static_cast<double>(sum_integers(x, n));
        }
    });
}

double min_elements(DType dtype, const void* data, size_t n) {
    return with_type(dtype, [&](auto t) {
        using T = decltype(t);
        return extremum<T, true>(static_cast<const T*>(data), n);
    });
}

double max_elements(DType dtype, const void* data, size_t n) {
    return with_type(dtype, [&](auto t) {
        using T = decltype(t);
        return extremum<T, false>(static_cast<const T*>(data), n);
    });
}

}  // namespace tack::runtime
