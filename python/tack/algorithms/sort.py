"""Sorting and segmented reductions: argsort, sort_by_key, gather, unique, reduce_by_key;
the results are the same on every backend and every run.

argsort is a stable least-significant-digit radix sort, every step a Tack kernel. The keys are
split into chunks (one serial run each, chunks in parallel). Per digit pass: each chunk counts
its digits into its own row of 2^digit counters (a row per chunk: chunks on different threads
share no cache line), the rows are transposed into a digit-major table, one
exclusive scan of the table turns the counts into output slots (digit by digit, chunk by chunk
within a digit), the slots go back to the rows, and each chunk scatters its keys to its slots in
element order, which keeps the sort stable. The smallest key is subtracted on the fly,
so the number of passes follows the keys' spread, not their width: the fewest passes of digits
of at most 11 bits (32-bit keys take three passes, keys within one byte of each other one, all
equal keys none), the digits as even as they divide. 11-bit digits (a chunk's row of 2048
counters is 8 KiB, in L1) sort 32-bit keys in three passes instead of four: faster, here and
in the C++ baseline of benchmarks/bench_algorithms.py, despite 2048 scatter targets per chunk.
The permutation is unique (stability fixes it), so every backend and every run gives the same
one.

unique and reduce_by_key walk runs of equal adjacent keys: a kernel marks each run's head, an
inclusive scan numbers the runs, a kernel records each run's first key and start, and one
thread per run counts or reduces it serially in element order (reproducible floating sums).
"""

import tack

from . import _common
from .copy import copy as _copy
from .scan import scan_in_place

_KEY_DTYPES = (tack.i32, tack.u32, tack.i64, tack.u64)
_OPS = {"sum": 0, "min": 1, "max": 2}
_MIN_CHUNK = 16384
_MAX_CHUNKS = 256
_MAX_DIGIT_BITS = 11
_MAX_KEYS = 2**31 - 1


