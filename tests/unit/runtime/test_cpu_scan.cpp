// The CPU backend's native scan (runtime/cpu/algorithms.hpp, CONTRACT C33) on host memory:
// integers against a plain wrapping loop, floats against np.cumsum's recurrence within the first
// block and against themselves across thread counts. The threads are std::threads, so thread
// counts above the core count (a loaded host: claimed blocks whose thread is descheduled, whose
// totals the others then compute) run too.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "runtime/cpu/algorithms.hpp"

namespace {

using tack::DType;
using tack::runtime::HostParallelism;
using tack::runtime::HostTaskFn;
using tack::runtime::cpu::kScanBlock;
using tack::runtime::cpu::scan_elements;

HostParallelism threads(int count) {
    if (count == 1) return {};
    return {count, [](int tasks, HostTaskFn task, void* ctx) {
                std::vector<std::thread> others;
                for (int i = 1; i < tasks; ++i)
                    others.emplace_back(task, ctx, i);
                task(ctx, 0);
                for (auto& t : others)
                    t.join();
            }};
}

const int64_t kSizes[] = {0,
                          1,
                          2,
                          17,
                          kScanBlock - 1,
                          kScanBlock,
                          kScanBlock + 1,
                          4 * kScanBlock - 1,
                          4 * kScanBlock + 1,
                          7 * kScanBlock + 5,
                          1'000'003};

template <class T>
std::vector<T> random_values(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(static_cast<size_t>(n));
    for (auto& x : v) {
        if constexpr (std::is_floating_point_v<T>) {
            x = static_cast<T>(std::normal_distribution<double>()(rng));
        } else {
            x = static_cast<T>(rng());
        }
    }
    return v;
}

template <class T>
uint64_t bits(T v) {
    using U = std::make_unsigned_t<T>;
    return static_cast<uint64_t>(static_cast<U>(v));
}

template <class T>
void check_integers(DType dtype) {
    using U = std::make_unsigned_t<T>;
    for (int64_t n : kSizes) {
        auto x = random_values<T>(n, static_cast<uint64_t>(n) + 1);
        std::vector<T> incl(x.size()), excl(x.size());
        U run = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            excl[i] = static_cast<T>(run);
            run = static_cast<U>(run + static_cast<U>(x[i]));
            incl[i] = static_cast<T>(run);
        }
        for (int t : {1, 2, 3, 8}) {
            for (bool inclusive : {true, false}) {
                std::vector<T> out(x.size() + 1, T(7));  // one past n stays untouched
                uint64_t total =
                    scan_elements(dtype, x.data(), out.data(), n, inclusive, threads(t));
                EXPECT_EQ(total, static_cast<uint64_t>(run)) << "n " << n << " threads " << t;
                out.pop_back();
                EXPECT_EQ(out, inclusive ? incl : excl) << "n " << n << " threads " << t;
                std::vector<T> in_place = x;
                scan_elements(dtype, in_place.data(), in_place.data(), n, inclusive, threads(t));
                EXPECT_EQ(in_place, inclusive ? incl : excl) << "in place, n " << n;
            }
        }
    }
}

TEST(CpuScan, IntegersWrapLikeASerialLoopOnAnyThreadCount) {
    check_integers<int8_t>(DType::i8);
    check_integers<uint16_t>(DType::u16);
    check_integers<int32_t>(DType::i32);
    check_integers<uint32_t>(DType::u32);
    check_integers<int64_t>(DType::i64);
    check_integers<uint64_t>(DType::u64);
}

template <class T>
void check_floats(DType dtype) {
    for (int64_t n : kSizes) {
        auto x = random_values<T>(n, static_cast<uint64_t>(n) + 5);
        if (n > 0) x[0] = T(-0.0);
        for (bool inclusive : {true, false}) {
            std::vector<T> serial(x.size());
            uint64_t total = scan_elements(dtype, x.data(), serial.data(), n, inclusive, {});
            // Within the first block: np.cumsum's left-to-right recurrence, bit for bit.
            T run = 0;
            for (int64_t i = 0; i < std::min(n, kScanBlock); ++i) {
                T want = inclusive ? (i == 0 ? x[0] : T(run + x[i])) : run;
                run = i == 0 ? x[0] : T(run + x[i]);
                ASSERT_EQ(std::memcmp(&serial[i], &want, sizeof(T)), 0) << "n " << n << " i " << i;
            }
            if (n > 0) {
                // The running value after the last element (a lone -0.0 sums to -0.0).
                T last = inclusive ? serial[n - 1] : n == 1 ? x[0] : T(serial[n - 1] + x[n - 1]);
                uint64_t want = 0;
                std::memcpy(&want, &last, sizeof(T));
                EXPECT_EQ(total, want);
            }
            // Every thread count gives the same bits (C29: threads never change results).
            for (int t : {2, 3, 8}) {
                std::vector<T> out(x.size());
                EXPECT_EQ(scan_elements(dtype, x.data(), out.data(), n, inclusive, threads(t)),
                          total);
                // Bits, not values (-0.0, NaN); an empty vector's data() may be null.
                EXPECT_TRUE(out.empty() ||
                            std::memcmp(out.data(), serial.data(), out.size() * sizeof(T)) == 0)
                    << "n " << n << " threads " << t;
            }
        }
    }
}

TEST(CpuScan, FloatsAreCumsumWithinABlockAndIndependentOfThreads) {
    check_floats<float>(DType::f32);
    check_floats<double>(DType::f64);
}

TEST(CpuScan, ManyThreadsOverFewBlocks) {
    // More threads than blocks, and more than cores: blocks whose thread is descheduled after
    // claiming them have their totals computed by the others.
    std::vector<int32_t> x(5 * kScanBlock + 3, 1);
    for (int rep = 0; rep < 20; ++rep) {
        std::vector<int32_t> out(x.size());
        EXPECT_EQ(scan_elements(DType::i32, x.data(), out.data(), static_cast<int64_t>(x.size()),
                                true, threads(16)),
                  bits<int32_t>(static_cast<int32_t>(x.size())));
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_EQ(out[i], static_cast<int32_t>(i + 1));
    }
}

}  // namespace
