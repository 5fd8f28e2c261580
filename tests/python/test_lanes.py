"""SIMD lanes on the CPU (codegen/llvm/lanes.hpp): W consecutive iterations run as the lanes of
one vectorized body. Every kernel here runs with lanes forced off and on (TACK_CPU_LANES, read
by each new CPU backend); results must be bit-identical, and they are checked against plain
Python or NumPy too. Sizes cover empty launches and remainders (n = 0, 1, W-1, W, W+1 for
each W the code generator picks: 8 to 64)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tack

from conftest import python_env

SIZES = (0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 50, 63, 64, 65, 130)
NP = {tack.i8: np.int8, tack.u8: np.uint8, tack.i16: np.int16, tack.u16: np.uint16,
      tack.i32: np.int32, tack.u32: np.uint32, tack.i64: np.int64, tack.u64: np.uint64,
      tack.f32: np.float32, tack.f64: np.float64}
TACK = {np.dtype(v): k for k, v in NP.items()}
INTS = list(NP)[:8]
TABLE = tack.constant((3, -1, 4, 1, -5))
RNG = np.random.default_rng(13)


def fields(*arrays):
    out = []
    for a in arrays:
        f = tack.field(TACK[a.dtype], a.shape)
        f.from_numpy(a)
        out.append(f)
    return out


@pytest.fixture(autouse=True)
def restore_lanes(monkeypatch):
    monkeypatch.setenv("TACK_CPU_LANES", "auto")  # undone after the test, as run_both's changes
    yield


def run_both(kernel, arrays, scalars=(), threads=None):
    """{False: [arrays], True: [arrays]}: `kernel(*fields(arrays), *scalars)` with lanes off
    and on, every array argument after the call."""
    result = {}
    for lanes in (False, True):
        os.environ["TACK_CPU_LANES"] = "1" if lanes else "0"
        tack.init("cpu", **({"num_threads": threads} if threads else {}))
        fs = fields(*[a.copy() for a in arrays])
        kernel(*fs, *scalars)
        result[lanes] = [f.to_numpy() for f in fs]
    return result


def same_bits(a, b):
    """Bit-identical; any NaN matches any NaN (x86 keeps one NaN operand's payload, by operand
    order, which instruction selection may commute)."""
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.uint8),
                                                               b[~nan].view(np.uint8))


def assert_same(result):
    for k, (s, v) in enumerate(zip(result[False], result[True])):
        assert same_bits(s, v), f"output {k}: scalar {s!r}\nlanes {v!r}"
    return result[True]


@tack.kernel
def _mandel(img, x0, y0, step, limit):
    for py, px in tack.ndrange(img.shape[0], img.shape[1]):
        cr = x0 + px * step
        ci = y0 + py * step
        zr = cr * 0.0
        zi = cr * 0.0
        n = 0
        while n < limit and zr * zr + zi * zi <= 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        img[py, px] = n


def mandel_reference(h, w, x0, y0, step, limit, t):
    x0, y0, step = t(x0), t(y0), t(step)
    img = np.zeros((h, w), np.int32)
    for py in range(h):
        for px in range(w):
            cr, ci = x0 + t(px) * step, y0 + t(py) * step
            zr = zi = t(0)
            n = 0
            while n < limit and zr * zr + zi * zi <= t(4):
                zr, zi = zr * zr - zi * zi + cr, t(2) * zr * zi + ci
                n += 1
            img[py, px] = n
    return img


@pytest.mark.parametrize("t", [np.float32, np.float64])
@pytest.mark.parametrize("w", [1, 15, 17, 33, 64, 65])
def test_mandelbrot_while_with_lane_varying_exit(t, w):
    h, limit = 9, 40
    x0, y0, step = t(-2.1), t(-1.2), t(2.5 / w)
    got = assert_same(run_both(_mandel, [np.zeros((h, w), np.int32)], (x0, y0, step, limit)))
    np.testing.assert_array_equal(got[0], mandel_reference(h, w, x0, y0, step, limit, t))


@tack.kernel
def _control(a, out, inner):
    for i in range(a.shape[0]):
        x = a[i]
        if x < 0:
            continue  # the parallel loop's continue: this lane is done
        acc = 0
        k = 0
        while k < inner:
            k += 1
            if (x + k) % 3 == 0:
                continue
            if x % 5 == 0 and k > 2:
                break
            for j in range(x % 4):
                if j == 2:
                    break
                if (j + x) % 2 == 1:
                    acc += 100
                else:
                    acc -= j * k
            acc += k
        out[i] = acc


def control_reference(a, inner):
    out = np.zeros(len(a), np.int32)
    for i, x in enumerate(int(v) for v in a):
        if x < 0:
            continue
        acc, k = 0, 0
        while k < inner:
            k += 1
            if (x + k) % 3 == 0:
                continue
            if x % 5 == 0 and k > 2:
                break
            for j in range(x % 4):
                if j == 2:
                    break
                acc += 100 if (j + x) % 2 == 1 else -j * k
            acc += k
        out[i] = acc
    return out


@pytest.mark.parametrize("n", SIZES)
def test_break_continue_nested_if_while_masks(n):
    a = RNG.integers(-5, 40, n).astype(np.int32)
    got = assert_same(run_both(_control, [a, np.zeros(n, np.int32)], (6,)))
    np.testing.assert_array_equal(got[1], control_reference(a, 6))


@tack.kernel
def _varying_for(a, out):
    for i in range(a.shape[0]):
        s = 0
        for j in range(a[i] % 7, 2 * (a[i] % 5), 1 + a[i] % 3):
            s += j
        for _ in range(a[i] % 4):
            s *= 3
        out[i] = s


@pytest.mark.parametrize("n", SIZES)
def test_for_with_lane_varying_bounds(n):
    a = RNG.integers(-20, 50, n).astype(np.int64)
    got = assert_same(run_both(_varying_for, [a, np.zeros(n, np.int64)]))
    want = []
    for x in (int(v) for v in a):
        s = sum(range(x % 7, 2 * (x % 5), 1 + x % 3))
        want.append(s * 3 ** (x % 4))
    np.testing.assert_array_equal(got[1], np.array(want, np.int64))


@tack.kernel
def _scatter_gather(x, idx, out, back, last, masked):
    for i in range(x.shape[0]):
        out[idx[i]] = x[i]  # duplicates: serial order, so the last iteration's value
        back[i] = x[idx[i]] + 1
        last[0] = x[i]  # one address for every lane
        if x[i] > 0.0:
            masked[idx[i] % 3] = i


@pytest.mark.parametrize("n", SIZES[1:])
def test_scatter_and_gather_with_duplicate_indices(n):
    # One thread: the serial order is then defined, and lanes must keep it.
    x = RNG.standard_normal(n).astype(np.float32)
    idx = RNG.integers(0, max(1, n // 3), n).astype(np.int64)
    arrays = [x, idx, np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(1, np.float32),
              np.full(3, -1, np.int64)]
    got = assert_same(run_both(_scatter_gather, arrays, threads=1))
    out, masked = np.zeros(n, np.float32), np.full(3, -1, np.int64)
    for i in range(n):
        out[idx[i]] = x[i]
        if x[i] > 0:
            masked[idx[i] % 3] = i
    np.testing.assert_array_equal(got[2], out)
    np.testing.assert_array_equal(got[3], x[idx] + np.float32(1))
    np.testing.assert_array_equal(got[4], x[-1:])
    np.testing.assert_array_equal(got[5], masked)


@tack.kernel
def _integer_ops(a, b, s, f, out):
    for i in range(a.shape[0]):
        for _ in range(1):  # a loop in the body: lanes would be chosen anyway
            out[i, 0] = a[i] // b[i]
            out[i, 1] = a[i] % b[i]
            out[i, 2] = a[i] << s[i]
            out[i, 3] = a[i] >> s[i]
            out[i, 4] = a[i] ** (s[i] % 9)
            out[i, 5] = min(a[i], b[i]) - max(a[i], b[i]) + abs(a[i])
            out[i, 6] = TABLE[s[i] % 7]
        out[i, 7] = f[i]  # saturating float -> int, NaN -> 0
        out[i, 8] = ~a[i] ^ (a[i] & b[i] | a[s[i] % a.shape[0]])


def int_samples(t, n):
    info = np.iinfo(t)
    special = [0, 1, -1, 2, 7, -7, info.min, info.max, info.max - 3, info.min + 1]
    special = [v for v in special if info.min <= v <= info.max]
    return np.array([special[k % len(special)] if k % 3 else int(RNG.integers(info.min, info.max,
                     dtype=np.int64 if info.min < 0 else np.uint64, endpoint=True))
                     for k in range(n)], t)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
def test_integer_semantics_every_dtype(dtype):
    t = np.dtype(NP[dtype])
    n = 61
    a, b = int_samples(t, n), int_samples(t, n)[::-1].copy()
    s = RNG.integers(-70, 70, n).astype(np.int32)
    f = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3.9, -3.9, 0.5] * 8, np.float64)[:n]
    got = assert_same(run_both(_integer_ops, [a, b, s, f, np.zeros((n, 9), t)]))[4]
    bits = t.itemsize * 8

    def wrap(v):  # modulo 2^bits, in the dtype's range
        v &= (1 << bits) - 1
        return v - (1 << bits) if t.kind == "i" and v >> (bits - 1) else v

    for i in range(n):
        x, y = int(a[i]), int(b[i])
        assert int(got[i, 0]) == (0 if y == 0 else wrap(x // y)), (x, y)
        assert int(got[i, 1]) == (0 if y == 0 else wrap(x % y)), (x, y)
        assert int(got[i, 2]) == wrap(x << (int(s[i]) % bits)), (x, int(s[i]))


@tack.kernel
def _float_ops(a, b, out):
    for i in range(a.shape[0]):
        for _ in range(1):
            x = a[i]
            y = b[i]
            out[i, 0] = x / y + sqrt(abs(x))  # noqa: F821
            out[i, 1] = x // y
            out[i, 2] = x % y
            out[i, 3] = min(x, y) * max(x, y)
            out[i, 4] = tan(x) + atan2(x, y)  # noqa: F821  (libm, one call per lane)
            out[i, 5] = round(x) + floor(y) + exp(x * 0.01)  # noqa: F821
            out[i, 6] = x ** 2.5 if x > 0.0 else y * x + 1.0
            out[i, 7] = tack.f32(tack.i32(x * 1e9))


@pytest.mark.parametrize("t", [np.float32, np.float64])
def test_float_results_bit_identical(t):
    special = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, 3.5, -2.25, 1e30, 7.0]
    n = 45
    a = np.array([special[k % 10] if k % 2 else RNG.uniform(-50, 50) for k in range(n)], t)
    b = np.array([special[(k * 3) % 10] if k % 3 else RNG.uniform(-5, 5) for k in range(n)], t)
    assert_same(run_both(_float_ops, [a, b, np.zeros((n, 8), t)]))


@tack.kernel
def _atomics(v, acc, old, fmax):
    for i in range(v.shape[0]):
        for _ in range(1):
            if v[i] % 4 != 0:
                old[i] = tack.atomic_add(acc, v[i] % 3, 1)
            tack.atomic_max(fmax, 0, tack.f32(v[i]) * 0.5)


@pytest.mark.parametrize("n", SIZES[1:])
def test_atomics_lane_by_lane_in_serial_order(n):
    v = RNG.integers(0, 100, n).astype(np.int32)
    arrays = [v, np.zeros(3, np.int32), np.full(n, -1, np.int32), np.zeros(1, np.float32)]
    got = assert_same(run_both(_atomics, arrays, threads=1))
    acc, old = [0, 0, 0], np.full(n, -1, np.int32)
    for i in range(n):
        if v[i] % 4:
            old[i] = acc[v[i] % 3]
            acc[v[i] % 3] += 1
    np.testing.assert_array_equal(got[1], acc)
    np.testing.assert_array_equal(got[2], old)
    assert got[3][0] == max(0.0, float(v.max()) * 0.5)


@tack.kernel
def _local_arrays(a, out):
    for i in range(a.shape[0]):
        h = tack.local_array(tack.i32, 8)
        for k in range(8):
            h[k] = k * a[i]
        if a[i] % 2 == 0:
            h[a[i] % 8] = -1  # a lane-varying index under a lane-varying condition
            g = tack.local_array(tack.i32, 4)  # zero-filled for the lanes that declare it
            g[1] = a[i]
            h[0] += g[1] + g[2]
        s = 0
        for k in range(8):
            s += h[k] * (k + 1)
        out[i] = s


@pytest.mark.parametrize("n", SIZES)
def test_local_arrays_per_lane(n):
    a = RNG.integers(-30, 30, n).astype(np.int32)
    got = assert_same(run_both(_local_arrays, [a, np.zeros(n, np.int32)]))
    want = []
    for x in (int(v) for v in a):
        h = [k * x for k in range(8)]
        if x % 2 == 0:
            h[x % 8] = -1
            h[0] += x
        want.append(sum(h[k] * (k + 1) for k in range(8)))
    np.testing.assert_array_equal(got[1], np.array(want, np.int32))


@tack.kernel
def _rows(u, v, c):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (2, u.shape[1] - 1)):
        s = u[i, j] * c
        for _ in range(2):
            s += u[i - 1, j] + u[i + 1, j] - u[i, j - 1] * u[i, j + 1]
        v[i, j] = s


@pytest.mark.parametrize("shape", [(3, 4), (5, 19), (4, 52), (6, 53)])
def test_ndrange_rows_with_starts(shape):
    u = RNG.standard_normal(shape).astype(np.float32)
    c = np.float32(0.7)
    got = assert_same(run_both(_rows, [u, np.zeros(shape, np.float32)], (c,)))[1]
    want = np.zeros(shape, np.float32)
    for i in range(1, shape[0] - 1):
        for j in range(2, shape[1] - 1):
            s = u[i, j] * c
            for _ in range(2):
                s = s + (u[i - 1, j] + u[i + 1, j] - u[i, j - 1] * u[i, j + 1])
            want[i, j] = s
    np.testing.assert_array_equal(got, want)


@tack.kernel
def _stepped(a, out, start, step):
    for i in range(start, a.shape[0], step):
        s = 0
        for k in range(3):
            s += a[i] * k + i
        out[i] = s


@pytest.mark.parametrize("start,step", [(0, 1), (3, 3), (1, 2), (5, 7), (200, 1)])
def test_parallel_loop_start_and_step(start, step):
    n = 101
    a = RNG.integers(-9, 9, n).astype(np.int64)
    got = assert_same(run_both(_stepped, [a, np.zeros(n, np.int64)], (start, step)))[1]
    want = np.zeros(n, np.int64)
    for i in range(start, n, step):
        want[i] = sum(int(a[i]) * k + i for k in range(3))
    np.testing.assert_array_equal(got, want)


@tack.kernel
def _nbody(pos, mass, acc):
    for i in range(pos.shape[0]):
        ax = 0.0
        ay = 0.0
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + 1e-3
            inv = mass[j] / (r2 * sqrt(r2))  # noqa: F821
            ax += dx * inv
            ay += dy * inv
        acc[i, 0] = ax
        acc[i, 1] = ay


@pytest.mark.parametrize("n", [1, 17, 100])
def test_reduction_in_order_is_bit_identical(n):
    pos = RNG.standard_normal((n, 2)).astype(np.float32)
    mass = RNG.random(n).astype(np.float32)
    got = assert_same(run_both(_nbody, [pos, mass, np.zeros((n, 2), np.float32)]))[2]
    want = np.zeros((n, 2), np.float32)
    for i in range(n):
        ax = ay = np.float32(0)
        for j in range(n):
            dx, dy = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + np.float32(1e-3)
            inv = mass[j] / (r2 * np.sqrt(r2))
            ax, ay = ax + dx * inv, ay + dy * inv
        want[i] = ax, ay
    np.testing.assert_array_equal(got, want)


@tack.kernel
def _spmv(rowptr, col, val, x, y):
    for i in range(y.shape[0]):
        s = 0.0
        for k in range(rowptr[i], rowptr[i + 1]):
            s += val[k] * x[col[k]]
        y[i] = s


@pytest.mark.parametrize("n", [1, 9, 70])
def test_csr_gathers_with_lane_varying_trip_counts(n):
    lens = RNG.integers(0, 12, n)
    rowptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    nnz = max(int(rowptr[-1]), 1)
    col = RNG.integers(0, n, nnz).astype(np.int64)
    val = RNG.standard_normal(nnz).astype(np.float32)
    x = RNG.standard_normal(n).astype(np.float32)
    got = assert_same(run_both(_spmv, [rowptr, col, val, x, np.zeros(n, np.float32)]))[4]
    want = np.zeros(n, np.float32)
    for i in range(n):
        s = np.float32(0)
        for k in range(rowptr[i], rowptr[i + 1]):
            s = s + val[k] * x[col[k]]
        want[i] = s
    np.testing.assert_array_equal(got, want)


@tack.kernel
def _printing(a):
    for i in range(a.shape[0]):
        for k in range(2):
            print("k", k, i)


def test_inspect_says_whether_lanes_run():
    img = tack.zeros(tack.i32, (4, 32))
    text = tack.inspect(_mandel, img, 0.0, 0.0, 0.1, 10, mode="optimized")
    assert re.match(r"; lanes: \d+ lanes of 4-byte elements", text), text.splitlines()[0]
    text = tack.inspect(_printing, tack.zeros(tack.f32, 4), mode="optimized")
    assert text.startswith("; lanes: none: print()"), text.splitlines()[0]
    # A gather per operation in the inner loop: lanes only when forced (TACK_CPU_LANES=1).
    rowptr, col = tack.zeros(tack.i64, 5), tack.zeros(tack.i64, 8)
    args = (rowptr, col, tack.zeros(tack.f32, 8), tack.zeros(tack.f32, 4), tack.zeros(tack.f32, 4))
    text = tack.inspect(_spmv, *args, mode="optimized")
    assert text.startswith("; lanes: none: gathers dominate its loops"), text.splitlines()[0]


def test_lanes_environment_variable_is_checked():
    code = "import tack; tack.init('cpu')"
    env = python_env()
    env["TACK_CPU_LANES"] = "sometimes"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "Unknown TACK_CPU_LANES 'sometimes'" in r.stderr, r.stderr
    env["TACK_CPU_LANES"] = "0"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

