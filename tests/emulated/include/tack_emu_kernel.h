// The device side of the emulated CUDA and HIP GPUs: what NVRTC and hipRTC know without an
// include, defined for a host C++ compile, so that the CUDA C / HIP C the runtime generates runs
// on the CPU unchanged. The emulated driver (tests/emulated/engine.cpp) prepends nothing and
// appends one TACK_EMU_KERNEL(entry) line per kernel, which exports the entry points it calls.
//
// The execution model: the driver runs a block's threads one after another on one host thread.
// Kernels with a barrier run each GPU thread on a fiber; __syncthreads() switches to the
// driver's scheduler, which resumes every thread of the block once all have arrived.
// `__shared__` memory is therefore a thread_local static: one copy per host thread, which
// runs one block at a time.
#pragma once

// No libc headers: <math.h> in C++ is 20,000 lines, most of a module's compile time. Only the
// functions the C-family emitter can name (ir::MathFn through math_name, the f32 spelling with
// an `f`, plus fmin/fmax/fmod/copysign/pow), each for float and double.
// clang-format off
#define TACK_EMU_MATH(X1, X2) \
    X1(sqrt) X1(sin) X1(cos) X1(tan) X1(asin) X1(acos) X1(atan) X1(sinh) X1(cosh) X1(tanh) \
    X1(exp) X1(exp2) X1(log) X1(log2) X1(log10) X1(floor) X1(ceil) X1(trunc) X1(rint) \
    X1(round) X1(fabs) X2(atan2) X2(pow) X2(fmod) X2(copysign) X2(fmin) X2(fmax)
// clang-format on
#define TACK_EMU_MATH1(name)       \
    float name##f(float) noexcept; \
    double name(double) noexcept;
#define TACK_EMU_MATH2(name)              \
    float name##f(float, float) noexcept; \
    double name(double, double) noexcept;
extern "C" {
TACK_EMU_MATH(TACK_EMU_MATH1, TACK_EMU_MATH2)
int printf(const char*, ...);
int dprintf(int, const char*, ...);
}

#include "tack_emu_abi.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __shared__ static thread_local

struct tack_emu_uint3 {
    unsigned x, y, z;
};
static thread_local tack_emu_uint3 threadIdx, blockIdx, blockDim, gridDim;

// The scheduler's switch, set by the driver when it loads the module.
static void (*tack_emu_barrier_fn)(void) = nullptr;
extern "C" __attribute__((visibility("default"))) void tack_emu_set_barrier(void (*fn)(void)) {
    tack_emu_barrier_fn = fn;
}
static inline void __syncthreads(void) {
    tack_emu_uint3 self = threadIdx;  // the other fibers of the block set it while we wait
    tack_emu_barrier_fn();
    threadIdx = self;
}

// --- bit reinterpretation and rounding-exact products -------------------------------------
template <class To, class From>
static __forceinline__ To tack_emu_bits(From v) {
    static_assert(sizeof(To) == sizeof(From), "same width");
    return __builtin_bit_cast(To, v);
}
static __forceinline__ unsigned __float_as_uint(float x) {
    return tack_emu_bits<unsigned>(x);
}
static __forceinline__ float __uint_as_float(unsigned x) {
    return tack_emu_bits<float>(x);
}
static __forceinline__ long long __double_as_longlong(double x) {
    return tack_emu_bits<long long>(x);
}
static __forceinline__ double __longlong_as_double(long long x) {
    return tack_emu_bits<double>(x);
}
// The module is compiled with -ffp-contract=off: a product is never fused.
static __forceinline__ float __fmul_rn(float a, float b) {
    return a * b;
}
static __forceinline__ double __dmul_rn(double a, double b) {
    return a * b;
}

// --- atomics: every one a read-modify-write on the element, returning the old value ------------
template <class T, class F>
static __forceinline__ T tack_emu_rmw(T* p, F next) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, next(old), false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    return old;
}
template <int Bytes>
struct tack_emu_word;
template <>
struct tack_emu_word<4> {
    using type = unsigned;
};
template <>
struct tack_emu_word<8> {
    using type = unsigned long long;
};
template <class T>
static __forceinline__ T tack_emu_float_add(T* p, T v) {
    using U = typename tack_emu_word<sizeof(T)>::type;
    U old = tack_emu_rmw(reinterpret_cast<U*>(p),
                         [&](U o) { return tack_emu_bits<U>(tack_emu_bits<T>(o) + v); });
    return tack_emu_bits<T>(old);
}
#define TACK_EMU_INT_ATOMICS(T)                                                     \
    static __forceinline__ T atomicAdd(T* p, T v) {                                 \
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                          \
    }                                                                               \
    static __forceinline__ T atomicMin(T* p, T v) {                                 \
        return tack_emu_rmw(p, [&](T o) { return v < o ? v : o; });                 \
    }                                                                               \
    static __forceinline__ T atomicMax(T* p, T v) {                                 \
        return tack_emu_rmw(p, [&](T o) { return v > o ? v : o; });                 \
    }                                                                               \
    static __forceinline__ T atomicCAS(T* p, T expected, T desired) {               \
        __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, \
                                    __ATOMIC_RELAXED);                              \
        return expected;                                                            \
    }
