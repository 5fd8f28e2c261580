// End-to-end kernels through the public C++ API on the CPU, each checked against a hand-written
// C++ loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "tack/tack.hpp"

namespace {

tack::Kernel kernel(const std::string& src, const char* name) {
    return tack::Module::from_source("import tack\n\n" + src, "k.py").kernel(name);
}

TEST(E2E, Saxpy) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def saxpy(x, y, a, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]
)",
                            "saxpy");
    const int n = 1000;
    std::vector<float> xv(n), yv(n);
    for (int i = 0; i < n; ++i) {
        xv[i] = 0.5f * i;
        yv[i] = 1.0f - i;
    }
    tack::Array x = tack::Array::from_host(std::span<const float>(xv), {n});
    tack::Array y = tack::Array::from_host(yv, {n});
    k(x, y, 2.0f, std::int64_t(n));
    std::vector<float> out = y.to_host<float>();
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(out[i], 2.0f * xv[i] + yv[i]) << i;
    tack::sync();
}

// Integer semantics (CONTRACT B9, B11; DECISIONS for division by zero) for one dtype.
template <class T>
void check_integer_ops(tack::DType dt) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def ops(a, b, add, sub, mul, fdiv, mod):
    for i in range(a.shape[0]):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        fdiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
)",
                            "ops");
    std::vector<T> av, bv;
    const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    const std::vector<T> samples = {T(0), T(1), T(7), T(hi), T(lo), T(hi - 3), T(T(-7)), T(T(-1))};
    for (T a : samples) {
        for (T b : samples) {
            av.push_back(a);
            bv.push_back(b);
        }
    }
    const size_t n = av.size();
    auto A = tack::Array::from_host(av, {n}), B = tack::Array::from_host(bv, {n});
    tack::Array add = tack::zeros(dt, {n}), sub = tack::zeros(dt, {n}), mul = tack::zeros(dt, {n}),
                fdiv = tack::zeros(dt, {n}), mod = tack::zeros(dt, {n});
    k(A, B, add, sub, mul, fdiv, mod);
    auto r_add = add.to_host<T>(), r_sub = sub.to_host<T>(), r_mul = mul.to_host<T>(),
         r_div = fdiv.to_host<T>(), r_mod = mod.to_host<T>();
    using U = std::make_unsigned_t<T>;
    for (size_t i = 0; i < n; ++i) {
        T a = av[i], b = bv[i];
        ASSERT_EQ(r_add[i], T(U(a) + U(b))) << tack::name(dt) << " " << +a << " + " << +b;
        ASSERT_EQ(r_sub[i], T(U(a) - U(b))) << tack::name(dt);
        ASSERT_EQ(r_mul[i], T(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)))
            << tack::name(dt) << " " << +a << " * " << +b;
        T q = 0, m = 0;
        if (b != 0) {
            if (std::is_signed_v<T> && a == lo && b == T(-1)) {
                q = lo;
                m = 0;
            } else {
                q = T(a / b);
                m = T(a % b);
                if (m != 0 && ((m < 0) != (b < 0))) {
                    q = T(q - 1);
                    m = T(m + b);
                }
            }
        }
        ASSERT_EQ(r_div[i], q) << tack::name(dt) << " " << +a << " // " << +b;
        ASSERT_EQ(r_mod[i], m) << tack::name(dt) << " " << +a << " % " << +b;
    }
}

TEST(E2E, IntegerArithmeticAllDtypes) {
    check_integer_ops<int8_t>(tack::i8);
    check_integer_ops<uint8_t>(tack::u8);
    check_integer_ops<int16_t>(tack::i16);
    check_integer_ops<uint16_t>(tack::u16);
    check_integer_ops<int32_t>(tack::i32);
    check_integer_ops<uint32_t>(tack::u32);
    check_integer_ops<int64_t>(tack::i64);
    check_integer_ops<uint64_t>(tack::u64);
}

