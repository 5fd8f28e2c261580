// Atomics: every dtype, add/min/max, the old value returned, and two threads calling the entry
// on disjoint chunks of one range while contending for the same elements.

#include <algorithm>
#include <numeric>
#include <thread>

#include "harness.hpp"

namespace tack::test {
namespace {

template <class T>
constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, int8_t>) return i8;
    if constexpr (std::is_same_v<T, uint8_t>) return u8;
    if constexpr (std::is_same_v<T, int16_t>) return i16;
    if constexpr (std::is_same_v<T, uint16_t>) return u16;
    if constexpr (std::is_same_v<T, int32_t>) return i32;
    if constexpr (std::is_same_v<T, uint32_t>) return u32;
    if constexpr (std::is_same_v<T, int64_t>) return i64;
    if constexpr (std::is_same_v<T, uint64_t>) return u64;
    if constexpr (std::is_same_v<T, float>) return f32;
    if constexpr (std::is_same_v<T, double>) return f64;
}

// acc[0] += v[i]; lo[0] = min(lo[0], v[i]); hi[i % 3] = max(..., v[i]); old[i] = old acc value
template <class T>
Compiled atomic_kernel() {
    constexpr DType t = dtype_of<T>();
    KernelBuilder kb(std::string("atomics_") + name(t));
    auto v = kb.array_param("v", t);
    auto acc = kb.array_param("acc", t);
    auto lo = kb.array_param("lo", t);
    auto hi = kb.array_param("hi", t);
    auto old = kb.array_param("old", t);
    auto prev = kb.local("prev", t);
    auto i = kb.dim(0, 0, 1);
    auto x = load(v, use(i));
    kb.k.body = {
        Atomic::make(AtomicOp::Add, acc, c64(0), x, prev),
        store(old, use(i), use(prev)),
        Atomic::make(AtomicOp::Min, lo, c64(0), x, nullptr),
        Atomic::make(AtomicOp::Max, hi, bin(BinaryOp::Mod, use(i), c64(3)), x, nullptr),
    };
    return compile(kb.k);
}

template <class T>
void check_atomics(int n, int threads) {
    auto c = atomic_kernel<T>();
    std::vector<T> v(n), acc(1, T(0)), lo(1, T(100)), hi(3, T(0)), old(n);
    for (int k = 0; k < n; ++k)
        v[k] = static_cast<T>(1 + (k * 7) % 13);  // 1..13, exact sums
    std::vector<uint64_t> slots = {slot(v.data()), slot(acc.data()), slot(lo.data()),
                                   slot(hi.data()), slot(old.data())};
    std::vector<std::thread> pool;
    for (int w = 0; w < threads; ++w) {
        int64_t begin = int64_t{n} * w / threads, end = int64_t{n} * (w + 1) / threads;
        pool.emplace_back([&, begin, end] { c.run(slots, begin, end); });
    }
    for (auto& th : pool)
        th.join();

    uint64_t total = 0;
    for (T x : v)
        total += static_cast<uint64_t>(x);
    EXPECT_EQ(acc[0], static_cast<T>(total)) << name(dtype_of<T>());  // wraps for narrow ints
    EXPECT_EQ(lo[0], T(1));
    for (int r = 0; r < 3; ++r) {
        T want = 0;
        for (int k = r; k < n; k += 3)
            want = std::max(want, v[k]);
        EXPECT_EQ(hi[r], want);
    }
    // The old values are the prefix sums of some order of the additions: sorted, each step
    // adds one v; so old values are distinct and old + v covers the final total once.
    if constexpr (sizeof(T) >= 4) {
        std::vector<std::pair<double, double>> steps;
        for (int k = 0; k < n; ++k)
            steps.push_back({double(old[k]), double(old[k] + v[k])});
        std::sort(steps.begin(), steps.end());
        EXPECT_EQ(steps.front().first, 0.0);
        for (int k = 1; k < n; ++k)
            ASSERT_EQ(steps[k].first, steps[k - 1].second);
        EXPECT_EQ(steps.back().second, double(total));
    }
}

TEST(LlvmAtomics, AllTypesSingleThread) {
    check_atomics<int8_t>(50, 1);
    check_atomics<uint8_t>(50, 1);
    check_atomics<int16_t>(300, 1);
    check_atomics<uint16_t>(300, 1);
    check_atomics<int32_t>(300, 1);
    check_atomics<uint32_t>(300, 1);
    check_atomics<int64_t>(300, 1);
    check_atomics<uint64_t>(300, 1);
    check_atomics<float>(300, 1);
    check_atomics<double>(300, 1);
}

TEST(LlvmAtomics, TwoThreadsContend) {
    constexpr int n = 200000;
    check_atomics<int32_t>(n, 2);
    check_atomics<uint64_t>(n, 2);
    check_atomics<float>(n / 10, 2);  // sums stay below 2^24: exact in any order
    check_atomics<double>(n, 2);
}

TEST(LlvmAtomics, NarrowAddWraps) {
    auto c = atomic_kernel<int8_t>();
    std::vector<int8_t> v(3, 100), acc(1, 0), lo(1, 127), hi(3, -128), old(3);
    c.run({slot(v.data()), slot(acc.data()), slot(lo.data()), slot(hi.data()), slot(old.data())}, 0,
          3);
    EXPECT_EQ(acc[0], static_cast<int8_t>(300 - 256));
    EXPECT_EQ(lo[0], 100);
}

TEST(LlvmAtomics, FloatMinMaxSigned) {
    auto c = atomic_kernel<double>();
    std::vector<double> v = {-2.5, 3.0, -7.25, 0.5}, acc(1, 0), lo(1, 0), hi(3, -100), old(4);
    c.run({slot(v.data()), slot(acc.data()), slot(lo.data()), slot(hi.data()), slot(old.data())}, 0,
          4);
    EXPECT_EQ(acc[0], -6.25);
    EXPECT_EQ(lo[0], -7.25);
    EXPECT_EQ(hi[0], 0.5);  // i % 3 == 0: v[0], v[3]
    EXPECT_EQ(hi[1], 3.0);
    EXPECT_EQ(hi[2], -7.25);
}

}  // namespace
}  // namespace tack::test