TACK_EMU_INT_ATOMICS(int)
TACK_EMU_INT_ATOMICS(unsigned)
TACK_EMU_INT_ATOMICS(long long)
TACK_EMU_INT_ATOMICS(unsigned long long)
static __forceinline__ float atomicAdd(float* p, float v) {
    return tack_emu_float_add(p, v);
}
static __forceinline__ double atomicAdd(double* p, double v) {
    return tack_emu_float_add(p, v);
}

// --- 3-D float textures: linear filter, clamp to edge ------------------------------------------
typedef unsigned long long cudaTextureObject_t;
typedef struct __hip_texture* hipTextureObject_t;

// One axis as the hardware computes it: the fraction in 9-bit fixed point with 8 fractional
// bits (CUDA Programming Guide, "Linear Filtering"), both neighbours clamped to the edge.
static inline float tack_emu_axis(float c, long long n, int normalized, long long* i0,
                                  long long* i1) {
    if (c != c) c = 0.0f;  // NaN reads as the first texel's edge
    float x = (normalized ? c * float(n) : c) - 0.5f;
    float fl = floorf(x);
    float frac = roundf((x - fl) * 256.0f) / 256.0f;
    long long base = fl < -1.0f ? -1 : fl > float(n) ? n : (long long)fl;
    auto clamp = [n](long long i) { return i < 0 ? 0 : i >= n ? n - 1 : i; };
    *i0 = clamp(base);
    *i1 = clamp(base + 1);
    return frac;
}
static inline float tack_emu_sample(const tack_emu_texture* t, float x, float y, float z) {
    if (!t || t->magic != kTackEmuTextureMagic) {
        dprintf(2, "tack-emu: tex3D on a texture object that is not live (%p)\n", (const void*)t);
        __builtin_trap();
    }
    long long x0, x1, y0, y1, z0, z1;
    float a = tack_emu_axis(x, t->width, t->normalized, &x0, &x1);
    float b = tack_emu_axis(y, t->height, t->normalized, &y0, &y1);
    float g = tack_emu_axis(z, t->depth, t->normalized, &z0, &z1);
    auto at = [t](long long k, long long j, long long i) {
        return t->texels[(k * t->height + j) * t->width + i];
    };
    auto plane = [&](long long k) {
        float lo = (1 - a) * at(k, y0, x0) + a * at(k, y0, x1);
        float hi = (1 - a) * at(k, y1, x0) + a * at(k, y1, x1);
        return (1 - b) * lo + b * hi;
    };
    return (1 - g) * plane(z0) + g * plane(z1);
}
template <class T>
static inline T tex3D(cudaTextureObject_t t, float x, float y, float z) {
    return tack_emu_sample(reinterpret_cast<const tack_emu_texture*>(t), x, y, z);
}
template <class T>
static inline T tex3D(hipTextureObject_t t, float x, float y, float z) {
    return tack_emu_sample(reinterpret_cast<const tack_emu_texture*>(t), x, y, z);
}

// --- the entry points the driver calls ---------------------------------------------------------
// Per kernel: its parameters (tack_emu_kernel_info), a block run by one host thread in order
// (kernels without a barrier), and one thread of a block (run on a fiber).
template <class T, T... I>
struct tack_emu_seq {};
template <class F>
struct tack_emu_sig;
template <class... A>
struct tack_emu_sig<void(A...)> {
    static constexpr unsigned count = sizeof...(A);
    static constexpr unsigned sizes[] = {unsigned(sizeof(A))...};
    static constexpr unsigned char pointer[] = {(unsigned char)__is_pointer(A)...};
    template <unsigned... I>
    static __forceinline__ void call(void (*f)(A...), void** p, tack_emu_seq<unsigned, I...>) {
        f(*static_cast<A*>(p[I])...);
    }
    static __forceinline__ void call(void (*f)(A...), void** p) {
        call(f, p, __make_integer_seq<tack_emu_seq, unsigned, sizeof...(A)>{});
    }
};
static inline void tack_emu_set_block(unsigned bx, unsigned bdim, unsigned gdim) {
    blockIdx = {bx, 0, 0};
    blockDim = {bdim, 1, 1};
    gridDim = {gdim, 1, 1};
}
#define TACK_EMU_KERNEL(name, has_barrier)                                                         \
    using tack_emu_sig_##name = tack_emu_sig<__typeof__(name)>;                                    \
    extern "C" __attribute__((visibility("default")))                                              \
    const tack_emu_kernel_info tack_emu_info_##name = {tack_emu_sig_##name::count,                 \
                                                       tack_emu_sig_##name::sizes,                 \
                                                       tack_emu_sig_##name::pointer, has_barrier}; \
    extern "C" __attribute__((visibility("default"))) void tack_emu_block_##name(                  \
        void** p, unsigned bx, unsigned bdim, unsigned gdim) {                                     \
        tack_emu_set_block(bx, bdim, gdim);                                                        \
        for (unsigned t = 0; t < bdim; ++t) {                                                      \
            threadIdx = {t, 0, 0};                                                                 \
            tack_emu_sig_##name::call(name, p);                                                    \
        }                                                                                          \
    }                                                                                              \
    extern "C" __attribute__((visibility("default"))) void tack_emu_thread_##name(                 \
        void** p, unsigned bx, unsigned tx, unsigned bdim, unsigned gdim) {                        \
        tack_emu_set_block(bx, bdim, gdim);                                                        \
        threadIdx = {tx, 0, 0};                                                                    \
        tack_emu_sig_##name::call(name, p);                                                        \
    }
