// CPU benchmark (issue 3): Tack kernels against hand-written C++ OpenMP loops measured in the
// same run, printed as ratios (this machine is shared and noisy, so absolute numbers only mean
// something next to a baseline taken minutes apart). Every Tack result is checked against its
// baseline's result first, so a wrong kernel cannot look fast.
//
//     bench_cpu [--quick] [--only STEP,...] [--json PATH] [--kernels DIR]
//
// Steps: compile, codegen, saxpy, triad, sum, mandelbrot, dispatch, crossover. --quick runs fewer
// repetitions (a smoke test, not numbers to quote).
//
//   1. saxpy, triad (f32, 2^24): GB/s, Tack vs `#pragma omp parallel for simd`.
//   2. Mandelbrot 2048x2048, 256 iterations: Tack vs OpenMP rows (dynamic and static).
//   3. Array::sum() of 2^24 f32 vs an OpenMP simd reduction.
//   4. Dispatch of a 1-element kernel (median of 100k calls), and the serial/parallel crossover
//      of saxpy over 2^8..2^22 (default threads vs one thread vs OpenMP) next to the thread
//      pool's fan-out cost and the threshold the cost model derives from it.
//   5. Cold compile (source to first call, empty disk cache) and load from the disk cache, each
//      in a new process (this program re-run with --child), next to the raw LLVM O3 + codegen,
//      JIT load and disk read times of the same kernel.
//
// The numbers are also written as JSON (default: <source>/benchmarks/results/cpu.json).

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_cpu_baselines.hpp"
#include "cache/disk_cache.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "runtime/cpu/cost_model.hpp"
#include "runtime/cpu/cpu_info.hpp"
#include "runtime/registry.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "tack/tack.hpp"