@tack.kernel
def _key_range(keys, kmin, kmax, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        end = min(start + chunk, n)
        lo = keys[start]
        hi = keys[start]
        for j in range(start + 1, end):
            k = keys[j]
            if k < lo:
                lo = k
            if k > hi:
                hi = k
        kmin[c] = lo
        kmax[c] = hi


@tack.func
def _digit(key, base, shift, mask):
    return tack.i64((tack.u64(key) - tack.u64(base)) >> shift) & mask


@tack.kernel
def _count_digits(keys, rows, base, shift, radix, n, chunk, nchunks):
    # Chunk c counts into its own row of `radix` entries (contiguous, so chunks on different
    # threads never share a cache line).
    for c in range(nchunks):
        row = c * radix
        for d in range(radix):
            rows[row + d] = 0
        start = c * chunk
        end = min(start + chunk, n)
        for j in range(start, end):
            rows[row + _digit(keys[j], base, shift, radix - 1)] += 1


@tack.kernel
def _rows_to_table(rows, table, radix, nchunks):
    # Digit-major: one exclusive scan of the table orders slots by digit, then by chunk.
    for i in range(radix * nchunks):
        d = i // nchunks
        c = i - d * nchunks
        table[i] = rows[c * radix + d]


@tack.kernel
def _table_to_rows(table, rows, radix, nchunks):
    for i in range(radix * nchunks):
        c = i // radix
        d = i - c * radix
        rows[i] = table[d * nchunks + c]


@tack.kernel
def _scatter(keys, perm, okeys, operm, rows, base, shift, radix, n, chunk, nchunks, first,
             keep_keys):
    # rows[c * radix + d] holds chunk c's next slot for digit d; element order keeps it stable.
    for c in range(nchunks):
        row = c * radix
        start = c * chunk
        end = min(start + chunk, n)
        for j in range(start, end):
            k = keys[j]
            at = row + _digit(k, base, shift, radix - 1)
            pos = rows[at]
            rows[at] = pos + 1
            if keep_keys != 0:
                okeys[pos] = k
            if first != 0:
                operm[pos] = j
            else:
                operm[pos] = perm[j]


@tack.kernel
def _iota(out, n):
    for i in range(n):
        out[i] = i


@tack.kernel
def _gather(values, perm, out, n):
    for i in range(n):
        out[i] = values[perm[i]]


@tack.kernel
def _gather_rows(values, perm, out, n, width):
    for i in range(n * width):
        out[i] = values[perm[i // width] * width + i % width]


@tack.kernel
def _run_heads(keys, runs, n):
    for i in range(n):
        head = 1
        if i > 0:
            if keys[i] == keys[i - 1]:
                head = 0
        runs[i] = head


@tack.kernel
def _run_starts(keys, runs, ukeys, starts, n):
    # runs holds the inclusive scan of the heads: run r's head is where it first reaches r + 1.
    for i in range(n):
        before = 0
        if i > 0:
            before = runs[i - 1]
        if runs[i] != before:
            ukeys[before] = keys[i]
            starts[before] = i


@tack.kernel
def _run_lengths(starts, counts, m, n):
    for r in range(m):
        end = n
        if r + 1 < m:
            end = starts[r + 1]
        counts[r] = end - starts[r]


@tack.func
def _combine(acc, v, op):
    """acc combined with v by op (0 sum, 1 min, 2 max)."""
    if op == 0:
        acc = acc + v
    elif op == 1:
        if v < acc:
            acc = v
    elif v > acc:
        acc = v
    return acc


@tack.kernel
def _reduce_runs(starts, values, out, op, m, n):
    for r in range(m):
        s = starts[r]
        end = n
        if r + 1 < m:
            end = starts[r + 1]
        acc = values[s]
        for j in range(s + 1, end):
            acc = _combine(acc, values[j], op)
        out[r] = acc


@tack.kernel
def _reduce_runs_rows(starts, values, out, op, m, n, width):
    for rc in range(m * width):
        r = rc // width
        c = rc % width
        s = starts[r]
        end = n
        if r + 1 < m:
            end = starts[r + 1]
        acc = values[s * width + c]
        for j in range(s + 1, end):
            acc = _combine(acc, values[j * width + c], op)
        out[rc] = acc


def _width(values):
    """Scalars per element: 1 for a scalar field, n for a vector field, n*m for a matrix one."""
    width = 1
    for e in values.element_shape:
        width *= e
    return width


def _like(values, n):
    """A new field of n elements of the dtype and element shape (vector, matrix) of `values`."""
    if values.element_shape:
        return tack._tack._field(values.dtype, (n,), tuple(values.element_shape))
    return tack.field(values.dtype, (n,))


def _count_with_values(name, n, keys, values):
    """n checked against the keys and against the values' elements (a vector field's storage
    holds `width` scalars per element)."""
    n = _common.count(name, n, keys)
    elements = values.size // _width(values)
    if n > elements:
        raise ValueError(f"{name}: n = {n} is outside the values' {elements} elements "
                         f"(n must lie in [0, {elements}])")
    return n


def _check_keys(keys):
    if keys.dtype not in _KEY_DTYPES:
        names = ", ".join(t.name for t in _KEY_DTYPES)
        raise TypeError(f"sort keys must be one of {names}; got {keys.dtype.name}")


def _spread(keys, n, chunk, nchunks):
    """(smallest key, largest - smallest) of the first n keys, exact Python ints."""
    kmin = _common.scratch.get("sort-min", keys.dtype, nchunks)
    kmax = _common.scratch.get("sort-max", keys.dtype, nchunks)
    _key_range(keys, kmin, kmax, n, chunk, nchunks)
    lo = int(kmin.to_numpy()[:nchunks].min())
    hi = int(kmax.to_numpy()[:nchunks].max())
    return lo, hi - lo


def _digits(spread_bits):
    """(passes, digit bits) for keys `spread_bits` wide: the fewest passes of digits of at most
    _MAX_DIGIT_BITS, the digits as even as they divide (32 bits: 3 x 11, 12 bits: 2 x 6)."""
    if spread_bits == 0:
        return 0, 0
    passes = -(-spread_bits // _MAX_DIGIT_BITS)
    return passes, -(-spread_bits // passes)


def _radix_sort(keys, n, want_keys):
    """(permutation, sorted keys or None) of the first n keys of a 1-D key field, n > 0."""
    if n > _MAX_KEYS:
        raise ValueError(f"sorting {n} keys: at most 2**31 - 1 (the permutation is i32)")
    chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
    base, spread = _spread(keys, n, chunk, nchunks)
    passes, bits = _digits(spread.bit_length())
    radix = 1 << bits
    perm = tack.field(tack.i32, (n,))
    if passes == 0:
        _iota(perm, n)
        if not want_keys:
            return perm, None
        skeys = tack.field(keys.dtype, (n,))
        _copy(keys, skeys, n)
        return perm, skeys
    perms = [perm, tack.field(tack.i32, (n,)) if passes > 1 else perm]
    # Pass p writes perms[(passes - 1 - p) % 2], so the last pass lands in perm; keys are
    # written by every pass but the last (and by the last too when they are wanted).
    key_writes = passes - 1 + (1 if want_keys else 0)
    kbufs = [tack.field(keys.dtype, (n,)) for _ in range(min(key_writes, 2))]
    rows = _common.scratch.get("sort-rows", tack.i32, radix * nchunks)
    table = _common.scratch.get("sort-table", tack.i32, radix * nchunks)
    src_keys, src_perm = keys, perm
    for p in range(passes):
        shift = bits * p
        out = (passes - 1 - p) % 2
        write_keys = p < passes - 1 or want_keys
        okeys = kbufs[out % len(kbufs)] if write_keys else src_keys
        _count_digits(src_keys, rows, base, shift, radix, n, chunk, nchunks)
        _rows_to_table(rows, table, radix, nchunks)
        scan_in_place(table, radix * nchunks)
        _table_to_rows(table, rows, radix, nchunks)
        _scatter(src_keys, src_perm, okeys, perms[out], rows, base, shift, radix, n, chunk,
                 nchunks, 1 if p == 0 else 0, 1 if write_keys else 0)
        src_keys, src_perm = okeys, perms[out]
    return perm, (src_keys if want_keys else None)


def argsort(keys, n=None):
    """An i32 field `perm` of the first n keys' positions in stable ascending order (keys[perm]
    is sorted, equal keys keep their order). Keys are i32, u32, i64 or u64 fields."""
    n = _common.count("argsort", n, keys)  # first: a NumPy array hears "takes tack fields"
    _check_keys(keys)
    if n == 0:
        return tack.field(tack.i32, (0,))
    return _radix_sort(_common.flat(keys), n, want_keys=False)[0]


def sort_by_key(keys, values=None, n=None):
    """(sorted keys, values in the same order) as new fields; values may be any dtype, or None
    (then the second result is None)."""
    if values is None:
        n = _common.count("sort_by_key", n, keys)
    else:
        n = _count_with_values("sort_by_key", n, keys, values)
    _check_keys(keys)
    if n == 0:
        empty = _like(values, 0) if values is not None else None
        return tack.field(keys.dtype, (0,)), empty
    perm, skeys = _radix_sort(_common.flat(keys), n, want_keys=True)
    if values is None:
        return skeys, None
    # Vector and matrix values move whole: each element's components follow its key.
    svalues, width = _like(values, n), _width(values)
    if width == 1:
        _gather(_common.flat(values), perm, svalues, n)
    else:
        _gather_rows(_common.flat(values), perm, _common.flat(svalues), n, width)
    return skeys, svalues


def gather(values, perm, n=None):
    """A new field out[i] = values[perm[i]] for i < n (default perm.size)."""
    n = _common.count("gather", n, perm)
    out, width = _like(values, n), _width(values)
    if n and width == 1:
        _gather(_common.flat(values), _common.flat(perm), out, n)
    elif n:
        _gather_rows(_common.flat(values), _common.flat(perm), _common.flat(out), n, width)
    return out


def _runs(keys, n):
    """(first key of each run, i32 run starts, run count) of the first n keys, n > 0."""
    runs = tack.field(tack.i32, (n,))
    _run_heads(keys, runs, n)
    m = scan_in_place(runs, n, inclusive=True, want_total=True)
    ukeys = tack.field(keys.dtype, (m,))
    starts = tack.field(tack.i32, (m,))
    _run_starts(keys, runs, ukeys, starts, n)
    return ukeys, starts, m


def unique(keys, n=None):
    """(first key of each run of equal adjacent keys, i32 run lengths), runs in order of
    appearance: [7, 7, 2, 2, 7] gives [7, 2, 7] and [2, 2, 1]. Any key dtype."""
    n = _common.count("unique", n, keys)
    if n == 0:
        return tack.field(keys.dtype, (0,)), tack.field(tack.i32, (0,))
    ukeys, starts, m = _runs(_common.flat(keys), n)
    counts = tack.field(tack.i32, (m,))
    _run_lengths(starts, counts, m, n)
    return ukeys, counts


def reduce_by_key(keys, values, n=None, op="sum"):
    """(first key of each run, the run's values reduced with op "sum", "min" or "max") in the
    values' dtype, each run reduced serially in element order (integer sums wrap)."""
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(_OPS)}; got {op!r}")
    n = _count_with_values("reduce_by_key", n, keys, values)
    if n == 0:
        return tack.field(keys.dtype, (0,)), _like(values, 0)
    ukeys, starts, m = _runs(_common.flat(keys), n)
    # Vector and matrix values reduce component by component.
    out, width = _like(values, m), _width(values)
    if width == 1:
        _reduce_runs(starts, _common.flat(values), out, _OPS[op], m, n)
    else:
        _reduce_runs_rows(starts, _common.flat(values), _common.flat(out), _OPS[op], m, n, width)
    return ukeys, out


__all__ = ["argsort", "gather", "reduce_by_key", "sort_by_key", "unique"]