template <class T>
void check_float_ops(tack::DType dt) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def ops(a, b, add, sub, mul, fdiv, mod):
    for i in range(a.shape[0]):
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        fdiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
)",
                            "ops");
    // Operands whose floor quotient and remainder are exact in binary floating point.
    std::vector<T> av = {7.0, -7.0, 7.5, -7.5, 0.25, 1e6, -3.0};
    std::vector<T> bv = {2.0, 2.0, -2.0, 2.0, 0.5, 3.0, 4.0};
    std::vector<T> want_div = {3.0, -4.0, -4.0, -4.0, 0.0, 333333.0, -1.0};
    std::vector<T> want_mod = {1.0, 1.0, -0.5, 0.5, 0.25, 1.0, 1.0};
    const size_t n = av.size();
    auto A = tack::Array::from_host(av, {n}), B = tack::Array::from_host(bv, {n});
    tack::Array add = tack::zeros(dt, {n}), sub = tack::zeros(dt, {n}), mul = tack::zeros(dt, {n}),
                fdiv = tack::zeros(dt, {n}), mod = tack::zeros(dt, {n});
    k(A, B, add, sub, mul, fdiv, mod);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(add.to_host<T>()[i], T(av[i] + bv[i]));
        EXPECT_EQ(sub.to_host<T>()[i], T(av[i] - bv[i]));
        EXPECT_EQ(mul.to_host<T>()[i], T(av[i] * bv[i]));
        EXPECT_EQ(fdiv.to_host<T>()[i], want_div[i]) << av[i] << " // " << bv[i];
        EXPECT_EQ(mod.to_host<T>()[i], want_mod[i]) << av[i] << " % " << bv[i];
    }
}

TEST(E2E, FloatArithmetic) {
    check_float_ops<float>(tack::f32);
    check_float_ops<double>(tack::f64);
}

TEST(E2E, Casts) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def casts(x, a, b, c, d):
    for i in range(x.shape[0]):
        a[i] = tack.i8(x[i])
        b[i] = tack.u16(x[i])
        c[i] = tack.i32(x[i])
        d[i] = tack.f32(tack.i64(x[i]))
)",
                            "casts");
    std::vector<double> xv = {2.7, -2.7, 300.0, -1.0, 1e12, std::nan("")};
    const size_t n = xv.size();
    auto x = tack::Array::from_host(xv, {n});
    auto a = tack::zeros(tack::i8, {n}), b = tack::zeros(tack::u16, {n}),
         c = tack::zeros(tack::i32, {n}), d = tack::zeros(tack::f32, {n});
    k(x, a, b, c, d);
    EXPECT_EQ(a.to_host<int8_t>(), (std::vector<int8_t>{2, -2, 127, -1, 127, 0}));
    EXPECT_EQ(b.to_host<uint16_t>(), (std::vector<uint16_t>{2, 0, 300, 0, 65535, 0}));
    EXPECT_EQ(c.to_host<int32_t>(), (std::vector<int32_t>{2, -2, 300, -1, INT32_MAX, 0}));
    EXPECT_EQ(d.to_host<float>(), (std::vector<float>{2.0f, -2.0f, 300.0f, -1.0f, 1e12f, 0.0f}));
}

TEST(E2E, NdrangeWithStartEndPairs) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def grid(out):
    for i, j in tack.ndrange((1, out.shape[0] - 1), (2, out.shape[1])):
        out[i, j] = i * 100 + j
)",
                            "grid");
    const int rows = 6, cols = 5;
    tack::Array out = tack::full(tack::i32, {rows, cols}, -1);
    k(out);
    auto got = out.to_host<int32_t>();
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            int want = (i >= 1 && i < rows - 1 && j >= 2) ? i * 100 + j : -1;
            ASSERT_EQ(got[size_t(i * cols + j)], want) << i << "," << j;
        }
    }
}

TEST(E2E, DeviceFunctions) {
    tack::Kernel k = kernel(R"(
@tack.func
def norm2(a, b):
    return a * a + b * b

@tack.kernel
def lengths(x, y, out):
    for i in range(x.shape[0]):
        out[i] = tack.sqrt(norm2(x[i], y[i]))
)",
                            "lengths");
    std::vector<float> xv = {3, 5, 8, 0}, yv = {4, 12, 15, 0};
    auto out = tack::zeros(tack::f32, {4});
    k(tack::Array::from_host(xv, {4}), tack::Array::from_host(yv, {4}), out);
    EXPECT_EQ(out.to_host<float>(), (std::vector<float>{5, 13, 17, 0}));
}

TEST(E2E, AtomicsHistogram) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def hist(x, counts):
    for i in range(x.shape[0]):
        tack.atomic_add(counts, x[i] % 5, 1)
)",
                            "hist");
    const int n = 100000;
    std::vector<int32_t> xv(n);
    std::vector<int32_t> want(5, 0);
    for (int i = 0; i < n; ++i) {
        xv[size_t(i)] = (i * 7919) % 1013;
        want[size_t(xv[size_t(i)] % 5)]++;
    }
    auto counts = tack::zeros(tack::i32, {5});
    k(tack::Array::from_host(xv, {n}), counts);
    EXPECT_EQ(counts.to_host<int32_t>(), want);
}

TEST(E2E, LocalArrays) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def prefix(x, out):
    for i in range(x.shape[0]):
        tmp = tack.local_array(tack.f32, 4)
        for j in range(4):
            tmp[j] = x[i] * (j + 1)
        s = 0.0
        for j in range(4):
            s += tmp[j]
        out[i] = s
)",
                            "prefix");
    std::vector<float> xv = {1, 2, -0.5f};
    auto out = tack::zeros(tack::f32, {3});
    k(tack::Array::from_host(xv, {3}), out);
    EXPECT_EQ(out.to_host<float>(), (std::vector<float>{10, 20, -5}));
}