#ifndef TACK_SOURCE_DIR
#define TACK_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;
namespace bench = tack::bench;
using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------------------------------------
// Timing and reporting helpers
// ------------------------------------------------------------------------------------------

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class Fn>
double time_ns(Fn&& fn) {
    auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// libgomp workers spin for milliseconds after a parallel region and Tack's pool spins briefly
// too; switching between the two without a pause would time one against the other's spinners.
void settle() {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

struct PairTimes {
    double tack_ns = 0.0;
    double base_ns = 0.0;
};

// Medians of `rounds` x `per_round` timed calls of each side, alternating blocks after warm-up.
template <class TackFn, class BaseFn>
PairTimes time_pair(int rounds, int per_round, TackFn&& tack_fn, BaseFn&& base_fn) {
    std::vector<double> t, b;
    for (int i = 0; i < 2; ++i)
        tack_fn();
    settle();
    for (int i = 0; i < 2; ++i)
        base_fn();
    for (int r = 0; r < rounds; ++r) {
        settle();
        for (int i = 0; i < per_round; ++i)
            t.push_back(time_ns(tack_fn));
        settle();
        for (int i = 0; i < per_round; ++i)
            b.push_back(time_ns(base_fn));
    }
    return {median(t), median(b)};
}

// One table row: a Tack number, its baseline, and the ratio oriented so that >= target is good.
struct Row {
    std::string name;
    std::string unit;
    double tack = 0.0;
    double base = 0.0;  // NaN: no baseline (absolute target)
    double ratio = 0.0;
    std::string target;
    bool pass = false;      // target met and result verified
    bool verified = false;  // the result matched its reference
    std::string check;      // how the result was verified
};

Row make_row(std::string name, std::string unit, double tack, double base, std::string target) {
    Row r;
    r.name = std::move(name);
    r.unit = std::move(unit);
    r.tack = tack;
    r.base = base;
    r.ratio = tack / base;
    r.target = std::move(target);
    return r;
}

// The JSON file: sections of (key, already-rendered value), in insertion order.
class Results {
  public:
    void num(const std::string& section, const std::string& key, double v) {
        char buf[64];
        if (std::isfinite(v)) {
            std::snprintf(buf, sizeof buf, "%.6g", v);
        } else {
            std::snprintf(buf, sizeof buf, "null");
        }
        put(section, key, buf);
    }
    void str(const std::string& section, const std::string& key, const std::string& v) {
        put(section, key, "\"" + v + "\"");
    }
    void raw(const std::string& section, const std::string& key, const std::string& v) {
        put(section, key, v);
    }
    std::string render() const {
        std::string out = "{\n";
        for (size_t s = 0; s < order_.size(); ++s) {
            out += "  \"" + order_[s] + "\": {\n";
            const auto& kv = sections_.at(order_[s]);
            for (size_t i = 0; i < kv.size(); ++i) {
                out += "    \"" + kv[i].first + "\": " + kv[i].second;
                out += i + 1 < kv.size() ? ",\n" : "\n";
            }
            out += s + 1 < order_.size() ? "  },\n" : "  }\n";
        }
        return out + "}\n";
    }

  private:
    void put(const std::string& section, const std::string& key, std::string v) {
        if (!sections_.count(section)) order_.push_back(section);
        sections_[section].emplace_back(key, std::move(v));
    }
    std::vector<std::string> order_;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> sections_;
};

struct Bench {
    bool quick = false;
    std::string only;  // comma-separated step names; empty = all
    std::string kernels_dir = TACK_SOURCE_DIR "/benchmarks/kernels";
    std::string json_path = TACK_SOURCE_DIR "/benchmarks/results/cpu.json";
    std::vector<Row> rows;
    Results json;
    std::vector<std::string> notes;
    std::string load_before;

    int reps(int full) const { return quick ? std::max(2, full / 4) : full; }
    void add(Row r, const std::string& section) {
        json.num(section, "tack", r.tack);
        json.num(section, "baseline", r.base);
        json.num(section, "ratio", r.ratio);
        json.str(section, "unit", r.unit);
        json.str(section, "target", r.target);
        json.raw(section, "meets_target", r.pass ? "true" : "false");
        json.raw(section, "result_ok", r.verified ? "true" : "false");
        json.str(section, "verified", r.check);
        rows.push_back(std::move(r));
    }
};

// The 1, 5 and 15 minute load averages: the benchmark shares its two cores with whatever else
// runs, and the ratios are only as good as the load was steady.
std::string load_average() {
    std::ifstream in("/proc/loadavg");
    double a = 0, b = 0, c = 0;
    in >> a >> b >> c;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
    return buf;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

tack::Kernel load_kernel(const Bench& b, const std::string& name) {
    std::string path = b.kernels_dir + "/" + name + ".py";
    return tack::Module::from_source(read_text(path), path).kernel(name);
}

// Deterministic inputs in [0, 1) (a 32-bit LCG), so runs are repeatable.
std::vector<float> inputs(size_t n, uint32_t seed) {
    std::vector<float> v(n);
    uint32_t s = seed;
    for (auto& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
    }
    return v;
}

template <class T>
size_t count_mismatches(const std::vector<T>& a, const std::vector<T>& b) {
    size_t bad = a.size() == b.size() ? 0 : std::max(a.size(), b.size());
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        bad += a[i] != b[i];
    return bad;
}

std::string exact_check(size_t mismatches) {
    return mismatches == 0 ? "exact" : "MISMATCH(" + std::to_string(mismatches) + ")";
}

// ------------------------------------------------------------------------------------------
// 1. saxpy and triad bandwidth
// ------------------------------------------------------------------------------------------

constexpr int64_t kStreamN = int64_t(1) << 24;

// Bytes per element: saxpy y = a*x + y reads x and y and writes y: 4 + 4 + 4 = 12. triad
// a = b + s*c reads b and c and writes a, whose cache lines are also read first (write-
// allocate: a is not read by the loop): 4 + 4 + 4 + 4 = 16. GB/s = bytes * n / time.
constexpr double kSaxpyBytes = 12.0;
constexpr double kTriadBytes = 16.0;

double gbps(double bytes_per_elem, int64_t n, double ns) {
    return bytes_per_elem * n / ns;
}

Row bandwidth_row(const std::string& name, double bytes, PairTimes t, size_t mismatches) {
    Row r = make_row(name, "GB/s", gbps(bytes, kStreamN, t.tack_ns),
                     gbps(bytes, kStreamN, t.base_ns), ">= 0.90");
    r.pass = r.ratio >= 0.9 && mismatches == 0;
    r.check = exact_check(mismatches);
    r.verified = mismatches == 0;
    return r;
}

void bench_saxpy(Bench& b) {
    tack::Kernel k = load_kernel(b, "saxpy");
    const float a = 1.5f;
    std::vector<float> xv = inputs(kStreamN, 1), yv = inputs(kStreamN, 2);
    tack::Array x = tack::Array::from_host(xv, {kStreamN});
    tack::Array y = tack::Array::from_host(yv, {kStreamN});
    k(x, y, a);
    std::vector<float> expect = yv;
    bench::omp_saxpy(xv.data(), expect.data(), a, kStreamN);
    size_t bad = count_mismatches(y.to_host<float>(), expect);

    // Both sides run on the same (64-byte aligned) Tack storage, so pages and alignment match.
    auto* xp = static_cast<const float*>(x.host_data());
    auto* yp = static_cast<float*>(y.host_data());
    PairTimes t = time_pair(
        4, b.reps(5), [&] { k(x, y, a); }, [&] { bench::omp_saxpy(xp, yp, a, kStreamN); });
    b.add(bandwidth_row("saxpy f32 n=2^24 (12 B/elem)", kSaxpyBytes, t, bad), "saxpy");
}

void bench_triad(Bench& b) {
    tack::Kernel k = load_kernel(b, "triad");
    const float s = 3.0f;
    std::vector<float> bv = inputs(kStreamN, 3), cv = inputs(kStreamN, 4);
    tack::Array av = tack::zeros(tack::f32, {kStreamN});
    tack::Array barr = tack::Array::from_host(bv, {kStreamN});
    tack::Array carr = tack::Array::from_host(cv, {kStreamN});
    k(av, barr, carr, s);
    std::vector<float> expect(kStreamN);
    bench::omp_triad(expect.data(), bv.data(), cv.data(), s, kStreamN);
    size_t bad = count_mismatches(av.to_host<float>(), expect);

    auto* ap = static_cast<float*>(av.host_data());
    auto* bp = static_cast<const float*>(barr.host_data());
    auto* cp = static_cast<const float*>(carr.host_data());
    PairTimes t = time_pair(
        4, b.reps(5), [&] { k(av, barr, carr, s); },
        [&] { bench::omp_triad(ap, bp, cp, s, kStreamN); });
    b.add(bandwidth_row("triad f32 n=2^24 (16 B/elem)", kTriadBytes, t, bad), "triad");
}

// ------------------------------------------------------------------------------------------
// 2. Mandelbrot
// ------------------------------------------------------------------------------------------

struct MandelView {
    int64_t width = 2048, height = 2048;
    int32_t max_iter = 256;
    float x0 = -2.0f, y0 = -1.5f;
    float dx = 3.0f / 2048.0f, dy = 3.0f / 2048.0f;
};

void bench_mandelbrot(Bench& b) {
    const MandelView v;
    tack::Kernel k = load_kernel(b, "mandelbrot");
    const int64_t n = v.width * v.height;
    tack::Array out = tack::zeros(tack::i32, {n});
    auto run_tack = [&] { k(out, v.width, v.x0, v.dx, v.y0, v.dy, v.max_iter); };
    std::vector<int32_t> expect(static_cast<size_t>(n));
    auto run_omp = [&](bool dynamic) {
        bench::omp_mandelbrot(expect.data(), v.width, v.height, v.x0, v.dx, v.y0, v.dy, v.max_iter,
                              dynamic);
    };
    run_tack();
    run_omp(true);
    size_t bad = count_mismatches(out.to_host<int32_t>(), expect);

    PairTimes dyn = time_pair(2, b.reps(5), run_tack, [&] { run_omp(true); });
    PairTimes stat = time_pair(1, b.reps(5), run_tack, [&] { run_omp(false); });
    const double mpix = n / 1e6;
    Row r = make_row("mandelbrot 2048^2 x256 (Mpixel/s)", "Mpix/s", mpix / (dyn.tack_ns * 1e-9),
                     mpix / (dyn.base_ns * 1e-9), ">= 0.95");
    r.pass = r.ratio >= 0.95 && bad == 0;
    r.check = exact_check(bad);
    r.verified = bad == 0;
    b.json.num("mandelbrot", "omp_static_mpix_s", mpix / (stat.base_ns * 1e-9));
    b.json.num("mandelbrot", "ratio_vs_static", stat.base_ns / stat.tack_ns);
    b.notes.push_back("mandelbrot baseline = schedule(dynamic,1) rows; vs schedule(static): " +
                      std::to_string(stat.base_ns / stat.tack_ns).substr(0, 4));
    b.add(r, "mandelbrot");
}

// ------------------------------------------------------------------------------------------
// 3. sum
// ------------------------------------------------------------------------------------------

void bench_sum(Bench& b) {
    std::vector<float> xv = inputs(kStreamN, 5);
    tack::Array x = tack::Array::from_host(xv, {kStreamN});
    double reference = 0.0;
    for (float v : xv)
        reference += v;
    auto* xp = static_cast<const float*>(x.host_data());
    double tack_sum = x.sum();
    double omp_sum = bench::omp_sum(xp, kStreamN);
    // f32 accumulation in any order is within n * eps * sum|x| of the exact sum (all x >= 0);
    // pairwise/lane sums land far inside it, so 1e-4 relative catches real errors only.
    auto close = [&](double s) { return std::fabs(s - reference) <= 1e-4 * reference; };
    volatile double sink = 0.0;
    PairTimes t = time_pair(
        4, b.reps(5), [&] { sink = x.sum(); }, [&] { sink = bench::omp_sum(xp, kStreamN); });
    Row r = make_row("sum f32 n=2^24 (4 B/elem)", "GB/s", gbps(4.0, kStreamN, t.tack_ns),
                     gbps(4.0, kStreamN, t.base_ns), ">= 0.90");
    bool ok = close(tack_sum) && close(omp_sum);
    r.pass = r.ratio >= 0.9 && ok;
    char buf[96];
    std::snprintf(buf, sizeof buf, "rel err %.1e/%.1e", std::fabs(tack_sum - reference) / reference,
                  std::fabs(omp_sum - reference) / reference);
    r.check = ok ? buf : std::string("WRONG ") + buf;
    r.verified = ok;
    b.add(r, "sum");
}

// ------------------------------------------------------------------------------------------
// 4. Dispatch overhead and the serial/parallel crossover
// ------------------------------------------------------------------------------------------

double timer_overhead_ns() {
    std::vector<double> v;
    for (int i = 0; i < 10000; ++i)
        v.push_back(time_ns([] {}));
    return median(v);
}

void bench_dispatch(Bench& b) {
    tack::Kernel k = load_kernel(b, "add_one");
    tack::Array x = tack::zeros(tack::f32, {1});
    const int calls = b.quick ? 20000 : 100000;
    for (int i = 0; i < 1000; ++i)
        k(x);  // compile, then let the cost model settle
    std::vector<double> per_call;
    per_call.reserve(calls);
    auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i)
        per_call.push_back(time_ns([&] { k(x); }));
    double total_ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    const double timer = timer_overhead_ns();
    const double med_us = (median(per_call) - timer) * 1e-3;
    bool ok = x.get<float>({0}) == static_cast<float>(1000 + calls);

    Row r = make_row("dispatch, 1-element kernel (us)", "us", med_us, NAN, "<= 1 us");
    r.pass = med_us <= 1.0 && ok;
    r.check = ok ? "count exact" : "WRONG COUNT";
    r.verified = ok;
    b.json.num("dispatch", "mean_us_incl_timer", total_ns / calls * 1e-3);
    b.json.num("dispatch", "timer_overhead_ns", timer);
    std::sort(per_call.begin(), per_call.end());
    b.json.num("dispatch", "p90_us", (per_call[per_call.size() * 9 / 10] - timer) * 1e-3);
    b.json.num("dispatch", "p99_us", (per_call[per_call.size() * 99 / 100] - timer) * 1e-3);
    b.add(r, "dispatch");
}

struct SweepPoint {
    int64_t n = 0;
    double tack_ns = 0.0;    // default threads
    double serial_ns = 0.0;  // a one-thread Tack device
    double omp_ns = 0.0;
    double pool_share = 0.0;  // CPU time of other threads / wall time, default-thread batch
};

// CPU time of every thread of this process except the main one (/proc schedstat, ns). The
// runtime's decision is not exposed, but pool workers only run when a dispatch fans out (they
// sleep otherwise), so their CPU time during a batch of calls shows which way it went.
double other_threads_cpu_ns() {
    double total = 0.0;
    const std::string main_tid = std::to_string(getpid());
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/self/task", ec)) {
        if (e.path().filename() == main_tid) continue;
        std::ifstream in(e.path() / "schedstat");
        double run_ns = 0.0;
        if (in >> run_ns) total += run_ns;
    }
    return total;
}

int sweep_reps(int64_t n) {
    return static_cast<int>(std::clamp<int64_t>((int64_t(1) << 23) / n, 15, 3000));
}

// Median per-call time of saxpy at size n after enough calls for the cost model to settle;
// *share gets the other threads' CPU time over the timed batch's wall time.
double time_saxpy_tack(const tack::Kernel& k, const tack::Array& x, const tack::Array& y, int64_t n,
                       double* share) {
    const int reps = sweep_reps(n);
    for (int i = 0; i < std::min(reps, 300); ++i)
        k(x, y, 0.5f);
    std::vector<double> v;
    double cpu0 = other_threads_cpu_ns();
    auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i)
        v.push_back(time_ns([&] { k(x, y, 0.5f); }));
    double wall = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    *share = (other_threads_cpu_ns() - cpu0) / wall;
    return median(v);
}

