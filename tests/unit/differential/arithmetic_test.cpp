// Differential arithmetic: + - * // % ** on all ten dtypes, casts between every pair, shifts and
// bitwise operators, comparisons; cpu and opencl against reference loops and each other.
#include "harness.hpp"

namespace tack::difftest {
namespace {

class Differential : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        if (!opencl_available(&why)) GTEST_SKIP() << why;
    }
};

template <class T>
using Unsigned = std::make_unsigned_t<T>;

// CONTRACT B11 and DECISIONS: floor division, divisor's sign, x // 0 == x % 0 == 0,
// MIN // -1 == MIN, MIN % -1 == 0.
template <class T>
void int_divmod(T a, T b, T& q, T& m) {
    q = m = 0;
    if (b == 0) return;
    if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1)) {
        q = a;
        return;
    }
    q = T(a / b);
    m = T(a % b);
    if (m != 0 && ((m < 0) != (b < 0))) {
        q = T(q - 1);
        m = T(m + b);
    }
}

// CONTRACT B16: exact power modulo 2^N.
template <class T>
T int_pow(T a, T e) {
    std::uint64_t r = 1;
    for (std::uint64_t k = 0; k < static_cast<std::uint64_t>(e); ++k)
        r = static_cast<std::uint64_t>(static_cast<Unsigned<T>>(r * static_cast<std::uint64_t>(a)));
    return static_cast<T>(r);
}

// CONTRACT B18: CPython's float_divmod, in T.
template <class T>
void float_divmod(T a, T b, T& q, T& m) {
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= T(1);
        }
    } else {
        mod = std::copysign(T(0), b);
    }
    T floordiv;
    if (div) {
        floordiv = std::floor(div);
        if (div - floordiv > T(0.5)) floordiv += T(1);
    } else {
        floordiv = std::copysign(T(0), a / b);
    }
    q = floordiv;
    m = mod;
}

const char* kArithmetic = R"(
@tack.kernel
def arith(a, b, add, sub, mul, fdiv, mod):
    for i in range(a.shape[0]):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        fdiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
)";

template <class T>
void arithmetic_case(DType dt) {
    std::vector<T> s = sample_values<T>(static_cast<std::uint64_t>(dt) + 11, 10);
    std::vector<T> av, bv;
    for (T a : s) {
        for (T b : s) {
            // A float divisor of zero has no portable // or % (CONTRACT B18 [CC]).
            if (std::is_floating_point_v<T> && b == T(0)) continue;
            av.push_back(a);
            bv.push_back(b);
        }
    }
    const auto n = static_cast<std::int64_t>(av.size());
    std::vector<HostArg> args = {HostArray::of(av), HostArray::of(bv)};
    for (int k = 0; k < 5; ++k)
        args.push_back(HostArray::zeros(dt, {n}));
    Reference ref = [](std::vector<HostArg>& x) {
        auto& A = std::get<HostArray>(x[0]);
        auto& B = std::get<HostArray>(x[1]);
        for (std::size_t i = 0; i < A.size(); ++i) {
            T a = A.at<T>(i), b = B.at<T>(i), q, m;
            if constexpr (std::is_floating_point_v<T>) {
                std::get<HostArray>(x[2]).at<T>(i) = a + b;
                std::get<HostArray>(x[3]).at<T>(i) = a - b;
                std::get<HostArray>(x[4]).at<T>(i) = a * b;
                float_divmod(a, b, q, m);
            } else {
                using U = Unsigned<T>;
                std::get<HostArray>(x[2]).at<T>(i) = T(U(U(a) + U(b)));
                std::get<HostArray>(x[3]).at<T>(i) = T(U(U(a) - U(b)));
                std::get<HostArray>(x[4]).at<T>(i) =
                    T(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
                int_divmod(a, b, q, m);
            }
            std::get<HostArray>(x[5]).at<T>(i) = q;
            std::get<HostArray>(x[6]).at<T>(i) = m;
        }
    };
    // + - * are exact IEEE operations; // and % within CONTRACT B18's 4 ulp, classes exact.
    Tolerance tol{.ulp = std::is_floating_point_v<T> ? 4 : 0};
    check_kernel(std::string("arithmetic ") + name(dt), kernel(kArithmetic, "arith"), args, ref,
                 tol);
}

TEST_F(Differential, ArithmeticAllDtypes) {
    for (DType dt : kAllDTypes)
        with_type(dt, [&](auto tag) {
            arithmetic_case<decltype(tag)>(dt);
            return 0;
        });
}

const char* kPower = R"(
@tack.kernel
def power(a, e, out):
    for i in range(a.shape[0]):
        out[i] = a[i] ** e[i]
)";

