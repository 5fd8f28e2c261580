"""What answering Ctrl-C costs (hardening round three, defect 10): a long CPU launch from Python
(chunked, the caller asking for signals between chunks) against the same launch through
_time_native_calls (no poll), and tack.sync() (an interruptible wait) against the blocking wait
(_sync_uninterruptible) on every other backend here. Ratios of medians, interleaved runs."""

import statistics
import sys
import time

import numpy as np

import tack


@tack.kernel
def work(x, y):
    for i in range(x.shape[0]):
        s = x[i]
        for _ in range(20):
            s = s * 0.999 + 0.5
        y[i] = s


@tack.kernel
def inc(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0


def cpu_launch(n, reps):
    tack.init("cpu")
    x = tack.field_like(np.random.default_rng(0).random(n, dtype=np.float32))
    y = tack.field(tack.f32, n)
    work(x, y)
    py, native = [], []
    for _ in range(reps):
        t = time.perf_counter()
        work(x, y)
        py.append(time.perf_counter() - t)
        native.append(min(tack._tack._time_native_calls(work, (x, y), 1)))
    a, b = statistics.median(py), statistics.median(native)
    print(f"cpu launch of {n:,}: interruptible {a * 1e3:.1f} ms, plain {b * 1e3:.1f} ms, "
          f"ratio {a / b:.3f}")


def device_sync(backend, n, reps, calls=300):
    tack.init(backend)
    x = tack.field(tack.f32, n)
    waits = {"interruptible": tack.sync, "blocking": tack._tack._sync_uninterruptible}
    for wait in waits.values():
        for _ in range(50):
            inc(x)
            wait()
    times = {k: [] for k in waits}
    for _ in range(reps):
        for k, wait in waits.items():
            t = time.perf_counter()
            for _ in range(calls):
                inc(x)
                wait()
            times[k].append((time.perf_counter() - t) / calls)
    a, b = (statistics.median(times[k]) for k in waits)
    print(f"{backend} launch + sync of {n:,}: interruptible {a * 1e6:.1f} us, "
          f"blocking {b * 1e6:.1f} us, ratio {a / b:.3f}")


def main():
    cpu_launch(400_000_000 if "--long" in sys.argv else 100_000_000, 5)
    for name in tack._tack._available_backends():
        if name == "cpu":
            continue
        try:
            for n in (4096, 1_000_000):
                device_sync(name, n, 9)
        except RuntimeError as e:  # a backend that does not start here
            print(f"{name}: skipped ({str(e).splitlines()[0]})")


if __name__ == "__main__":
    main()