double time_saxpy_omp(const tack::Array& x, const tack::Array& y, int64_t n) {
    auto* xp = static_cast<const float*>(x.host_data());
    auto* yp = static_cast<float*>(y.host_data());
    for (int i = 0; i < 20; ++i)
        bench::omp_saxpy(xp, yp, 0.5f, n);
    std::vector<double> v;
    for (int i = 0; i < sweep_reps(n); ++i) {
        v.push_back(time_ns([&] { bench::omp_saxpy(xp, yp, 0.5f, n); }));
    }
    return median(v);
}

std::vector<SweepPoint> crossover_sweep(const Bench& b, const tack::Device& parallel,
                                        const tack::Device& serial) {
    tack::Kernel k = load_kernel(b, "saxpy");
    std::vector<SweepPoint> pts;
    double unused = 0.0;
    for (int e = 8; e <= 22; e += b.quick ? 2 : 1) {
        const int64_t n = int64_t(1) << e;
        std::vector<float> xv = inputs(static_cast<size_t>(n), 7);
        tack::Array x = tack::Array::from_host(xv, {n}), y = tack::zeros(tack::f32, {n});
        SweepPoint p{n};
        settle();
        tack::runtime::set_default_backend(parallel.backend());
        p.tack_ns = time_saxpy_tack(k, x, y, n, &p.pool_share);
        tack::runtime::set_default_backend(serial.backend());
        p.serial_ns = time_saxpy_tack(k, x, y, n, &unused);
        settle();
        p.omp_ns = time_saxpy_omp(x, y, n);
        pts.push_back(p);
    }
    tack::runtime::set_default_backend(parallel.backend());
    return pts;
}

