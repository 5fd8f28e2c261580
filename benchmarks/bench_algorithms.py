"""tack.algorithms against NumPy and hand-written C++ OpenMP, in one run, on every backend this
build has (cpu, opencl). Issue 10's targets are printed next to each ratio (never asserted:
the machines are shared and noisy).

  inclusive_scan 2^26 i32   vs the fastest of three copies of the array (np.copyto, Tack's copy
                            kernel, OpenMP memcpy slices: the roofline, as a scan reads and
                            writes every element once), a two-pass OpenMP scan (target >= 0.7x),
                            np.cumsum(a) (its default int64 result; target >= 3x) and
                            np.cumsum(a, out=o) (an i32 result, as Tack's)
  argsort 2^24 u32 keys     vs np.argsort(kind="stable") (target >= 1.0x) and an OpenMP LSD radix
                            argsort with 8-bit and 11-bit digits (target >= 0.5x of the faster)
  sum, dot 2^24 f32         vs ndarray.sum / np.dot and OpenMP reductions (target >= 0.8x)
  histogram 2^24 f32        vs np.histogram and OpenMP per-thread counts (target >= 0.8x)

The C++ baselines are benchmarks/bench_algorithms_baselines.cpp, a shared library built by
CMake (target bench_algorithms_baselines, -O3 -march=native -fopenmp) and loaded with ctypes;
they run on as many threads as Tack's CPU backend. Every result, Tack's and the baselines', is
checked against NumPy before it is timed. Times are medians of warm calls (the first call,
which compiles, is left out), each Tack call ending with its result on the host or a
tack.sync(); the calls of one comparison take turns in rounds (see `timed`), so both sides
see the same machine load.
Ratios > 1 mean Tack is faster.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_algorithms.py [--quick]
        [--backend cpu] [--baselines build/benchmarks/libbench_algorithms_baselines.so]
"""

import argparse
import ctypes
import os
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tack  # noqa: E402
from tack import algorithms  # noqa: E402

LIBRARY = "libbench_algorithms_baselines.so"
SEARCH = ["build-release/benchmarks", "build/benchmarks"]


def timed(calls, rounds, per_round=3):
    """Median seconds of each call. The calls take turns in rounds, each round running one call
    per_round + 1 times back to back and keeping all but the first: every library is timed in
    its steady state (its threads awake, as in a loop of calls), after a call that absorbs the
    switch from the other's threads, and both see the same changes of machine load."""
    for call in calls:
        call()  # compiles, allocates
    samples = [[] for _ in calls]
    for _ in range(rounds):
        for call, s in zip(calls, samples):
            call()
            for _ in range(per_round):
                start = time.perf_counter()
                call()
                s.append(time.perf_counter() - start)
    return [statistics.median(s) for s in samples]


class Baselines:
    """The OpenMP functions of bench_algorithms_baselines.cpp over NumPy arrays."""

    def __init__(self, path, threads):
        os.environ["OMP_NUM_THREADS"] = str(threads)  # read when libgomp starts
        self.lib = lib = ctypes.CDLL(str(path))
        p, i64, f32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float
        lib.algos_threads.restype = ctypes.c_int
        lib.algos_sum_f32.restype = f32
        lib.algos_dot_f32.restype = f32
        lib.algos_copy_i32.argtypes = [p, p, i64]
        lib.algos_scan_two_pass_i32.argtypes = [p, p, i64]
        lib.algos_argsort_u32.argtypes = [p, p, i64, ctypes.c_int]
        lib.algos_sum_f32.argtypes = [p, i64]
        lib.algos_dot_f32.argtypes = [p, p, i64]
        lib.algos_histogram_f32.argtypes = [p, i64, f32, f32, ctypes.c_int32, p]
        self.threads = lib.algos_threads()

    def copy(self, a, out):
        self.lib.algos_copy_i32(a.ctypes.data, out.ctypes.data, a.size)

    def scan(self, a, out):
        self.lib.algos_scan_two_pass_i32(a.ctypes.data, out.ctypes.data, a.size)

    def argsort(self, keys, perm, bits):
        self.lib.algos_argsort_u32(keys.ctypes.data, perm.ctypes.data, keys.size, bits)

    def sum(self, x):
        return self.lib.algos_sum_f32(x.ctypes.data, x.size)

    def dot(self, x, y):
        return self.lib.algos_dot_f32(x.ctypes.data, y.ctypes.data, x.size)

    def histogram(self, x, lo, inv_width, counts):
        self.lib.algos_histogram_f32(x.ctypes.data, x.size, lo, inv_width, counts.size,
                                     counts.ctypes.data)


