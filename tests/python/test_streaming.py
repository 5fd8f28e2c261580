"""Streaming stores (issue 13): launches that write more than the last-level cache holds to a
write-only output use non-temporal stores on x86-64 (codegen/llvm/streaming.cpp). Results must
not change: large and tiny launches, aligned and unaligned imports, aliasing calls."""

import numpy as np

import tack

N = 1 << 24  # 64 MiB of f32 per array: beyond the last-level cache of the machines we run on


@tack.kernel
def triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@tack.kernel
def offset_copy(src, dst, k):
    for i in range(k, dst.shape[0]):
        dst[i] = src[i]


def test_large_triad_matches_numpy():
    rng = np.random.default_rng(2)
    b, c = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    a = tack.zeros(tack.f32, N)
    for _ in range(3):  # serial first sight, then fanned-out pieces
        triad(a, tack.field_like(b), tack.field_like(c), 1.5)
    assert np.array_equal(a.to_numpy(), b + np.float32(1.5) * c)


def test_tiny_and_odd_sizes():
    for n in (1, 2, 15, 17, 63, 65, 1000):
        b = np.arange(n, dtype=np.float32)
        a = tack.zeros(tack.f32, n)
        triad(a, tack.field_like(b), tack.field_like(b), 2.0)
        assert np.array_equal(a.to_numpy(), b * 3), n


def test_unaligned_large_import():
    raw = np.zeros(4 * N + 64, np.uint8)
    out = raw[1:1 + 4 * N].view(np.float32)  # odd address: no aligned middle at all
    raw2 = np.zeros(4 * N + 64, np.uint8)
    out2 = raw2[4:4 + 4 * N].view(np.float32)  # element-aligned, not line-aligned
    b = np.arange(N, dtype=np.float32) % 1000
    for dst in (out, out2):
        a = tack.field_from_ptr(dst.ctypes.data, tack.f32, N, writable=True)
        triad(a, tack.field_like(b), tack.field_like(b), 1.0)
        assert np.array_equal(dst, b * 2)


def test_aliasing_call_reads_what_it_streams():
    b = np.arange(N, dtype=np.float32) % 977
    a = tack.field_like(b)
    triad(a, a, a, 2.0)  # the output is also both inputs
    assert np.array_equal(a.to_numpy(), b * 3)


def test_loop_start_offset():
    src = np.arange(N, dtype=np.float32) % 511
    dst = tack.zeros(tack.f32, N)
    offset_copy(tack.field_like(src), dst, 5)
    want = src.copy()
    want[:5] = 0
    assert np.array_equal(dst.to_numpy(), want)


@tack.kernel
def _ignores_a_parameter(a, b, c, d, out, n):
    for i in range(n):
        out[i] = tack.f32(i) * 2.0


def test_a_streaming_kernel_may_ignore_a_parameter():
    """O3's dead-argument elimination used to renumber the streaming copy's arguments, and the
    pass that marks its stores then read past them (an LLVM assertion, UB without one)."""
    tack.init(tack.cpu)
    unused = [tack.field(tack.f32, (4,)) for _ in range(4)]
    out = tack.field(tack.f32, (1000,))
    _ignores_a_parameter(*unused, out, 1000)
    assert (out.to_numpy() == np.arange(1000) * 2.0).all()