// The smallest n from which on the pool workers were busy (fan-outs) in every batch.
int64_t observed_switch(const std::vector<SweepPoint>& pts) {
    int64_t first = -1;
    for (const auto& p : pts) {
        bool fanned = p.pool_share > 0.2;
        if (fanned && first < 0) first = p.n;
        if (!fanned) first = -1;
    }
    return first;
}

// Prints the sweep table and returns its points as a JSON array.
std::string print_sweep(const std::vector<SweepPoint>& pts) {
    std::printf(
        "\nserial/parallel crossover, saxpy (median us per call; 1T = a one-thread device; "
        "pool = pool workers' CPU time / wall time, > 0.2 = fanned out)\n");
    std::printf("  %9s %10s %10s %8s %10s %7s\n", "n", "tack", "tack 1T", "1T/tack", "omp", "pool");
    std::string arr = "[";
    for (const auto& p : pts) {
        std::printf("  %9lld %10.2f %10.2f %8.2f %10.2f %7.2f\n", static_cast<long long>(p.n),
                    p.tack_ns * 1e-3, p.serial_ns * 1e-3, p.serial_ns / p.tack_ns, p.omp_ns * 1e-3,
                    p.pool_share);
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "%s{\"n\": %lld, \"tack_us\": %.4g, \"serial_us\": %.4g, \"omp_us\": "
                      "%.4g, \"pool_cpu_share\": %.3g}",
                      arr.size() > 1 ? ", " : "", static_cast<long long>(p.n), p.tack_ns * 1e-3,
                      p.serial_ns * 1e-3, p.omp_ns * 1e-3, p.pool_share);
        arr += buf;
    }
    return arr + "]";
}

