"""Statistics: var, std, norm, absmax, count_nonzero, dot, histogram (docs/spec/contract.md#c31).

Each is a Tack kernel over chunks: a chunk forms its partial result serially (eight
independent f32 accumulators, so the adds pipeline), then combines it into a one-element
accumulator with tack.atomic_add / tack.atomic_max. The accumulators are f32 (i32 for counts)
whatever the input dtype: each term is computed in the input's type (integer products wrap),
rounded to f32 and added. Chunks are combined in arrival order, so float results can change in
their low bits from run to run; counts and maxima are exact.
"""

import math

import numpy as np

import tack

from . import _common
from .copy import copy as _copy

_MIN_CHUNK = 4096
_MAX_CHUNKS = 16384  # as for the scans: many chunks cost a CPU nothing and feed a GPU

# _term's kinds are literals at every call of _chunk_sum, so inlining folds the branches away:
# 0 x*x, 1 |x|, 2 a*b, 3 (x - mean)^2.


@tack.func
def _term(a, b, i, kind, mean):
    t = 0.0
    if kind == 0:
        x = a[i]
        t = tack.f32(x * x)
    elif kind == 1:
        t = abs(tack.f32(a[i]))
    elif kind == 2:
        t = tack.f32(a[i] * b[i])
    else:
        d = a[i] - mean
        t = tack.f32(d * d)
    return t