def find_baselines(path):
    if path:
        return pathlib.Path(path)
    for folder in SEARCH:
        candidate = ROOT / folder / LIBRARY
        if candidate.exists():
            return candidate
    return None


class Table:
    def __init__(self):
        self.rows = []

    def add(self, what, t_tack, base, t_base, target=None):
        self.rows.append((what, t_tack, base, t_base, target))

    def print(self):
        print(f"  {'tack':28} {'ms':>8}   {'baseline':34} {'ms':>8}   ratio  target")
        for what, t, base, tb, target in self.rows:
            ratio = tb / t
            mark = ""
            if target is not None:
                mark = f">= {target:.1f} {'met' if ratio >= target else 'MISSED'}"
            print(f"  {what:28} {t * 1e3:8.2f}   {base:34} {tb * 1e3:8.2f}  {ratio:5.2f}x  {mark}")


def bench_scan(table, sizes, repeats, omp):
    n = sizes["scan"]
    rng = np.random.default_rng(1)
    a = rng.integers(0, 100, size=n, dtype=np.int32)
    want = np.cumsum(a, dtype=np.int32)
    src, dst = tack.field(tack.i32, (n,)), tack.field(tack.i32, (n,))
    src.from_numpy(a)
    algorithms.inclusive_scan(src, dst, n)
    assert np.array_equal(dst.to_numpy(), want)
    out = np.empty_like(a)

    def tack_copy():
        algorithms.copy(src, dst, n)
        tack.sync()

    # The roofline is the fastest of three copies: a scan reads and writes each element once.
    copies = {"np.copyto": lambda: np.copyto(out, a), "tack.algorithms.copy": tack_copy}
    if omp:
        copies[f"OpenMP memcpy, {omp.threads} threads"] = lambda: omp.copy(a, out)
    calls = [lambda: algorithms.inclusive_scan(src, dst, n), lambda: np.cumsum(a, out=out),
             lambda: np.cumsum(a), *copies.values()]
    if omp:
        omp.scan(a, out)
        assert np.array_equal(out, want)
        calls.append(lambda: omp.scan(a, out))
    for name, copy in copies.items():
        out.fill(0)
        dst.fill(0)
        copy()
        assert np.array_equal(dst.to_numpy() if copy is tack_copy else out, a), name
    t = timed(calls, rounds=repeats)
    copy_times = dict(zip(copies, t[3:3 + len(copies)]))
    fastest = min(copy_times, key=copy_times.get)
    what = f"inclusive_scan 2^{n.bit_length() - 1} i32"
    table.add(what, t[0], f"roofline: {fastest}", copy_times[fastest])
    if omp:
        table.add("", t[0], "OpenMP two-pass scan", t[-1], 0.7)
    table.add("", t[0], "np.cumsum(a) (int64 result)", t[2], 3.0)
    table.add("", t[0], "np.cumsum(a, out=i32)", t[1])


def bench_argsort(table, sizes, repeats, omp):
    n = sizes["sort"]
    rng = np.random.default_rng(2)
    keys = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    want = np.argsort(keys, kind="stable")
    kf = tack.field(tack.u32, (n,))
    kf.from_numpy(keys)
    assert np.array_equal(algorithms.argsort(kf).to_numpy(), want)

    def tack_argsort():
        algorithms.argsort(kf)
        tack.sync()

    perm = np.empty(n, np.int32)
    calls = [tack_argsort, lambda: np.argsort(keys, kind="stable")]
    if omp:
        for bits in (8, 11):
            perm.fill(-1)
            omp.argsort(keys, perm, bits)
            assert np.array_equal(perm, want)
        calls += [lambda: omp.argsort(keys, perm, 8), lambda: omp.argsort(keys, perm, 11)]
    t = timed(calls, rounds=max(2, repeats - 1), per_round=1)
    table.add(f"argsort 2^{n.bit_length() - 1} u32", t[0], "np.argsort(kind='stable')", t[1], 1.0)
    if omp:
        best = min(t[2], t[3])
        table.add("", t[0], "OpenMP LSD radix, 8-bit digits", t[2], 0.5 if t[2] == best else None)
        table.add("", t[0], "OpenMP LSD radix, 11-bit digits", t[3], 0.5 if t[3] == best else None)