void bench_crossover(Bench& b) {
    tack::Device parallel = tack::device("cpu");
    tack::Device serial = tack::init("cpu", {{"num_threads", 1}});
    tack::runtime::set_default_backend(parallel.backend());
    std::vector<SweepPoint> pts = crossover_sweep(b, parallel, serial);

    // What the cost model derives for this kernel: the calibrated fan-out cost F of a fresh
    // executor like the backend's, and the serial ns/element measured at the largest in-cache n.
    using tack::runtime::cpu::CpuExecutor;
    auto exec = CpuExecutor::from_environment(std::nullopt);
    const double fan_out = exec->fan_out_ns();
    const double pool_median = exec->pool() ? exec->pool()->measure_fan_out_ns(101) : NAN;
    double r_s = 0.0;
    for (const auto& p : pts) {
        if (p.n <= (int64_t(1) << 15)) r_s = p.serial_ns / static_cast<double>(p.n);
    }
    const int64_t predicted = exec->min_elems_for(r_s);
    const int64_t observed = observed_switch(pts);

    std::string arr = print_sweep(pts);
    std::printf(
        "  fan-out cost: %.2f us calibrated (executor), %.2f us median of 101 (pool); "
        "serial rate %.3f ns/elem\n",
        fan_out * 1e-3, pool_median * 1e-3, r_s);
    std::printf(
        "  cost-model threshold for that rate (v1 formula): %lld elements; runtime fans "
        "out from n = %lld (-1: never)\n",
        static_cast<long long>(predicted), static_cast<long long>(observed));
    b.json.raw("crossover", "points", arr);
    b.json.num("crossover", "fan_out_us_calibrated", fan_out * 1e-3);
    b.json.num("crossover", "fan_out_us_pool_median", pool_median * 1e-3);
    b.json.num("crossover", "serial_ns_per_elem", r_s);
    b.json.num("crossover", "model_parallel_min_elems", static_cast<double>(predicted));
    b.json.num("crossover", "observed_switch_n", static_cast<double>(observed));
}