@tack.func
def _chunk_sum(a, b, kind, mean, start, end):
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    s4 = 0.0
    s5 = 0.0
    s6 = 0.0
    s7 = 0.0
    j = start
    while j + 8 <= end:
        s0 = s0 + _term(a, b, j, kind, mean)
        s1 = s1 + _term(a, b, j + 1, kind, mean)
        s2 = s2 + _term(a, b, j + 2, kind, mean)
        s3 = s3 + _term(a, b, j + 3, kind, mean)
        s4 = s4 + _term(a, b, j + 4, kind, mean)
        s5 = s5 + _term(a, b, j + 5, kind, mean)
        s6 = s6 + _term(a, b, j + 6, kind, mean)
        s7 = s7 + _term(a, b, j + 7, kind, mean)
        j += 8
    while j < end:
        s0 = s0 + _term(a, b, j, kind, mean)
        j += 1
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@tack.kernel
def _sum_squares(a, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        tack.atomic_add(acc, 0, _chunk_sum(a, a, 0, 0.0, start, min(start + chunk, n)))


@tack.kernel
def _sum_abs(a, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        tack.atomic_add(acc, 0, _chunk_sum(a, a, 1, 0.0, start, min(start + chunk, n)))


@tack.kernel
def _sum_products(a, b, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        tack.atomic_add(acc, 0, _chunk_sum(a, b, 2, 0.0, start, min(start + chunk, n)))


@tack.kernel
def _sum_deviations(a, mean, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        tack.atomic_add(acc, 0, _chunk_sum(a, a, 3, mean, start, min(start + chunk, n)))


@tack.kernel
def _abs_max(a, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        end = min(start + chunk, n)
        m = 0.0
        for j in range(start, end):
            v = abs(tack.f32(a[j]))
            if v > m:
                m = v
        tack.atomic_max(acc, 0, m)


@tack.kernel
def _count_nonzero(a, acc, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        end = min(start + chunk, n)
        k = 0
        for j in range(start, end):
            if a[j] != 0.0:
                k += 1
        tack.atomic_add(acc, 0, k)


@tack.func
def _bin(x, lo, inv_width, bins):
    b = int((x - lo) * inv_width)
    if b < 0:
        b = 0
    elif b >= bins:
        b = bins - 1
    return b


@tack.kernel
def _histogram_rows(a, rows, lo, inv_width, bins, n, chunk, nchunks):
    # Each chunk counts into its own row of `rows`: no atomics, no contention.
    for c in range(nchunks):
        row = c * bins
        for b in range(bins):
            rows[row + b] = 0
        start = c * chunk
        end = min(start + chunk, n)
        for j in range(start, end):
            rows[row + _bin(a[j], lo, inv_width, bins)] += 1


@tack.kernel
def _sum_rows(rows, counts, bins, nchunks):
    for b in range(bins):
        s = 0
        for c in range(nchunks):
            s += rows[c * bins + b]
        counts[b] = s


@tack.kernel
def _histogram_atomic(a, counts, lo, inv_width, bins, n):
    for j in range(n):
        tack.atomic_add(counts, _bin(a[j], lo, inv_width, bins), 1)


def _accumulator(dtype):
    acc = _common.scratch.get("stats-acc", dtype, 1)
    acc.fill(0)
    return acc


def _read(acc):
    return acc.to_numpy()[0]


def _sum(kernel, *args, n):
    """Run one of the _sum_* kernels over n elements; the f32 total (NumPy float32)."""
    acc = _accumulator(tack.f32)
    if n:
        chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
        kernel(*args, acc, n, chunk, nchunks)
    return _read(acc)


def _prefix(data, n):
    """`data` itself when n covers it, else a copy of its first n elements (so Field
    reductions see exactly those)."""
    if n == data.size:
        return data
    head = tack.field(data.dtype, (n,))
    _copy(data, head, n)
    return head


def _float_scalar(value, data):
    return np.float64(value) if data.dtype == tack.f64 else np.float32(value)


def var(data, n=None):
    """Population variance of the first n elements (f32 accumulator); a NumPy float32. The
    mean is Field.sum() / n. NaN when n == 0."""
    n = _common.count("var", n, data)
    if n == 0:
        return np.float32(np.nan)
    data = _common.flat(data)
    mean = _prefix(data, n).sum() / n
    acc = _sum(_sum_deviations, data, _float_scalar(mean, data), n=n)
    return np.float32(acc / np.float32(n))


def std(data, n=None):
    """sqrt(var(data, n)) as a Python float."""
    return math.sqrt(var(data, n))


def norm(data, ord=2, n=None):
    """L1, L2 or L-infinity norm (ord 1, 2 or float("inf")) of the first n elements."""
    if ord not in (1, 2, float("inf")):
        raise ValueError(f"Unsupported norm order: {ord!r} (use 1, 2 or float('inf'))")
    n = _common.count("norm", n, data)
    data = _common.flat(data)
    if ord == 1:
        return float(_sum(_sum_abs, data, n=n))
    if ord == 2:
        return math.sqrt(_sum(_sum_squares, data, n=n))
    return absmax(data, n)


def absmax(data, n=None):
    """max |x| over the first n elements (f32 atomic_max from 0.0); 0.0 when n == 0."""
    n = _common.count("absmax", n, data)
    acc = _accumulator(tack.f32)
    if n:
        chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
        _abs_max(_common.flat(data), acc, n, chunk, nchunks)
    return float(_read(acc))


def count_nonzero(data, n=None):
    """How many of the first n elements satisfy x != 0.0 (-0.0 is zero, NaN counts); an i32
    count that wraps past 2**31 - 1, as a Python int."""
    n = _common.count("count_nonzero", n, data)
    acc = _accumulator(tack.i32)
    if n:
        chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
        _count_nonzero(_common.flat(data), acc, n, chunk, nchunks)
    return int(_read(acc))


def dot(a, b, n=None):
    """sum(a[i] * b[i]) over the first n elements (default a.size), products in the inputs'
    type, accumulated in f32."""
    n = _common.count("dot", n, a, b)
    return float(_sum(_sum_products, _common.flat(a), _common.flat(b), n=n))


def histogram(data, bins=10, range=None, n=None):
    """(counts, edges): an i32 field of `bins` counts and NumPy float64 edges (bins + 1).

    bin = int((x - lo) * (1 / width)) in f32 (f64 for f64 data), width = (hi - lo) / bins,
    clamped into [0, bins - 1]: values below the range count in the first bin, above it in
    the last (unlike numpy.histogram). range=None takes min and max of the first n elements.
    """
    n = _common.count("histogram", n, data)
    data = _common.flat(data)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool) and bins < 0:
        raise ValueError("`bins` must be positive, when an integer")  # NumPy's words
    if range is None:
        if n == 0:
            raise ValueError("histogram of zero elements needs an explicit range")
        head = _prefix(data, n)
        lo, hi = head.min(), head.max()
        # A NaN or infinity among the data would make NaN edges and put everything in bin 0.
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
        if lo == hi:
            hi = lo + 1
    else:
        lo, hi = float(range[0]), float(range[1])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
    width = (hi - lo) / bins  # bins == 0: ZeroDivisionError, as documented upstream
    edges = np.linspace(lo, hi, bins + 1)
    counts = tack.field(tack.i32, (bins,))
    if n == 0:
        return counts, edges
    lo_s, inv_s = _float_scalar(lo, data), _float_scalar(1.0 / width, data)
    chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
    if nchunks > 1 and bins * nchunks <= max(n // 4, 1 << 16):
        rows = _common.scratch.get("histogram-rows", tack.i32, bins * nchunks)
        _histogram_rows(data, rows, lo_s, inv_s, bins, n, chunk, nchunks)
        _sum_rows(rows, counts, bins, nchunks)
    else:
        _histogram_atomic(data, counts, lo_s, inv_s, bins, n)
    return counts, edges


__all__ = ["absmax", "count_nonzero", "dot", "histogram", "norm", "std", "var"]
