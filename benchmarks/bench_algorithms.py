"""tack.algorithms against NumPy, in one run, on every backend this build has (cpu, opencl):

  inclusive_scan  2^26 i32 -> i32   vs np.cumsum(out=) and vs a two-pass parallel NumPy scan
                                    (per-chunk np.add.reduce, scan of the chunk totals,
                                    per-chunk np.cumsum + offset, chunks on a thread pool:
                                    NumPy releases the GIL in these loops). Numba is not
                                    installed, so this is the best-effort parallel baseline.
  argsort         2^24 u32 (full range)  vs np.argsort(kind="stable")
  sum, dot        2^24 f32          vs ndarray.sum, np.dot (Field.sum() is the core's reduction)
  histogram       2^24 f32, 64 bins vs np.histogram (counts read back to the host)

Times are warm medians (the first call, which compiles, is left out); every timed Tack call
ends with its result on the host or a tack.sync(). Ratios > 1 mean Tack is faster.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_algorithms.py [--quick] [--backend cpu]
"""

import argparse
import concurrent.futures
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


def median_time(call, repeats):
    call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


class NumpyTwoPassScan:
    """Inclusive scan of a NumPy array in chunks on a thread pool (the parallel baseline)."""

    def __init__(self, threads):
        self.pool = concurrent.futures.ThreadPoolExecutor(threads)
        self.threads = threads

    def __call__(self, src, dst):
        bounds = np.linspace(0, src.size, self.threads * 4 + 1).astype(np.int64)
        spans = list(zip(bounds[:-1], bounds[1:]))
        totals = list(self.pool.map(lambda s: np.add.reduce(src[s[0] : s[1]]), spans))
        offsets = np.concatenate(([0], np.cumsum(totals[:-1]))).astype(src.dtype)

        def rescan(k):
            lo, hi = spans[k]
            np.cumsum(src[lo:hi], out=dst[lo:hi])
            dst[lo:hi] += offsets[k]

        list(self.pool.map(rescan, range(len(spans))))


def bench_backend(name, repeats, sizes):
    tack.init(name)
    rng = np.random.default_rng(1)
    rows = []

    n = sizes["scan"]
    a = rng.integers(0, 100, size=n, dtype=np.int32)
    src, dst = tack.field(tack.i32, (n,)), tack.field(tack.i32, (n,))
    src.from_numpy(a)
    out = np.empty_like(a)
    t_tack = median_time(lambda: algorithms.inclusive_scan(src, dst, n), repeats)
    assert np.array_equal(dst.to_numpy(), np.cumsum(a, dtype=np.int32))
    t_np = median_time(lambda: np.cumsum(a, out=out), repeats)
    two_pass = NumpyTwoPassScan(os.cpu_count())
    t_2p = median_time(lambda: two_pass(a, out), repeats)
    assert np.array_equal(out, np.cumsum(a, dtype=np.int32))
    rows.append((f"inclusive_scan 2^{n.bit_length() - 1} i32", t_tack, "np.cumsum", t_np))
    rows.append(("", t_tack, "NumPy two-pass threads", t_2p))

    n = sizes["sort"]
    keys = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    kf = tack.field(tack.u32, (n,))
    kf.from_numpy(keys)

    def tack_argsort():
        algorithms.argsort(kf)
        tack.sync()

    t_tack = median_time(tack_argsort, max(3, repeats // 3))
    perm = algorithms.argsort(kf).to_numpy()
    t_np = median_time(lambda: np.argsort(keys, kind="stable"), max(3, repeats // 3))
    assert np.array_equal(perm, np.argsort(keys, kind="stable"))
    rows.append((f"argsort 2^{n.bit_length() - 1} u32", t_tack, "np.argsort stable", t_np))

    n = sizes["reduce"]
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    xf, yf = tack.field(tack.f32, (n,)), tack.field(tack.f32, (n,))
    xf.from_numpy(x)
    yf.from_numpy(y)
    label = f"2^{n.bit_length() - 1} f32"
    rows.append((f"Field.sum {label}", median_time(xf.sum, repeats), "ndarray.sum",
                 median_time(x.sum, repeats)))
    rows.append((f"dot {label}", median_time(lambda: algorithms.dot(xf, yf), repeats),
                 "np.dot", median_time(lambda: np.dot(x, y), repeats)))

    def tack_hist():
        counts, _ = algorithms.histogram(xf, bins=64, range=(-4.0, 4.0))
        return counts.to_numpy()

    rows.append((f"histogram 64 bins {label}", median_time(tack_hist, repeats),
                 "np.histogram",
                 median_time(lambda: np.histogram(x, bins=64, range=(-4.0, 4.0)), repeats)))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--backend", action="append", help="cpu, opencl, ... (default: all)")
    args = parser.parse_args()
    sizes = {"scan": 1 << 26, "sort": 1 << 24, "reduce": 1 << 24}
    if args.quick:
        sizes = {k: v >> 4 for k, v in sizes.items()}
    repeats = 5 if args.quick else 11
    names = args.backend or tack._tack._available_backends()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    for name in names:
        try:
            rows = bench_backend(name, repeats, sizes)
        except RuntimeError as e:
            print(f"{name}: unavailable ({str(e).splitlines()[0][:100]})")
            continue
        print(f"\n{name}")
        print(f"  {'tack':34} {'ms':>9}   {'baseline':24} {'ms':>9}  ratio")
        for what, t, base, tb in rows:
            print(f"  {what:34} {t * 1e3:9.2f}   {base:24} {tb * 1e3:9.2f}  {tb / t:5.2f}x")


if __name__ == "__main__":
    main()