// ------------------------------------------------------------------------------------------
// 5. Cold compile, disk-cache load in a new process, raw LLVM
// ------------------------------------------------------------------------------------------

constexpr int64_t kCompileN = 4096;

// Source text to first finished call (device and arrays already exist); the result is checked.
double first_call_us(const std::string& text, const std::string& name, bool* ok) {
    std::vector<float> xv = inputs(kCompileN, 9);
    tack::Array x = tack::Array::from_host(xv, {kCompileN});
    tack::Array y = tack::zeros(tack::f32, {kCompileN});
    double ns = time_ns([&] {
        tack::Kernel k = tack::Module::from_source(text, name + ".py").kernel(name);
        k(x, y, 2.0f);
    });
    std::vector<float> out = y.to_host<float>();
    *ok = true;
    for (int64_t i = 0; i < kCompileN; ++i)
        *ok = *ok && out[i] == 2.0f * xv[i];
    return ns * 1e-3;
}

std::string renamed_saxpy(const std::string& text) {
    std::string out = text;
    out.replace(out.find("def saxpy("), 10, "def saxpy_again(");
    return out;
}

// Child mode (--child): the first kernel of a new process, then a
// second one. With an empty TACK_CACHE_DIR both compile (the second with LLVM initialized);
// with the directory a cold child filled, both load from the disk cache.
int child_run(const Bench& b) {
    tack::device("cpu");
    std::string text = read_text(b.kernels_dir + "/saxpy.py");
    bool ok1 = false, ok2 = false;
    double first = first_call_us(text, "saxpy", &ok1);
    double second = first_call_us(renamed_saxpy(text), "saxpy_again", &ok2);
    std::printf("%.3f %.3f %d\n", first, second, ok1 && ok2 ? 1 : 0);
    return 0;
}

// File name -> modification time of every cache entry: a disk hit rewrites nothing.
std::map<std::string, long long> cache_entries(const std::string& dir) {
    std::map<std::string, long long> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        struct stat st {};
        if (stat(e.path().c_str(), &st) == 0) {
            out[e.path().filename().string()] =
                st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        }
    }
    return out;
}

struct ChildTimes {
    std::vector<double> first_us, second_us;
    bool ok = true;
};

// Runs this program in child mode with TACK_CACHE_DIR=cache_dir and collects its numbers.
void run_child(const Bench& b, const std::string& self, const std::string& cache_dir,
               ChildTimes& c) {
    std::string cmd = "TACK_CACHE_DIR='" + cache_dir + "' '" + self + "' --child --kernels '" +
                      b.kernels_dir + "'";
    FILE* p = popen(cmd.c_str(), "r");
    double f = 0, s = 0;
    int ok = 0;
    bool parsed = p && std::fscanf(p, "%lf %lf %d", &f, &s, &ok) == 3;
    if (p) pclose(p);
    c.ok = c.ok && parsed && ok == 1;
    c.first_us.push_back(f);
    c.second_us.push_back(s);
}

// Lowered, shape-specialized and optimized saxpy for the raw codegen timings.
tack::ir::Kernel lowered_saxpy(const std::string& text) {
    using namespace tack;
    auto file = std::make_shared<diag::SourceFile>("saxpy.py", text);
    auto parsed = frontend::parse_module(file);
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<sema::ModuleEnvironment>(module);
    const frontend::FunctionDef* fn = module->find("saxpy");
    std::vector<sema::Type> sig = sema::parse_arg_types("f32[:],f32[:],f32");
    return driver::compile({*fn, file, *env}, sig,
                           driver::capabilities_of(driver::find_target("cpu")), {})
        .ir;
}

struct RawTimes {
    double front_us = 0.0;    // parse + lower + passes
    double o3_us = 0.0;       // LLVM module build + O3 (+ printing, small)
    double codegen_us = 0.0;  // LLVM module build + O3 + object emission
    double jit_us = 0.0;      // ORC load + link of the object
    double disk_us = 0.0;     // DiskCache::load (read + SHA-256 check)
    size_t object_bytes = 0;
};

