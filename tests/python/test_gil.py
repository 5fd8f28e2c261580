"""The GIL around kernel calls (python/bindings/kernels.cpp): kept across CPU launches that the
cost model predicts to finish on the calling thread within 50 µs (as Numba's @njit keeps it),
released for everything else: compiling, long launches, fan-outs to the pool. Other Python
threads keep running during a long kernel, and brief calls from several threads next to a long
one compute the right values and never deadlock. No timing is asserted: results, whether another
thread ran at all, and how many calls gave the GIL up (tack._tack._gil_releases). Only kernels
whose per-iteration work is fixed by the variant are predicted at all: a loop bounded by a
scalar argument, a while loop or a print releases on every call."""

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tack
from tack import _tack

from conftest import python_env
from kernels_helpers import spin


@tack.kernel
def axpy(x, y, z, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + z[i]


@tack.kernel
def row_sums(m, out):
    for i in range(m.shape[0]):
        acc = 0.0
        for j in range(m.shape[1]):  # bounded by an extent: the same work on every call
            acc += m[i, j]
        out[i] = acc


@tack.kernel
def noisy(x):
    for i in range(x.shape[0]):
        print("x", x[i])


@tack.kernel
def pairs(x, y, out):
    for i in range(x.shape[0]):
        acc = 0.0
        for j in range(y.shape[0]):  # both bounded by an extent: a fixed cost per iteration
            for k in range(y.shape[0]):
                acc = acc * 0.5 + x[i] * y[j] * y[k]
        out[i] = acc


def calibrated(make_call, n, grow, limit):
    """make_call(n) for the first n (multiplied by `grow`) whose call takes at least 0.2 s, so a
    call stays long however well the kernel vectorizes or the pool spreads it."""
    while True:
        call = make_call(n)
        call()  # compiles, and measures the variant
        start = time.perf_counter()
        call()
        if time.perf_counter() - start >= 0.2 or n * grow > limit:
            return call
        n *= grow


def long_spin():
    x = tack.zeros(tack.f32, 64)
    return calibrated(lambda n: lambda: spin(x, n), 1 << 20, 4, 1 << 34)


def long_pairs():
    x, out = tack.ones(tack.f32, 64), tack.zeros(tack.f32, 64)
    return calibrated(lambda n: (lambda y: lambda: pairs(x, y, out))(tack.ones(tack.f32, n)),
                      256, 2, 1 << 16)


class Counter:
    """A Python thread that counts while it holds the GIL."""

    def __init__(self):
        self.count = 0
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        self.started.set()
        while not self.stop.is_set():
            self.count += 1

    def __enter__(self):
        self.thread.start()
        self.started.wait()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


@pytest.fixture
def long_switch_interval():
    # The counting thread may only take the GIL when a call gives it up: without a forced switch
    # every 5 ms it cannot run between the reads around a call unless the call released it.
    saved = sys.getswitchinterval()
    sys.setswitchinterval(0.2)
    yield
    sys.setswitchinterval(saved)


@pytest.mark.parametrize("make_long", [long_spin, long_pairs], ids=["scalar-bounded", "fixed"])
def test_other_threads_run_during_long_kernels(long_switch_interval, make_long):
    call = make_long()  # measured and predicted long by now
    with Counter() as counter:
        for _ in range(3):
            before_releases = _tack._gil_releases()
            before = counter.count
            call()
            assert counter.count > before
            assert _tack._gil_releases() == before_releases + 1


def test_brief_launches_keep_the_gil():
    x, y, z = (tack.full(tack.f32, 1, v) for v in (1.0, 0.0, 3.0))
    for _ in range(5):  # compile, then a few measured calls
        axpy(x, y, z, 2.0)
    before = _tack._gil_releases()
    calls = 300
    for _ in range(calls):
        axpy(x, y, z, 2.0)
    # A loaded host can make a few early samples read long; most calls keep the GIL.
    assert _tack._gil_releases() - before < calls // 10
    assert y.to_numpy()[0] == 5.0


def test_fixed_cost_inner_loops_keep_the_gil():
    m = tack.field_like(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = tack.zeros(tack.f32, 3)
    for _ in range(5):
        row_sums(m, out)
    before = _tack._gil_releases()
    for _ in range(300):
        row_sums(m, out)
    assert _tack._gil_releases() - before < 30
    np.testing.assert_array_equal(out.to_numpy(), [6.0, 22.0, 38.0])


def test_value_dependent_or_printing_kernels_always_release(capfd):
    # A loop bounded by a scalar argument runs as long as the value asks, whatever earlier calls
    # measured; output may block on a pipe that a Python thread drains.
    x = tack.zeros(tack.f32, 1)
    for _ in range(3):
        spin(x, 10)
    before = _tack._gil_releases()
    for _ in range(20):
        spin(x, 10)
    assert _tack._gil_releases() - before == 20
    noisy(x)
    before = _tack._gil_releases()
    for _ in range(5):
        noisy(x)
    assert _tack._gil_releases() - before == 5
    assert capfd.readouterr().out.count("x ") == 6


def test_brief_calls_from_threads_next_to_a_long_one():
    errors = []
    results = {}

    def brief(k):
        try:
            x, y, z = (tack.full(tack.f32, 1, v) for v in (float(k), 0.0, 1.0))
            for i in range(2000):
                axpy(x, y, z, float(i % 7))
            results[k] = float(y.to_numpy()[0])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def long():
        try:
            x = tack.zeros(tack.f32, 64)
            for _ in range(2):
                spin(x, 1 << 22)
            results["long"] = float(x.to_numpy()[0])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=brief, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=long))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a kernel call deadlocked"
    assert not errors, errors
    for k in range(4):
        assert results[k] == np.float32(k) * np.float32(1999 % 7) + np.float32(1.0)
    assert results["long"] > 1.0


