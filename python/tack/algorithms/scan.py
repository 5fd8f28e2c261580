"""Prefix scans: exclusive_scan and inclusive_scan, in the output's dtype, returning the total.

Where the backend has a native scan (the CPU backend: a single-pass, cache-blocked parallel
scan in the C++ runtime, src/runtime/cpu/algorithms.hpp, which reads the input once where the
kernels below read it twice), that runs; its float results match np.cumsum bit for bit up to
32768 elements. Elsewhere (OpenCL, the GPUs) a two-pass chunked scan, every pass a Tack
kernel: each chunk's total (one serial run per chunk, chunks in parallel), an exclusive scan
of the chunk totals (the same scheme again, serial once the totals fit one chunk), then each
chunk rescans its elements from its offset.
The scan runs in the output's dtype: when the input's dtype differs, the input is first copied
(converted on store) into the output and scanned there in place.

Chunks hold at least 4096 elements (below that one serial launch is cheaper than three), so
up to 4096 elements the sums are formed in np.cumsum's order and match it bit for bit (the
contract promises 512); past one chunk, a chunk starts from the sum of the earlier chunks'
totals. The plan depends on n alone: floating results are the same on every run and
every backend for a given n, integer results are exact (modulo the output's width).
"""

import tack

from . import _common
from .copy import copy as _copy

_MIN_CHUNK = 4096
# Up to 16384 chunks: as fast as 1024 on CPUs and PoCL, and 16x the threads on a GPU.
_MAX_CHUNKS = 16384


@tack.kernel
def _chunk_totals(src, part, n, chunk, nchunks):
    for c in range(nchunks):
        start = c * chunk
        end = min(start + chunk, n)
        s = src[start]
        for j in range(start + 1, end):
            s = s + src[j]
        part[c] = s


@tack.kernel
def _chunk_scan(src, dst, offs, total, n, chunk, nchunks, inclusive):
    for c in range(nchunks):
        start = c * chunk
        end = min(start + chunk, n)
        run = offs[c]
        if inclusive != 0:
            for j in range(start, end):
                run = run + src[j]
                dst[j] = run
        else:
            for j in range(start, end):
                x = src[j]
                dst[j] = run
                run = run + x
        if c == nchunks - 1:
            total[0] = run


def _scan(src, dst, n, inclusive, total, level=0):
    """dst[:n] = scan of src[:n] (same dtype; src may be dst); total[0] = the sum."""
    chunk, nchunks = _common.plan(n, _MIN_CHUNK, _MAX_CHUNKS)
    if nchunks == 1:
        offs = _common.scratch.get("scan-zero", dst.dtype, 1)  # never written: stays 0
    else:
        offs = _common.scratch.get(f"scan-offsets-{level}", dst.dtype, nchunks)
        _chunk_totals(src, offs, n, chunk, nchunks)
        level_total = _common.scratch.get(f"scan-total-{level + 1}", dst.dtype, 1)
        _scan(offs, offs, nchunks, False, level_total, level + 1)
    _chunk_scan(src, dst, offs, total, n, chunk, nchunks, 1 if inclusive else 0)


def _host_total(total, dtype):
    value = total.to_numpy()[0]
    return float(value) if dtype in (tack.f32, tack.f64) else int(value)


def _run(name, src, dst, n, inclusive):
    n = _common.count(name, n, src, dst)
    if n == 0:
        return 0
    src, dst = _common.flat(src), _common.flat(dst)
    if src.dtype != dst.dtype:
        _copy(src, dst, n)
        src = dst
    native = tack._tack._scan_array(src, dst, n, inclusive)
    if native is not None:
        return native
    total = _common.scratch.get("scan-total-0", dst.dtype, 1)
    _scan(src, dst, n, inclusive, total)
    return _host_total(total, dst.dtype)


def exclusive_scan(src, dst, n):
    """dst[i] = src[0] + ... + src[i-1] for i < n, in dst's dtype (in place allowed); returns
    the sum of the first n inputs as a Python int or float."""
    return _run("exclusive_scan", src, dst, n, inclusive=False)


def inclusive_scan(src, dst, n):
    """dst[i] = src[0] + ... + src[i] for i < n, in dst's dtype (in place allowed); returns
    the sum of the first n inputs as a Python int or float."""
    return _run("inclusive_scan", src, dst, n, inclusive=True)


def scan_in_place(f, n, inclusive=False, want_total=False):
    """Scan of the first n > 0 elements of a 1-D field in place, for the other algorithms (no
    checks). The total as a Python number when `want_total` (or when the native scan gives it
    anyway); else None, and the kernels' total stays on the device."""
    native = tack._tack._scan_array(f, f, n, inclusive)
    if native is not None:
        return native
    total = _common.scratch.get("scan-total-0", f.dtype, 1)
    _scan(f, f, n, inclusive, total)
    return _host_total(total, f.dtype) if want_total else None


__all__ = ["exclusive_scan", "inclusive_scan"]
