#pragma once
// The differential harness: one kernel, the same inputs, run on `cpu` and on `opencl`; every
// array argument is compared against a hand-written C++ reference loop and the two backends
// against each other. Integers must be bit-identical; floats equal up to a per-case ulp bound,
// with NaN (as a class) and, where asked, the sign of zero matching exactly.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tack/tack.hpp"

namespace tack::difftest {

/// Calls f(T{}) with the C++ type of `t`.
template <class F>
decltype(auto) with_type(DType t, F&& f) {
    switch (t) {
        case DType::i8:
            return f(std::int8_t{});
        case DType::u8:
            return f(std::uint8_t{});
        case DType::i16:
            return f(std::int16_t{});
        case DType::u16:
            return f(std::uint16_t{});
        case DType::i32:
            return f(std::int32_t{});
        case DType::u32:
            return f(std::uint32_t{});
        case DType::i64:
            return f(std::int64_t{});
        case DType::u64:
            return f(std::uint64_t{});
        case DType::f32:
            return f(float{});
        case DType::f64:
            return f(double{});
    }
    return f(std::int32_t{});
}

inline constexpr DType kAllDTypes[] = {DType::i8,  DType::u8,  DType::i16, DType::u16, DType::i32,
                                       DType::u32, DType::i64, DType::u64, DType::f32, DType::f64};
inline constexpr DType kIntDTypes[] = {DType::i8,  DType::u8,  DType::i16, DType::u16,
                                       DType::i32, DType::u32, DType::i64, DType::u64};

/// An array's contents on the host.
struct HostArray {
    DType dtype = DType::i32;
    std::vector<std::int64_t> shape;
    std::vector<std::uint8_t> bytes;

    std::size_t size() const { return bytes.size() / size_bytes(dtype); }
    template <class T>
    T* data() {
        return reinterpret_cast<T*>(bytes.data());
    }
    template <class T>
    const T* data() const {
        return reinterpret_cast<const T*>(bytes.data());
    }
    template <class T>
    T& at(std::size_t i) {
        return data<T>()[i];
    }

    template <class T>
    static HostArray of(const std::vector<T>& v, std::vector<std::int64_t> shape = {}) {
        HostArray a{dtype_of<T>(), std::move(shape), {}};
        if (a.shape.empty()) a.shape = {static_cast<std::int64_t>(v.size())};
        a.bytes.resize(v.size() * sizeof(T));
        if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
        return a;
    }
    static HostArray zeros(DType t, std::vector<std::int64_t> shape) {
        std::size_t n = 1;
        for (auto e : shape)
            n *= static_cast<std::size_t>(e);
        return HostArray{t, std::move(shape), std::vector<std::uint8_t>(n * size_bytes(t))};
    }
};

using HostArg = std::variant<HostArray, Scalar>;

/// Whether an OpenCL device is usable here (tests skip otherwise).
bool opencl_available(std::string* why = nullptr);

/// Runs `kernel` on the named device with fresh device copies of the array arguments; returns
/// every argument afterwards (arrays read back, scalars unchanged).
std::vector<HostArg> run_on(const std::string& device, const Kernel& kernel,
                            const std::vector<HostArg>& args);

struct Tolerance {
    int ulp = 0;            // floats: allowed distance in units in the last place
    bool zero_sign = true;  // floats: +0 and -0 must match
    bool nan_class = true;  // floats: NaN where and only where expected
};

/// Compares `got` with `want` element by element; returns "" or the first few mismatches.
std::string compare(const HostArray& got, const HostArray& want, const Tolerance& tol);

using Reference = std::function<void(std::vector<HostArg>&)>;

/// The differential check: runs on cpu and opencl, compares both to `reference` applied to a
/// copy of the inputs, and to each other. `label` names the case in failures.
/// `overrides` sets another tolerance for some argument indices.
void check_kernel(const std::string& label, const Kernel& kernel, const std::vector<HostArg>& args,
                  const Reference& reference, const Tolerance& tol = {},
                  const std::map<std::size_t, Tolerance>& overrides = {});

Kernel kernel(const std::string& source, const char* name);

/// Deterministic pseudo-random values (a fixed-seed generator per call site).
class Random {
  public:
    explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
    std::uint64_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }
    double uniform(double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
    }

  private:
    std::uint64_t state_;
};

/// Edge values of T (0, 1, -1, MIN, MAX, ...; floats add ±0, ±inf, NaN, large and small
/// normal values) followed by `randoms` pseudo-random values.
template <class T>
std::vector<T> sample_values(std::uint64_t seed, int randoms) {
    using L = std::numeric_limits<T>;
    std::vector<T> v;
    Random rng(seed);
    if constexpr (std::is_floating_point_v<T>) {
        v = {T(0),           T(-0.0),     T(1),     T(-1),     T(0.5),        T(-2.5),
             L::max(),       L::lowest(), L::min(), -L::min(), L::infinity(), -L::infinity(),
             L::quiet_NaN(), T(3),        T(7.25),  T(-1e6)};
        for (int i = 0; i < randoms; ++i)
            v.push_back(static_cast<T>(rng.uniform(-1000, 1000)));
    } else {
        v = {T(0), T(1),     T(T(-1)), L::min(), L::max(), T(L::max() - 1), T(L::min() + 1),
             T(7), T(T(-7)), T(3)};
        for (int i = 0; i < randoms; ++i)
            v.push_back(static_cast<T>(rng.next()));
    }
    return v;
}

}  // namespace tack::difftest