def test_one_thread_device_keeps_and_releases(tmp_path):
    # Without a pool every measured launch runs on the caller: brief ones keep the GIL, a long
    # one still gives it up.
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import sys, threading, time
        import tack
        from tack import _tack

        @tack.kernel
        def scale(x, a):
            for i in range(x.shape[0]):
                x[i] = a * x[i]

        x = tack.zeros(tack.f32, 1)
        for _ in range(5):
            scale(x, 2.0)
        r0 = _tack._gil_releases()
        for _ in range(200):
            scale(x, 2.0)
        brief = _tack._gil_releases() - r0

        @tack.kernel
        def pairs(x, y, out):
            for i in range(x.shape[0]):
                acc = 0.0
                for j in range(y.shape[0]):
                    for k in range(y.shape[0]):
                        acc = acc * 0.5 + x[i] * y[j] * y[k]
                out[i] = acc

        a, out = tack.ones(tack.f32, 16), tack.zeros(tack.f32, 16)
        n = 256
        while True:  # until one call takes 0.2 s: predicted long on one thread
            b = tack.ones(tack.f32, n)
            pairs(a, b, out)
            t0 = time.perf_counter()
            pairs(a, b, out)
            if time.perf_counter() - t0 >= 0.2 or n >= 1 << 16:
                break
            n *= 2
        sys.setswitchinterval(0.2)
        count = [0]
        stop = threading.Event()
        def run():
            while not stop.is_set():
                count[0] += 1
        t = threading.Thread(target=run, daemon=True)
        t.start()
        while count[0] == 0:
            time.sleep(0.001)
        r1 = _tack._gil_releases()
        c0 = count[0]
        pairs(a, b, out)
        ran = count[0] > c0
        stop.set()
        t.join()
        print(brief, _tack._gil_releases() - r1, ran)
    """))
    env = python_env()
    env["TACK_CPU_THREADS"] = "1"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    brief, long_releases, ran = r.stdout.split()
    assert int(brief) < 20
    assert long_releases == "1" and ran == "True"
