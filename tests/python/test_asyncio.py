"""asyncio (python/tack/_aio.py): `await tack.sync_async()` and `await field.numpy_async()` with a
real event loop. The loop keeps running while a queued device works (OpenCL on PoCL here), and
completes at once where launches complete before returning (the CPU)."""

import asyncio
import time

import numpy as np

import tack

from kernels_helpers import spin


@tack.kernel
def fill(x, v):
    for i in range(x.shape[0]):
        x[i] = v


def test_numpy_async_matches_to_numpy(backend):
    x = tack.zeros(tack.f32, 1000)
    fill(x, 2.5)

    async def main():
        await tack.sync_async()
        return await x.numpy_async()

    got = asyncio.run(main())
    np.testing.assert_array_equal(got, np.full(1000, 2.5, np.float32))
    np.testing.assert_array_equal(got, x.to_numpy())


def test_cpu_completes_at_once():
    # sync_async also waits for other live devices (the conftest keeps some), so the field's
    # own wait is the one that shows the CPU's.
    x = tack.zeros(tack.i32, 16)
    fill(x, 7)
    coro = x.numpy_async()
    try:
        coro.send(None)
    except StopIteration as done:
        result = done.value
    else:
        raise AssertionError("the coroutine suspended on the CPU")
    np.testing.assert_array_equal(result, np.full(16, 7, np.int32))


def _queued_backends():
    names = []
    for name in tack._tack._available_backends():
        try:
            tack.init(name)
        except (RuntimeError, OSError):
            continue
        x = tack.zeros(tack.f32, 1)
        if len(tack._tack._mark_field(x)):
            names.append(name)
    tack.init(tack.cpu)
    return names


def test_event_loop_runs_while_the_device_works():
    queued = _queued_backends()
    if not queued:
        import pytest

        pytest.skip("no queued GPU-style backend here")
    tack.init(queued[0])
    x = tack.zeros(tack.f32, 1 << 12)
    spin(x, 10)  # compile outside the measurement
    tack.sync()

    async def measure(wait):
        ticks = 0
        stop = False

        async def ticker():
            nonlocal ticks
            while not stop:
                ticks += 1
                await asyncio.sleep(0.001)

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        t0 = time.perf_counter()
        spin(x, 20000)
        await wait()
        elapsed = time.perf_counter() - t0
        stop = True
        await task
        return ticks, elapsed

    async def blocking():
        tack.sync()

    ticks, elapsed = asyncio.run(measure(tack.sync_async))
    blocked_ticks, _ = asyncio.run(measure(blocking))
    assert elapsed > 0.02, f"the kernel ran in {elapsed * 1e3:.1f} ms: too short to measure"
    assert ticks >= 5, f"{ticks} ticks during a {elapsed * 1e3:.0f} ms sync_async"
    assert blocked_ticks <= 2, f"{blocked_ticks} ticks under a blocking tack.sync()"
    assert np.all(x.to_numpy() > 0)