TEST(E2E, AliasingKeepsProgramOrder) {
    // CONTRACT E13 / LC2: write 1 through a, 2 through an aliased b, read a -> 2.
    tack::Kernel k = kernel(R"(
@tack.kernel
def alias(a, b, out):
    for i in range(out.shape[0]):
        a[i] = 1.0
        b[i] = 2.0
        out[i] = a[i]
)",
                            "alias");
    auto a = tack::zeros(tack::f32, {64});
    auto out = tack::zeros(tack::f32, {64});
    k(a, a, out);
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(64, 2.0f));
    auto b = tack::zeros(tack::f32, {64});
    k(a, b, out);  // disjoint call: the noalias variant
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(64, 1.0f));
    k(a, a.reshape({64}), out);  // a view over the same bytes is an alias too
    EXPECT_EQ(out.to_host<float>(), std::vector<float>(64, 2.0f));
    EXPECT_EQ(k.num_variants(), 2u);
}

TEST(E2E, ScalarValuesAndLaunchLengthNeverRecompile) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def scale(x, out, s):
    for i in range(x.shape[0]):
        out[i] = x[i] * s
)",
                            "scale");
    for (int n : {8, 16, 32}) {
        auto x = tack::arange(n, tack::f32), out = tack::zeros(tack::f32, {n});
        k(x, out, 2.0f);
        k(x, out, 3.5f);
        EXPECT_EQ(out.get<float>({n - 1}), 3.5f * float(n - 1));
    }
    EXPECT_EQ(k.num_variants(), 1u);
    auto x = tack::arange(8, tack::f32), out = tack::zeros(tack::f32, {8});
    k(x, out, 3);  // i32 scalar: a new signature (CONTRACT D5)
    EXPECT_EQ(k.num_variants(), 2u);
    k(x, out, std::int64_t(1) << 40);
    EXPECT_EQ(k.num_variants(), 3u);
    k(x, x, 2.0f);  // written array overlaps another: the may-alias variant
    EXPECT_EQ(k.num_variants(), 4u);
    EXPECT_EQ(x.get<float>({7}), 14.0f);
}

TEST(E2E, ZeroAndOneElementLaunches) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def inc(x, n):
    for i in range(n):
        x[i] = x[i] + 1
)",
                            "inc");
    auto x = tack::zeros(tack::i32, {4});
    k(x, 0);
    k(x, -5);
    EXPECT_EQ(x.to_host<int32_t>(), (std::vector<int32_t>{0, 0, 0, 0}));
    k(x, 1);
    EXPECT_EQ(x.to_host<int32_t>(), (std::vector<int32_t>{1, 0, 0, 0}));
    auto empty = tack::zeros(tack::i32, {0});
    k(empty, 0);
}

TEST(E2E, ArgumentErrorsHaveTheContractMessages) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def copy(src, out):
    for i in range(src.shape[0]):
        out[i] = src[i]
)",
                            "copy");
    auto a = tack::zeros(tack::f32, {4});
    try {
        k(a);
        FAIL();
    } catch (const tack::TypeError& e) {
        EXPECT_STREQ(e.what(), "Kernel 'copy' expects 2 arguments, got 1");
    }
    std::vector<float> ext(4, 1.0f);
    auto ro = tack::Array::from_ptr(ext.data(), tack::f32, {4});
    k(ro, a);  // reading a read-only array is fine
    try {
        k(a, ro);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("Kernel 'copy': parameter 'out' may be written, but "
                                              "its field is read-only.",
                                              0),
                  0u)
            << e.what();
    }
}

TEST(E2E, AtomicAlignmentCheckedBeforeAnyStore) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def bump(flags, counts):
    for i in range(flags.shape[0]):
        flags[i] = 7
        tack.atomic_add(counts, 0, 1)
)",
                            "bump");
    alignas(8) unsigned char raw[64] = {};
    auto counts = tack::Array::from_ptr(raw + 1, tack::i32, {4}, /*writable=*/true);
    auto flags = tack::zeros(tack::i32, {3});
    try {
        k(flags, counts);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'bump': atomic target parameter counts requires 4-byte "
                     "alignment");
    }
    EXPECT_EQ(flags.to_host<int32_t>(), (std::vector<int32_t>{0, 0, 0}));
    // Ordinary loads and stores accept unaligned memory (CONTRACT E14).
    tack::Kernel c = kernel(R"(
@tack.kernel
def fill(x):
    for i in range(x.shape[0]):
        x[i] = i * 3
)",
                            "fill");
    c(counts);
    int32_t second;
    std::memcpy(&second, raw + 1 + 4, 4);
    EXPECT_EQ(second, 3);
}

