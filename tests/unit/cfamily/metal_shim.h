// A stand-in for <metal_stdlib> so that clang++ can check generated MSL for syntax, types and
// overload resolution on a machine without Apple's compiler. It models only what Tack's
// generated code uses: address-space qualifiers (erased), Metal's scalar type names, as_type,
// the relaxed atomics, threadgroup_barrier, the float math overloads and 3-D textures.
#pragma once
#include <cmath>
#include <cstring>

#define kernel
#define device
#define threadgroup
#define constant const

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
static_assert(sizeof(long) == 8, "Metal's long is 64-bit");

namespace metal {

template <class To, class From>
To as_type(From x) {
    static_assert(sizeof(To) == sizeof(From), "as_type needs equal sizes");
    To out;
    std::memcpy(&out, &x, sizeof out);
    return out;
}

enum memory_order { memory_order_relaxed };
template <class T>
struct metal_atomic {
    T value;
};
typedef metal_atomic<int> atomic_int;
typedef metal_atomic<uint> atomic_uint;
typedef metal_atomic<float> atomic_float;

template <class T>
T atomic_fetch_add_explicit(metal_atomic<T>* p, T v, memory_order) {
    T old = p->value;
    p->value = old + v;
    return old;
}
template <class T>
T atomic_fetch_min_explicit(metal_atomic<T>* p, T v, memory_order) {
    T old = p->value;
    p->value = v < old ? v : old;
    return old;
}
template <class T>
T atomic_fetch_max_explicit(metal_atomic<T>* p, T v, memory_order) {
    T old = p->value;
    p->value = v > old ? v : old;
    return old;
}
template <class T>
T atomic_load_explicit(metal_atomic<T>* p, memory_order) {
    return p->value;
}
template <class T>
bool atomic_compare_exchange_weak_explicit(metal_atomic<T>* p, T* expected, T desired, memory_order,
                                           memory_order) {
    if (p->value == *expected) {
        p->value = desired;
        return true;
    }
    *expected = p->value;
    return false;
}

enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2 };
inline mem_flags operator|(mem_flags a, mem_flags b) {
    return static_cast<mem_flags>(static_cast<int>(a) | static_cast<int>(b));
}
inline void threadgroup_barrier(mem_flags) {}

using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::exp;
using std::exp2;
using std::fabs;
using std::floor;
using std::fmax;
using std::fmin;
using std::fmod;
using std::log;
using std::log10;
using std::log2;
using std::pow;
using std::rint;
using std::round;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::trunc;

// 3-D textures: the sampler's constructor arguments and texture3d<float>::sample.
struct float3 {
    float x, y, z;
    float3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
};
struct float4 {
    float x, y, z, w;
};
namespace coord {
enum E { normalized, pixel };
}
namespace address {
enum E { clamp_to_edge, clamp_to_zero, repeat };
}
namespace filter {
enum E { nearest, linear };
}
struct sampler {
    constexpr sampler(coord::E, address::E, filter::E) {}
};
template <class T>
struct texture3d {
    float4 sample(sampler, float3) const { return {}; }
};

}  // namespace metal