RawTimes raw_compile_times(const std::string& text, const std::string& scratch_dir) {
    namespace llvm_cpu = tack::codegen::llvm_cpu;
    RawTimes t;
    std::vector<double> front, o3, cg, jit, disk;
    tack::cache::DiskCache cache(scratch_dir);
    std::vector<uint8_t> obj;
    for (int i = 0; i < 7; ++i) {
        tack::ir::Kernel k;
        front.push_back(time_ns([&] { k = lowered_saxpy(text); }));
        o3.push_back(time_ns([&] { llvm_cpu::emit_llvm_ir(k, {.noalias = true}, true); }));
        cg.push_back(time_ns([&] { obj = llvm_cpu::compile_to_object(k, {.noalias = true}); }));
        jit.push_back(time_ns([&] {
            auto loaded = llvm_cpu::LoadedObject::load(obj);
            if (!loaded->entry("saxpy")) throw std::runtime_error("no saxpy entry");
        }));
        cache.store("bench-raw", obj);
        disk.push_back(time_ns([&] {
            if (!cache.load("bench-raw")) throw std::runtime_error("disk cache miss");
        }));
    }
    t.front_us = median(front) * 1e-3;
    t.o3_us = median(o3) * 1e-3;
    t.codegen_us = median(cg) * 1e-3;
    t.jit_us = median(jit) * 1e-3;
    t.disk_us = median(disk) * 1e-3;
    t.object_bytes = obj.size();
    return t;
}

double min_of(const std::vector<double>& v) {
    return v.empty() ? NAN : *std::min_element(v.begin(), v.end());
}

// Cold compiles and disk loads, each in a new process (median of several, each cold child with
// its own empty cache directory); the last cold child's directory serves the load children.
void bench_compile(Bench& b, const std::string& self, const std::string& cache_dir) {
    const int runs = b.quick ? 3 : 7;
    ChildTimes cold, load;
    std::string dir;
    for (int i = 0; i < runs; ++i) {
        dir = cache_dir + "/cold" + std::to_string(i);
        fs::create_directory(dir);
        fs::permissions(dir, fs::perms::owner_all);
        run_child(b, self, dir, cold);
    }
    auto before = cache_entries(dir);
    for (int i = 0; i < runs; ++i)
        run_child(b, self, dir, load);
    bool hit = before.size() >= 2 && cache_entries(dir) == before;

    Row first = make_row("cold compile saxpy, 1st kernel (ms)", "ms", median(cold.first_us) * 1e-3,
                         NAN, "<= 15 ms");
    first.pass = first.tack <= 15.0 && cold.ok;
    first.check = cold.ok ? "exact" : "WRONG";
    first.verified = cold.ok;
    b.add(first, "cold_compile");
    b.json.num("cold_compile", "min_ms", min_of(cold.first_us) * 1e-3);
    Row second = make_row("cold compile, 2nd kernel (ms)", "ms", median(cold.second_us) * 1e-3, NAN,
                          "<= 15 ms");
    second.pass = second.tack <= 15.0 && cold.ok;
    second.check = first.check;
    second.verified = cold.ok;
    b.add(second, "cold_compile_2nd_kernel");
    b.json.num("cold_compile_2nd_kernel", "min_ms", min_of(cold.second_us) * 1e-3);
    Row disk = make_row("disk-cache load, new process (ms)", "ms", median(load.first_us) * 1e-3,
                        NAN, "<= 0.5 ms");
    disk.pass = disk.tack <= 0.5 && load.ok && hit;
    disk.check = std::string(load.ok ? "exact" : "WRONG") + (hit ? ", hit" : ", NOT A HIT");
    disk.verified = load.ok && hit;
    b.add(disk, "disk_load");
    b.json.num("disk_load", "min_ms", min_of(load.first_us) * 1e-3);
    b.json.num("disk_load", "second_kernel_ms", median(load.second_us) * 1e-3);
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "compile/load: median of %d processes (min: cold %.1f / %.1f ms, load %.2f ms);"
                  " 2nd kernel loaded from disk %.2f ms",
                  runs, min_of(cold.first_us) * 1e-3, min_of(cold.second_us) * 1e-3,
                  min_of(load.first_us) * 1e-3, median(load.second_us) * 1e-3);
    b.notes.push_back(buf);
}

// The parts of a compile, timed directly on saxpy (warm: LLVM initialized, median of 7).
void bench_codegen(Bench& b, const std::string& cache_dir) {
    std::string text = read_text(b.kernels_dir + "/saxpy.py");
    RawTimes raw = raw_compile_times(text, (fs::path(cache_dir) / "raw").string());
    b.json.num("raw_compile", "front_us", raw.front_us);
    b.json.num("raw_compile", "llvm_o3_us", raw.o3_us);
    b.json.num("raw_compile", "llvm_o3_codegen_us", raw.codegen_us);
    b.json.num("raw_compile", "jit_load_us", raw.jit_us);
    b.json.num("raw_compile", "disk_read_us", raw.disk_us);
    b.json.num("raw_compile", "object_bytes", static_cast<double>(raw.object_bytes));
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "compile parts (saxpy, warm, median of 7): parse+lower+passes %.0f us; LLVM "
                  "build+O3 %.0f us; build+O3+codegen (compile_to_object) %.0f us; JIT "
                  "load+link %.0f us; disk read %.0f us (%zu B object)",
                  raw.front_us, raw.o3_us, raw.codegen_us, raw.jit_us, raw.disk_us,
                  raw.object_bytes);
    b.notes.push_back(buf);
}