TEST(E2E, WorkgroupConstructsRejectedOnCpu) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def group_sums(x, out):
    for i in range(x.shape[0]):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s
)",
                            "group_sums");
    auto x = tack::zeros(tack::f32, {256}), out = tack::zeros(tack::f32, {1});
    try {
        k(x, out);
        FAIL();
    } catch (const tack::NotImplementedError& e) {
        std::string m = e.what();
        EXPECT_EQ(m.rfind("Kernel 'group_sums': CPU backend does not support workgroup execution "
                          "required by block_sum, thread_id (block_sum at line 7)",
                          0),
                  0u)
            << m;
    }
}

TEST(E2E, CompileErrorsCarryPositions) {
    try {
        tack::Module::from_source("import tack\n@tack.kernel\ndef k(x:\n    pass\n", "bad.py");
        FAIL();
    } catch (const tack::CompileError& e) {
        EXPECT_EQ(e.kind(), tack::ErrorKind::SyntaxError);
        EXPECT_EQ(e.file(), "bad.py");
        EXPECT_GE(e.line(), 3);
    }
    tack::Kernel k = kernel(R"(
@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = undefined_name
)",
                            "k");
    auto x = tack::zeros(tack::f32, {2});
    try {
        k(x);
        FAIL();
    } catch (const tack::CompileError& e) {
        EXPECT_EQ(e.kind(), tack::ErrorKind::NameError);
        EXPECT_EQ(e.file(), "k.py");
        EXPECT_EQ(e.line(), 7);  // counted from the import line
        EXPECT_GT(e.column(), 0);
    }
    EXPECT_THROW(tack::Module::from_source("import tack\n", "m.py").kernel("nope"),
                 tack::NameError);
}

TEST(E2E, ConcurrentDispatchOfOneKernel) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def affine(x, out, a, b):
    for i in range(x.shape[0]):
        out[i] = x[i] * a + b
)",
                            "affine");
    constexpr int kThreads = 4, kCalls = 10000, kN = 16;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            auto x = tack::arange(kN, tack::i64);
            auto out = tack::zeros(tack::i64, {kN});
            for (int c = 0; c < kCalls; ++c) {
                std::int64_t a = t * 100000 + c, b = -c;
                k(x, out, a, b);
                auto got = out.to_host<std::int64_t>();
                for (int i = 0; i < kN; ++i) {
                    if (got[size_t(i)] != i * a + b) ++failures[size_t(t)];
                }
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
    EXPECT_EQ(k.num_variants(), 1u);
}

TEST(E2E, LargeLaunchesOnTwoThreadsRunEveryIndexOnce) {
    tack::Device two = tack::device("cpu", {{"num_threads", 2}});
    tack::Kernel k = kernel(R"(
@tack.kernel
def bump(x, hits):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1
        tack.atomic_add(hits, 0, 1)
)",
                            "bump");
    const int n = 1 << 20;
    auto x = tack::zeros(tack::i32, {n}, two);
    auto hits = tack::zeros(tack::i64, {1}, two);
    const int calls = 40;  // enough for the cost model to measure and fan out
    for (int c = 0; c < calls; ++c)
        k(x, hits);
    EXPECT_EQ(x.min(), calls);
    EXPECT_EQ(x.max(), calls);
    EXPECT_EQ(hits.get<std::int64_t>({0}), std::int64_t(calls) * n);
    tack::device("cpu");
}

TEST(E2E, KernelReturnValue) {
    // DECISIONS G7: `return expr` after the parallel loop; the call returns it.
    tack::Kernel k = kernel(R"(
@tack.kernel
def total(x, acc) -> tack.f32:
    for i in range(x.shape[0]):
        tack.atomic_add(acc, 0, x[i])
    return acc[0] * 2.0
)",
                            "total");
    std::vector<float> xv = {1.5f, 2.5f, 4.0f};
    auto acc = tack::zeros(tack::f32, {1});
    std::optional<tack::Scalar> r = k(tack::Array::from_host(xv, {3}), acc);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->dtype, tack::f32);
    EXPECT_EQ(r->as<float>(), 16.0f);
    // An empty launch still evaluates the result.
    auto none = tack::zeros(tack::f32, {0});
    EXPECT_EQ(k(none, acc)->as<float>(), 16.0f);
    tack::Kernel plain = kernel(R"(
@tack.kernel
def zero(x):
    for i in range(x.shape[0]):
        x[i] = 0.0
)",
                                "zero");
    EXPECT_FALSE(plain(acc).has_value());
}

}  // namespace
