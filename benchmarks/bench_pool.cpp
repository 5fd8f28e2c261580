// Thread-pool and cost-model benchmark: empty fan-out latency (warm and after the workers fell
// asleep), the serial per-element cost of a saxpy loop, the crossover the cost model derives
// from them, and the crossover actually measured by timing serial against fanned-out runs.
//
//     bench_pool [num_threads]      (default: TACK_CPU_THREADS, else physical cores)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

#include "runtime/cpu/cost_model.hpp"
#include "runtime/cpu/cpu_info.hpp"
#include "runtime/cpu/thread_pool.hpp"

using namespace tack::runtime::cpu;
using Clock = std::chrono::steady_clock;

namespace {

struct Saxpy {
    float a;
    const float* x;
    float* y;
    static void run(void* raw, int64_t lo, int64_t hi) {
        auto* s = static_cast<Saxpy*>(raw);
        for (int64_t i = lo; i < hi; ++i)
            s->y[i] = s->a * s->x[i] + s->y[i];
    }
};

void noop(void*, int64_t, int64_t) {}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

template <class Fn>
double time_ns(Fn fn) {
    auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// Median time of `reps` calls of fn, after 3 warm-ups.
template <class Fn>
double median_ns(int reps, Fn fn) {
    for (int i = 0; i < 3; ++i)
        fn();
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i)
        samples.push_back(time_ns(fn));
    return median(samples);
}

void report_fan_out(ThreadPool& pool) {
    std::vector<double> warm;
    for (int i = 0; i < 200; ++i)
        pool.run(noop, nullptr, 0, 0);
    for (int i = 0; i < 20000; ++i)
        warm.push_back(time_ns([&] { pool.run(noop, nullptr, 0, 0); }));
    std::printf(
        "empty fan-out, warm (20000 back-to-back): median %.2f us  min %.2f us  "
        "p90 %.2f us  p99 %.2f us\n",
        median(warm) / 1e3, percentile(warm, 0.0) / 1e3, percentile(warm, 0.9) / 1e3,
        percentile(warm, 0.99) / 1e3);
    std::vector<double> cold;
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers go to the futex
        cold.push_back(time_ns([&] { pool.run(noop, nullptr, 0, 0); }));
    }
    std::printf("empty fan-out, after 2 ms idle (100):   median %.2f us  p90 %.2f us\n",
                median(cold) / 1e3, percentile(cold, 0.9) / 1e3);
}

double saxpy_serial_ns_per_elem(int64_t n) {
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    Saxpy s{0.5f, x.data(), y.data()};
    int reps = int(std::clamp<int64_t>((int64_t(1) << 26) / n, 5, 2000));
    return median_ns(reps, [&] { Saxpy::run(&s, 0, n); }) / double(n);
}

// The saxpy crossover by median wall time over powers of two: the first n at which a fan-out
// wins, and the first from which it wins at every larger n tested (robust to one lucky size).
void report_measured_crossover(ThreadPool& pool) {
    std::printf("\n%12s %14s %14s %8s\n", "n", "serial (us)", "parallel (us)", "speedup");
    std::vector<std::pair<int64_t, bool>> wins;
    for (int64_t n = 256; n <= (int64_t(1) << 24); n *= 2) {
        std::vector<float> x(n, 1.0f), y(n, 0.0f);
        Saxpy s{0.5f, x.data(), y.data()};
        int reps = int(std::clamp<int64_t>((int64_t(1) << 25) / n, 7, 2001));
        double serial = median_ns(reps, [&] { Saxpy::run(&s, 0, n); });
        double parallel = median_ns(reps, [&] { pool.run(Saxpy::run, &s, 0, n); });
        std::printf("%12lld %14.2f %14.2f %8.2f\n", static_cast<long long>(n), serial / 1e3,
                    parallel / 1e3, serial / parallel);
        wins.emplace_back(n, parallel < serial);
    }
    int64_t first = -1, stable = -1;
    for (auto [n, win] : wins) {
        if (win && first < 0) first = n;
        stable = win ? (stable < 0 ? n : stable) : -1;
    }
    std::printf(
        "measured saxpy crossover: fan-out first wins at n=%lld, wins at every larger "
        "size from n=%lld (-1: never)\n",
        static_cast<long long>(first), static_cast<long long>(stable));
}

// What the executor learns from real dispatches of saxpy at n elements, per policy.
void report_model(int threads, tack::support::CpuPolicy policy, const char* name, int64_t n) {
    CpuExecutor executor(threads, policy, std::nullopt);
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    Saxpy s{0.5f, x.data(), y.data()};
    CostModel model;
    int parallel = 0;
    for (int i = 0; i < 300; ++i) {
        parallel += n >= model.parallel_min_elems();
        executor.dispatch(model, Saxpy::run, &s, 0, n);
    }
    std::printf(
        "cost model %s at n=%lld: F=%.2f us M=%.1f overhead=%.0f ns r_s=%.3f r_p=%.3f "
        "ns/elem -> parallel_min_elems=%lld (fanned out %d of 300)\n",
        name, static_cast<long long>(n), executor.fan_out_ns() / 1e3, executor.margin(),
        model.call_overhead_ns(), model.serial_ns_per_elem(), model.parallel_ns_per_elem(),
        static_cast<long long>(model.parallel_min_elems()), parallel);
}

void report_hot_path(int threads) {
    CpuExecutor executor(threads, tack::support::CpuPolicy::V2, std::nullopt);
    std::vector<float> x(16, 1.0f), y(16, 0.0f);
    Saxpy s{0.5f, x.data(), y.data()};
    CostModel model;
    double direct = median_ns(20001, [&] { Saxpy::run(&s, 0, 16); });
    double via = median_ns(20001, [&] { executor.dispatch(model, Saxpy::run, &s, 0, 16); });
    std::printf(
        "16-element serial dispatch: %.0f ns through the executor (decision + timing), "
        "%.0f ns called directly\n",
        via, direct);
}

}  // namespace

int main(int argc, char** argv) {
    std::optional<int> option;
    if (argc > 1) option = std::atoi(argv[1]);
    int threads = resolve_thread_count(option);
    std::printf("threads %d (physical cores %d, hardware_concurrency %u)\n", threads,
                physical_core_count(), std::thread::hardware_concurrency());
    if (threads < 2) {
        std::printf("one thread: no pool, every dispatch is serial\n");
        return 0;
    }
    ThreadPool pool(threads);
    report_fan_out(pool);
    std::printf("saxpy serial cost: %.3f ns/elem at n=2^16 (in cache), %.3f ns/elem at n=2^24\n",
                saxpy_serial_ns_per_elem(1 << 16), saxpy_serial_ns_per_elem(1 << 24));
    report_measured_crossover(pool);
    std::printf("\n");
    for (int64_t n : {int64_t(1) << 12, int64_t(1) << 16, int64_t(1) << 20, int64_t(1) << 22}) {
        report_model(threads, tack::support::CpuPolicy::V1, "v1", n);
        report_model(threads, tack::support::CpuPolicy::V2, "v2", n);
    }
    report_hot_path(threads);
    return 0;
}