def bench_reductions(table, sizes, repeats, omp):
    n = sizes["reduce"]
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    xf, yf = tack.field(tack.f32, (n,)), tack.field(tack.f32, (n,))
    xf.from_numpy(x)
    yf.from_numpy(y)
    label = f"2^{n.bit_length() - 1} f32"
    exact_sum, exact_dot = x.astype(np.float64).sum(), np.dot(x.astype(np.float64), y)
    tol = 1e-3 * np.abs(x).sum()
    assert abs(xf.sum() - exact_sum) < tol and abs(algorithms.dot(xf, yf) - exact_dot) < tol
    if omp:
        assert abs(omp.sum(x) - exact_sum) < tol and abs(omp.dot(x, y) - exact_dot) < tol

    calls = [xf.sum, x.sum] + ([lambda: omp.sum(x)] if omp else [])
    t = timed(calls, rounds=repeats)
    table.add(f"Field.sum {label}", t[0], "ndarray.sum", t[1])
    if omp:
        table.add("", t[0], "OpenMP simd reduction", t[2], 0.8)

    calls = [lambda: algorithms.dot(xf, yf), lambda: np.dot(x, y)]
    calls += [lambda: omp.dot(x, y)] if omp else []
    t = timed(calls, rounds=repeats)
    table.add(f"dot {label}", t[0], "np.dot", t[1])
    if omp:
        table.add("", t[0], "OpenMP simd reduction", t[2], 0.8)

    bins, lo, hi = 64, -4.0, 4.0

    def tack_hist():
        counts, _ = algorithms.histogram(xf, bins=bins, range=(lo, hi))
        return counts.to_numpy()

    want = np.histogram(np.clip(x, lo, hi), bins=bins, range=(lo, hi))[0]
    # Tack bins in f32, NumPy in f64: a value within an ulp of an edge may land on either side.
    assert np.abs(tack_hist() - want).sum() <= n * 1e-5
    omp_counts = np.zeros(bins, np.int32)
    inv_width = np.float32(1.0 / ((hi - lo) / bins))
    calls = [tack_hist, lambda: np.histogram(x, bins=bins, range=(lo, hi))]
    if omp:
        omp.histogram(x, np.float32(lo), inv_width, omp_counts)
        assert np.array_equal(omp_counts, tack_hist())  # the same binning rule
        calls.append(lambda: omp.histogram(x, np.float32(lo), inv_width, omp_counts))
    t = timed(calls, rounds=repeats)
    table.add(f"histogram {bins} bins {label}", t[0], "np.histogram", t[1])
    if omp:
        table.add("", t[0], "OpenMP per-thread counts", t[2], 0.8)


def bench_backend(name, repeats, sizes, omp):
    tack.init(name)
    table = Table()
    bench_scan(table, sizes, repeats, omp)
    bench_argsort(table, sizes, repeats, omp)
    bench_reductions(table, sizes, repeats, omp)
    return table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--backend", action="append", help="cpu, opencl, ... (default: all)")
    parser.add_argument("--baselines", help=f"path of {LIBRARY} (default: searched in "
                        f"{', '.join(SEARCH)})")
    args = parser.parse_args()
    sizes = {"scan": 1 << 26, "sort": 1 << 24, "reduce": 1 << 24}
    if args.quick:
        sizes = {k: v >> 4 for k, v in sizes.items()}
    repeats = 2 if args.quick else 4  # rounds
    names = args.backend or tack._tack._available_backends()
    tack.init("cpu")
    path = find_baselines(args.baselines)
    omp = Baselines(path, tack._tack._host_threads()) if path else None
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, "
          f"Tack CPU threads: {tack._tack._host_threads()}")
    if omp:
        print(f"C++ baselines: {path} ({omp.threads} OpenMP threads)")
    else:
        print(f"C++ baselines: {LIBRARY} not found (build the bench_algorithms_baselines target "
              "or pass --baselines); NumPy only")
    for name in names:
        try:
            table = bench_backend(name, repeats, sizes, omp)
        except RuntimeError as e:
            print(f"\n{name}: unavailable ({str(e).splitlines()[0][:100]})")
            continue
        print(f"\n{name}")
        table.print()
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
