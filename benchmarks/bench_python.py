"""Issue 4's Python benchmark, in one run (CPU backend):

  (a) launch overhead: a 1-element kernel with 4 arguments called from Python, median per call,
      next to NVIDIA Warp (CPU device) and Numba (@njit) doing the same, with the ratios;
  (b) saxpy f32 n = 2^24 called from Python vs the same kernel called natively from C++
      (tack._tack._time_native_calls: the C++ call path timed in a C++ loop), ratio;
  (c) first call of a new kernel (compile, cold disk cache, new process), first call in a new
      process with a warm disk cache, and `import tack` (wall and CPU, new process);
  (d) a kernel called after 0.2-1 ms of other Python work against back to back, and the CPU
      the thread pool's spin costs;
  (e) Field.fill's bandwidth against the copy kernel's and NumPy's in the same run.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_python.py [--quick]

Warp (`warp-lang`) and Numba are optional: a missing peer is skipped with a note.
"""

import contextlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tack  # noqa: E402

QUICK = "--quick" in sys.argv


# --- (a) launch overhead --------------------------------------------------------------------


@tack.kernel
def tack_k4(x, y, z, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + z[i]


def per_call_median(call, batch=1000, batches=101):
    """Median over batches of the mean seconds per call (a batch amortizes the timer)."""
    for _ in range(batch):
        call()
    samples = []
    for _ in range(batches if not QUICK else 21):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def tack_launch(scalar=2.0):
    tack.init(tack.cpu)
    x, y, z = (tack.field(tack.f32, 1) for _ in range(3))
    return per_call_median(lambda: tack_k4(x, y, z, scalar))


@contextlib.contextmanager
def silenced():
    """Redirects file descriptors 1 and 2 (peers print from C while they initialize)."""
    sys.stdout.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        sys.stdout.flush()
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def warp_launch():
    try:
        with silenced():
            import warp as wp

            wp.config.quiet = True
            wp.init()
    except ImportError:
        return None, "warp-lang not installed"

    @wp.kernel
    def warp_k4(
        x: wp.array(dtype=wp.float32),
        y: wp.array(dtype=wp.float32),
        z: wp.array(dtype=wp.float32),
        a: wp.float32,
    ):
        i = wp.tid()
        y[i] = a * x[i] + z[i]

    x, y, z = (wp.zeros(1, dtype=wp.float32, device="cpu") for _ in range(3))
    a = 2.0

    def call():
        wp.launch(warp_k4, dim=1, inputs=[x, y, z, a], device="cpu")

    with silenced():  # the first launch compiles (or loads Warp's kernel cache)
        call()
        wp.synchronize()
    return per_call_median(call), f"Warp {wp.config.version}, device cpu, wp.launch"


def numba_launch():
    try:
        import numba
    except ImportError:
        return None, "numba not installed"

    @numba.njit
    def numba_k4(x, y, z, a):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + z[i]

    x, y, z = (np.zeros(1, np.float32) for _ in range(3))
    a = np.float32(2.0)
    return per_call_median(lambda: numba_k4(x, y, z, a)), f"Numba {numba.__version__}, @njit"


def bench_launch():
    print("(a) launch overhead: 1-element kernel, 4 arguments (3 f32 arrays + f32), median/call")
    t_tack = tack_launch()
    print(f"    tack   {t_tack * 1e6:8.3f} us   (target <= 2 us)")
    # A NumPy scalar argument, read by the binding like a Python number (issue 25).
    for scalar in (np.float32(2.0), np.float64(2.0), np.int64(2)):
        t = tack_launch(scalar)
        print(f"    tack, np.{type(scalar).__name__:8s} {t * 1e6:8.3f} us   "
              f"/ Python float = {t / t_tack:.3f}   (target <= 1.1)")
    for name, fn in (("warp", warp_launch), ("numba", numba_launch)):
        t, note = fn()
        if t is None:
            print(f"    {name:6s} skipped: {note}")
            continue
        print(f"    {name:6s} {t * 1e6:8.3f} us   tack/{name} = {t_tack / t:.3f}   ({note})")
    return t_tack


# --- (b) saxpy from Python vs from C++ ------------------------------------------------------


@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


def bench_saxpy():
    n = 1 << 24
    print(f"(b) saxpy f32 n = 2^24 ({n}), median per call")
    tack.init(tack.cpu)
    rng = np.random.default_rng(0)
    x = tack.field_like(rng.random(n, dtype=np.float32))
    y = tack.field_like(rng.random(n, dtype=np.float32))
    saxpy(x, y, 1.0001)  # compile
    py, native = [], []
    for _ in range(30 if QUICK else 100):  # alternating calls: both see the same machine state
        start = time.perf_counter()
        saxpy(x, y, 1.0001)
        py.append(time.perf_counter() - start)
        native += tack._tack._time_native_calls(saxpy, (x, y, 1.0001), 1)
    t_py, t_cpp = statistics.median(py), statistics.median(native)
    gbs = 3 * 4 * n / t_py / 1e9
    print(f"    Python {t_py * 1e3:8.3f} ms  ({gbs:.1f} GB/s)")
    print(f"    C++    {t_cpp * 1e3:8.3f} ms")
    print(f"    Python/C++ = {t_py / t_cpp:.3f}   (target within 5%)")
    return t_py / t_cpp


# --- (c) compile, warm disk cache, import ---------------------------------------------------

FIRST_CALL = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import tack
t1, c1 = time.perf_counter(), time.process_time()

@tack.kernel
def fresh_kernel_{tag}(x, y, a):
    for i in range(x.shape[0]):
        v = a * x[i] * x[i] + y[i]
        if v > 3.0:
            v = v - 1.5
        y[i] = v

x, y = tack.ones(tack.f32, 4096), tack.ones(tack.f32, 4096)
t = time.perf_counter()
fresh_kernel_{tag}(x, y, 2.0)
first = time.perf_counter() - t
t = time.perf_counter()
fresh_kernel_{tag}(x, y, 2.0)
second = time.perf_counter() - t
print(json.dumps(dict(import_wall=t1 - t0, import_cpu=c1 - c0, first=first, second=second)))
"""


def run_child(script, work_dir):
    env = dict(os.environ, TACK_CACHE_DIR=str(pathlib.Path(work_dir) / "cache"))
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    path = pathlib.Path(work_dir) / "first_call.py"  # kernels need a source file
    path.write_text(script)
    out = subprocess.run(
        [sys.executable, str(path)], env=env, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def bench_first_calls():
    print("(c) first calls and import (each in a new process)")
    runs = 3 if QUICK else 5
    cold, warm, imports = [], [], []
    for r in range(runs):
        with tempfile.TemporaryDirectory(prefix="tack-bench-cache-") as cache:
            script = FIRST_CALL.format(tag=f"{os.getpid()}_{r}")
            c = run_child(script, cache)  # empty cache: parse, lower, LLVM O3, JIT
            w = run_child(script, cache)  # the same kernel, its object code on disk
        cold.append(c["first"])
        warm.append(w["first"])
        imports += [(c["import_wall"], c["import_cpu"]), (w["import_wall"], w["import_cpu"])]
    med = statistics.median
    print(f"    first call, new kernel, cold disk cache  {med(cold) * 1e3:8.2f} ms")
    print(
        f"    first call, new process, warm disk cache {med(warm) * 1e3:8.2f} ms   "
        f"(cold/warm = {med(cold) / med(warm):.1f}x)"
    )
    print(
        f"    import tack  wall {med(w for w, _ in imports) * 1e3:6.2f} ms   "
        f"CPU {med(c for _, c in imports) * 1e3:6.2f} ms"
    )


# --- (d) a launch after a gap of other Python work -----------------------------------------


@tack.kernel
def gap_kernel(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i] * 0.5


def bench_gaps():
    """A ~50 us kernel called back to back, then after 0.2, 0.5 and 1 ms of Python work: the
    thread pool's workers spin through gaps like the recent ones (issue 25), and the process's
    CPU time per wall second shows what the spin costs."""
    print("(d) a 2^19-element kernel after a gap of Python work, median per call")
    tack.init(tack.cpu)
    n = 1 << 19
    x = tack.field_like(np.random.default_rng(0).random(n, dtype=np.float32))
    y = tack.field(tack.f32, n)
    for _ in range(50):
        gap_kernel(x, y, 1.5)

    def timed(gap, reps=100 if QUICK else 400):
        times = []
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(reps):
            until = time.perf_counter() + gap
            while time.perf_counter() < until:
                pass
            t0 = time.perf_counter()
            gap_kernel(x, y, 1.5)
            times.append(time.perf_counter() - t0)
        cpu = (time.process_time() - c0) / (time.perf_counter() - w0)
        return statistics.median(times), cpu

    rounds = {g: [] for g in (0.0, 0.0002, 0.0005, 0.001)}
    for _ in range(1 if QUICK else 3):  # the gaps take turns, so a drift falls on all alike
        for g in rounds:
            rounds[g].append(timed(g))
    base = statistics.median(t for t, _ in rounds[0.0])
    for g, v in rounds.items():
        t = statistics.median(a for a, _ in v)
        cpu = statistics.median(c for _, c in v)
        print(f"    gap {g * 1e3:3.1f} ms: {t * 1e6:7.1f} us  / back to back = {t / base:.3f}"
              f"  (target <= 1.1)  process CPU per wall second {cpu:.2f}")


# --- (e) a fill against a copy's bandwidth ------------------------------------------------


@tack.kernel
def copy_kernel(src, dst):
    for i in range(src.shape[0]):
        dst[i] = src[i]


def bench_fill():
    """Field.fill of 2^24 f32 (the pool's chunks, streaming stores) against the copy kernel and
    NumPy's copy in the same run, in bytes moved per second (issue 25: fill >= 0.9x copy)."""
    print("(e) fill f32 2^24 against copy bandwidth, median per call")
    tack.init(tack.cpu)
    n = 1 << 24
    f, src, dst = tack.field(tack.f32, n), tack.field_like(np.ones(n, np.float32)), tack.field(
        tack.f32, n)
    a, b = np.empty(n, np.float32), np.ones(n, np.float32)

    def rate(fn, nbytes, reps=5 if QUICK else 15):
        fn()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            tack.sync()
            times.append(time.perf_counter() - t0)
        return nbytes / statistics.median(times) / 1e9

    fill, copy, np_copy = [], [], []
    for _ in range(1 if QUICK else 5):
        fill.append(rate(lambda: f.fill(2.5), 4 * n))
        copy.append(rate(lambda: copy_kernel(src, dst), 8 * n))
        np_copy.append(rate(lambda: np.copyto(a, b), 8 * n))
    fill_gbs, best = statistics.median(fill), max(statistics.median(copy),
                                                 statistics.median(np_copy))
    print(f"    fill {fill_gbs:6.1f} GB/s   tack copy {statistics.median(copy):6.1f} GB/s   "
          f"NumPy copy {statistics.median(np_copy):6.1f} GB/s   fill / best copy = "
          f"{fill_gbs / best:.3f}   (target >= 0.9)")


def main():
    print(
        f"tack {tack.__version__}, Python {sys.version.split()[0]}, NumPy {np.__version__}, "
        f"{os.cpu_count()} CPUs"
    )
    bench_launch()
    bench_saxpy()
    bench_first_calls()
    bench_gaps()
    bench_fill()


if __name__ == "__main__":
    main()
