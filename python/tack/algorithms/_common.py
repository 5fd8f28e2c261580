"""What every algorithm shares: the count check, flat views, chunk plans and scratch fields.

Chunk plans depend on the element count only, never on the thread count or the backend, so
floating results are the same for a given n on every run and every backend (threading
variables never change results) and integer results are exact everywhere.
"""

import operator
import threading

import tack


def count(name, n, *fields):
    """The element count `n` (default: the first field's size), checked against every field
    it will read or write: ValueError when negative or past any of them."""
    for f in fields:
        if not isinstance(f, tack._tack.Field):
            raise TypeError(
                f"{name} takes tack fields, got {type(f).__name__}; tack.field_like(a) copies "
                "an array into one"
            )
    if n is None:
        n = fields[0].size
    n = operator.index(n)
    for f in fields:
        if n < 0 or n > f.size:
            raise ValueError(
                f"{name}: n = {n} is outside the field of {f.size} elements "
                f"(n must lie in [0, {f.size}])"
            )
    return n


def flat(f):
    """A 1-D scalar view of `f` (flat, row-major order), so kernels index elements 0..size-1.
    A vector or matrix field's view covers every component."""
    return f if len(f.shape) == 1 and not f.element_shape else f.reshape(f.size)


def plan(n, min_chunk, max_chunks):
    """(chunk, nchunks): n elements in chunks of at least `min_chunk` (one serial run each) and
    at most `max_chunks` chunks. Independent of the thread count by design."""
    chunk = max(min_chunk, -(-n // max_chunks))
    return chunk, max(1, -(-n // chunk))


class _Scratch(threading.local):
    """Small temporaries (chunk totals, digit counts, accumulators) kept between calls, per
    thread and per active device; dropped when the active device changes."""

    def __init__(self):
        self.device = None
        self.fields = {}

    def get(self, tag, dtype, size):
        device = tack._tack._default_device()
        # (Device.__eq__ refuses None rather than answering False.)
        if self.device is None or device != self.device:
            self.device, self.fields = device, {}
        # Rounded up to a power of two so nearby sizes share one field.
        cap = 1 << max(0, size - 1).bit_length()
        key = (tag, dtype.name, cap)
        f = self.fields.get(key)
        if f is None:
            f = self.fields[key] = tack.field(dtype, (cap,))
        return f


scratch = _Scratch()