template <class T>
void power_case(DType dt) {
    std::vector<T> s = sample_values<T>(static_cast<std::uint64_t>(dt) + 21, 6);
    std::vector<T> av, ev;
    const T exps[] = {T(0), T(1), T(2), T(3), T(5), T(7), T(8), T(31), T(63), T(64), T(100)};
    for (T a : s) {
        for (T e : exps) {
            av.push_back(a);
            ev.push_back(e);
        }
    }
    const auto n = static_cast<std::int64_t>(av.size());
    std::vector<HostArg> args = {HostArray::of(av), HostArray::of(ev), HostArray::zeros(dt, {n})};
    Reference ref = [](std::vector<HostArg>& x) {
        auto& A = std::get<HostArray>(x[0]);
        auto& E = std::get<HostArray>(x[1]);
        for (std::size_t i = 0; i < A.size(); ++i)
            std::get<HostArray>(x[2]).at<T>(i) = int_pow(A.at<T>(i), E.at<T>(i));
    };
    check_kernel(std::string("power ") + name(dt), kernel(kPower, "power"), args, ref);
}

TEST_F(Differential, IntegerPowerAllIntDtypes) {
    for (DType dt : kIntDTypes)
        with_type(dt, [&](auto tag) {
            if constexpr (std::is_integral_v<decltype(tag)>) power_case<decltype(tag)>(dt);
            return 0;
        });
}

// Cast semantics (ir.hpp): int->int modulo 2^N widening by the source's signedness; float->int
// truncates and saturates, NaN -> 0; everything else rounds to nearest.
template <class To, class From>
To cast_value(From x) {
    if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
        if (std::isnan(x)) return To(0);
        long double t = std::trunc(static_cast<long double>(x));
        if (t <= static_cast<long double>(std::numeric_limits<To>::min()))
            return std::numeric_limits<To>::min();
        if (t >= static_cast<long double>(std::numeric_limits<To>::max()))
            return std::numeric_limits<To>::max();
        return static_cast<To>(t);
    } else {
        return static_cast<To>(x);
    }
}

std::string casts_source(DType) {
    std::string s = "\n@tack.kernel\ndef casts(x";
    for (DType to : kAllDTypes)
        s += std::string(", o_") + name(to);
    s += "):\n    for i in range(x.shape[0]):\n";
    for (DType to : kAllDTypes)
        s += std::string("        o_") + name(to) + "[i] = tack." + name(to) + "(x[i])\n";
    return s;
}

template <class From>
void casts_case(DType from) {
    std::vector<From> xv = sample_values<From>(static_cast<std::uint64_t>(from) + 31, 20);
    if constexpr (std::is_floating_point_v<From>) {
        // Values near each integer type's limits, on both sides.
        for (double v :
             {127.9, 128.0, -128.5, -129.0, 255.5, 256.0, 32767.5, 65535.9, 65536.0, 2147483647.0,
              2147483648.0, -2147483649.0, 4294967296.0, 9.2e18, 1.9e19, -9.3e18, -0.9, 0.9999})
            xv.push_back(static_cast<From>(v));
    }
    const auto n = static_cast<std::int64_t>(xv.size());
    std::vector<HostArg> args = {HostArray::of(xv)};
    for (DType to : kAllDTypes)
        args.push_back(HostArray::zeros(to, {n}));
    Reference ref = [](std::vector<HostArg>& x) {
        const auto& X = std::get<HostArray>(x[0]);
        for (std::size_t k = 0; k < std::size(kAllDTypes); ++k) {
            auto& out = std::get<HostArray>(x[k + 1]);
            with_type(kAllDTypes[k], [&](auto tag) {
                using To = decltype(tag);
                for (std::size_t i = 0; i < X.size(); ++i)
                    out.at<To>(i) = cast_value<To>(X.data<From>()[i]);
                return 0;
            });
        }
    };
    check_kernel(std::string("casts from ") + name(from), kernel(casts_source(from), "casts"), args,
                 ref);
}

TEST_F(Differential, CastsBetweenAllPairs) {
    for (DType dt : kAllDTypes)
        with_type(dt, [&](auto tag) {
            casts_case<decltype(tag)>(dt);
            return 0;
        });
}

const char* kBits = R"(
@tack.kernel
def bits(a, b, s, shl, shr, band, bor, bxor, bnot):
    for i in range(a.shape[0]):
        shl[i] = a[i] << s[i]
        shr[i] = a[i] >> s[i]
        band[i] = a[i] & b[i]
        bor[i] = a[i] | b[i]
        bxor[i] = a[i] ^ b[i]
        bnot[i] = ~a[i]
)";