// ------------------------------------------------------------------------------------------
// Driver
// ------------------------------------------------------------------------------------------

void print_table(const Bench& b) {
    std::printf("\n%-38s %10s %10s %7s %9s  %-4s %s\n", "benchmark", "tack", "baseline", "ratio",
                "target", "ok", "verified");
    for (const Row& r : b.rows) {
        char base[32] = "-", ratio[32] = "-";
        if (std::isfinite(r.base)) std::snprintf(base, sizeof base, "%10.3f", r.base);
        if (std::isfinite(r.ratio)) std::snprintf(ratio, sizeof ratio, "%7.3f", r.ratio);
        std::printf("%-38s %10.3f %10s %7s %9s  %-4s %s\n", r.name.c_str(), r.tack, base, ratio,
                    r.target.c_str(), r.pass ? "yes" : "NO", r.check.c_str());
    }
    for (const auto& n : b.notes)
        std::printf("  note: %s\n", n.c_str());
}

void write_json(Bench& b) {
    b.json.num("machine", "hardware_threads", std::thread::hardware_concurrency());
    b.json.num("machine", "omp_threads", bench::omp_threads());
    b.json.num("machine", "tack_threads", tack::runtime::cpu::resolve_thread_count(std::nullopt));
    b.json.str("machine", "load_average_before", b.load_before);
    b.json.str("machine", "load_average_after", load_average());
    fs::create_directories(fs::path(b.json_path).parent_path());
    std::ofstream(b.json_path) << b.json.render();
    std::printf("\nload average after: %s; wrote %s\n", load_average().c_str(),
                b.json_path.c_str());
}

Bench parse_args(int argc, char** argv, bool* child) {
    Bench b;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick")
            b.quick = true;
        else if (a == "--child")
            *child = true;
        else if (a == "--only" && i + 1 < argc)
            b.only = "," + std::string(argv[++i]) + ",";
        else if (a == "--json" && i + 1 < argc)
            b.json_path = argv[++i];
        else if (a == "--kernels" && i + 1 < argc)
            b.kernels_dir = argv[++i];
        else
            throw std::runtime_error(
                "usage: bench_cpu [--quick] [--only STEP,...] [--json PATH] [--kernels DIR]");
    }
    return b;
}

std::string self_path() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

int run(int argc, char** argv) {
    bool child = false;
    Bench b = parse_args(argc, argv, &child);
    if (child) return child_run(b);  // TACK_CACHE_DIR comes from the parent

    // A fresh cache directory before anything compiles (the cache reads it once).
    std::string tmpl = (fs::temp_directory_path() / "tack-bench-XXXXXX").string();
    std::string cache_dir = mkdtemp(tmpl.data());
    setenv("TACK_CACHE_DIR", cache_dir.c_str(), 1);
    tack::Device dev = tack::device("cpu");
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    b.load_before = load_average();
    std::printf(
        "bench_cpu: %u hardware threads, Tack %d threads, OpenMP %d threads, load "
        "average %s%s\n",
        std::thread::hardware_concurrency(), tack::runtime::cpu::resolve_thread_count(std::nullopt),
        bench::omp_threads(), b.load_before.c_str(), b.quick ? " (quick)" : "");

    const std::pair<const char*, std::function<void()>> steps[] = {
        {"compile", [&] { bench_compile(b, self_path(), cache_dir); }},
        {"codegen", [&] { bench_codegen(b, cache_dir); }},
        {"saxpy", [&] { bench_saxpy(b); }},
        {"triad", [&] { bench_triad(b); }},
        {"sum", [&] { bench_sum(b); }},
        {"mandelbrot", [&] { bench_mandelbrot(b); }},
        {"dispatch", [&] { bench_dispatch(b); }},
        {"crossover", [&] { bench_crossover(b); }},
    };
    int failures = 0;
    for (const auto& [name, fn] : steps) {
        if (!b.only.empty() && b.only.find("," + std::string(name) + ",") == std::string::npos) {
            continue;
        }
        std::fprintf(stderr, "[bench_cpu] %s...\n", name);
        try {
            fn();
        } catch (const std::exception& e) {
            ++failures;
            std::printf("  %s FAILED: %s\n", name, e.what());
            b.json.str(name, "error", "failed");
        }
    }
    print_table(b);
    write_json(b);
    fs::remove_all(cache_dir);
    // Slow numbers never fail (noisy machines); a failed step or a wrong result does.
    for (const Row& r : b.rows)
        failures += r.verified ? 0 : 1;
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_cpu: %s\n", e.what());
        return 2;
    }
}