template <class T>
void bits_case(DType dt) {
    constexpr int kWidth = 8 * sizeof(T);
    std::vector<T> s = sample_values<T>(static_cast<std::uint64_t>(dt) + 41, 12);
    std::vector<T> av, bv, sv;
    for (std::size_t i = 0; i < s.size(); ++i) {
        // Counts in [0, 2N): the count is taken modulo the width (DECISIONS).
        for (int c = 0; c < 2 * kWidth; c += (c < kWidth ? 1 : 5)) {
            av.push_back(s[i]);
            bv.push_back(s[(i * 7 + static_cast<std::size_t>(c)) % s.size()]);
            sv.push_back(static_cast<T>(c));
        }
    }
    const auto n = static_cast<std::int64_t>(av.size());
    std::vector<HostArg> args = {HostArray::of(av), HostArray::of(bv), HostArray::of(sv)};
    for (int k = 0; k < 6; ++k)
        args.push_back(HostArray::zeros(dt, {n}));
    Reference ref = [](std::vector<HostArg>& x) {
        using U = Unsigned<T>;
        auto& A = std::get<HostArray>(x[0]);
        auto& B = std::get<HostArray>(x[1]);
        auto& S = std::get<HostArray>(x[2]);
        for (std::size_t i = 0; i < A.size(); ++i) {
            T a = A.at<T>(i), b = B.at<T>(i);
            int c = static_cast<int>(static_cast<U>(S.at<T>(i)) % kWidth);
            std::get<HostArray>(x[3]).at<T>(i) =
                T(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) << c));
            std::get<HostArray>(x[4]).at<T>(i) = T(a >> c);  // arithmetic for signed (C++20)
            std::get<HostArray>(x[5]).at<T>(i) = T(a & b);
            std::get<HostArray>(x[6]).at<T>(i) = T(a | b);
            std::get<HostArray>(x[7]).at<T>(i) = T(a ^ b);
            std::get<HostArray>(x[8]).at<T>(i) = T(~a);
        }
    };
    check_kernel(std::string("shifts and bitwise ") + name(dt), kernel(kBits, "bits"), args, ref);
}

TEST_F(Differential, ShiftsAndBitwiseAllIntDtypes) {
    for (DType dt : kIntDTypes)
        with_type(dt, [&](auto tag) {
            if constexpr (std::is_integral_v<decltype(tag)>) bits_case<decltype(tag)>(dt);
            return 0;
        });
}

const char* kCompare = R"(
@tack.kernel
def cmp(a, b, eq, ne, lt, le, gt, ge):
    for i in range(a.shape[0]):
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        lt[i] = a[i] < b[i]
        le[i] = a[i] <= b[i]
        gt[i] = a[i] > b[i]
        ge[i] = a[i] >= b[i]
)";

template <class T>
void compare_case(DType dt) {
    std::vector<T> s = sample_values<T>(static_cast<std::uint64_t>(dt) + 51, 6);
    std::vector<T> av, bv;
    for (T a : s) {
        for (T b : s) {
            av.push_back(a);
            bv.push_back(b);
        }
    }
    const auto n = static_cast<std::int64_t>(av.size());
    std::vector<HostArg> args = {HostArray::of(av), HostArray::of(bv)};
    for (int k = 0; k < 6; ++k)
        args.push_back(HostArray::zeros(DType::i32, {n}));
    Reference ref = [](std::vector<HostArg>& x) {
        auto& A = std::get<HostArray>(x[0]);
        auto& B = std::get<HostArray>(x[1]);
        for (std::size_t i = 0; i < A.size(); ++i) {
            T a = A.at<T>(i), b = B.at<T>(i);
            // Ordered comparisons except !=, which is unordered (CONTRACT B21).
            const bool r[] = {a == b, a != b, a<b, a <= b, a> b, a >= b};
            for (int k = 0; k < 6; ++k)
                std::get<HostArray>(x[2 + static_cast<std::size_t>(k)]).at<std::int32_t>(i) = r[k];
        }
    };
    check_kernel(std::string("comparisons ") + name(dt), kernel(kCompare, "cmp"), args, ref);
}

TEST_F(Differential, ComparisonsAllDtypes) {
    for (DType dt : kAllDTypes)
        with_type(dt, [&](auto tag) {
            compare_case<decltype(tag)>(dt);
            return 0;
        });
}

}  // namespace
}  // namespace tack::difftest
