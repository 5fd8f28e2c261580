"""Name binding (CONTRACT A6, A22): closures, globals, module-qualified and aliased device
functions and constants, intrinsics under other spellings."""

import math
import threading
import time

import numpy as np
import pytest

import tack
import tack as tk
from tack import atomic_add as add_atomically
from tack import kernel as tack_kernel

import names_helpers
import names_helpers as nh
from kernels_helpers import spin
from names_helpers import norm2 as n2

OFFSET = tack.constant(1)  # the caller's OFFSET; names_helpers.shifted must use its own


@tk.kernel
def qualified(x, y, out, shifted_out):
    for i in range(x.shape[0]):
        out[i] = names_helpers.norm2(x[i], y[i]) + nh.norm2(x[i], y[i]) - n2(x[i], y[i])
        shifted_out[i] = nh.shifted(i) + OFFSET


def test_module_qualified_and_aliased_funcs():
    x = np.array([3.0, 5.0], np.float32)
    y = np.array([4.0, 12.0], np.float32)
    out, sh = tack.field(tack.f32, 2), tack.field(tack.i32, 2)
    qualified(tack.field_like(x), tack.field_like(y), out, sh)
    assert out.to_numpy().tolist() == [5.0, 13.0]
    assert sh.to_numpy().tolist() == [101, 102]


@tack_kernel
def aliased_intrinsics(counts):
    for i in range(8):
        add_atomically(counts, i % 2, 1)
        tk.atomic_add(counts, 2, tk.i32(math.tau > 6))


def test_intrinsics_through_aliases():
    counts = tack.field(tack.i32, 3)
    aliased_intrinsics(counts)
    assert counts.to_numpy().tolist() == [4, 4, 8]


def make_closure_kernel(scale_value):
    SCALE = tack.constant(scale_value)

    @tack.func
    def times_scale(v):
        return v * SCALE

    @tack.kernel
    def k(out):
        for i in range(out.shape[0]):
            out[i] = times_scale(i)

    return k


def test_closures_resolve_per_function():
    a, b = tack.field(tack.i32, 3), tack.field(tack.i32, 3)
    make_closure_kernel(2)(a)
    make_closure_kernel(5)(b)
    assert a.to_numpy().tolist() == [0, 2, 4] and b.to_numpy().tolist() == [0, 5, 10]


@tack.kernel
def reads_module_int(out):
    for i in range(out.shape[0]):
        out[i] = nh.NOT_A_CONSTANT


def test_plain_module_values_are_not_captured():
    with pytest.raises(NameError):
        reads_module_int(tack.field(tack.i32, 1))


@tack.kernel
def parameter_shadows(OFFSET, out):
    for i in range(out.shape[0]):
        out[i] = OFFSET


def test_parameters_shadow_globals():
    out = tack.field(tack.i32, 2)
    parameter_shadows(7, out)
    assert out.to_numpy().tolist() == [7, 7]


REBOUND = tack.constant(1)


@tack.kernel
def reads_rebound(out):
    for i in range(out.shape[0]):
        out[i] = REBOUND


def test_bindings_are_read_once():
    global REBOUND
    out = tack.field(tack.i32, 1)
    reads_rebound(out)
    REBOUND = tack.constant(2)
    reads_rebound(out)
    assert out[0] == 1  # the constant seen is the one bound at the first lowering (A6)


def test_kernel_calls_release_the_gil():
    x = tack.field(tack.f32, 1)
    t = time.perf_counter()
    spin(x, 1_000_000)
    reps = int(1_000_000 * 0.3 / max(time.perf_counter() - t, 1e-4))  # one call of ~0.3 s
    started, done = threading.Event(), threading.Event()
    ticks = 0

    def run():
        started.set()
        spin(x, reps)
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    started.wait()
    while not done.is_set():
        ticks += 1
    worker.join()
    assert ticks > 10_000  # this thread ran while the single call was in native code


def test_constants_are_ordinary_numbers_on_the_host():
    c = tack.constant(2.5)
    assert c * 2 == 5.0 and isinstance(c, float)
    typed = tack.constant(747796405, tack.u32)
    assert typed == 747796405 and typed.dtype is tack.u32
    vec = tack.constant((1.0, 2.0, 3.0))
    assert vec[1] == 2.0 and list(vec) == [1.0, 2.0, 3.0] and len(vec) == 3
    assert not isinstance(vec, tuple)
    with pytest.raises(TypeError):
        vec + vec
    with pytest.raises(TypeError):
        tack.constant("pi")


def test_each_intrinsic_object_has_one_name():
    # _names answers a name bound to the intrinsic of that very name without its id table; both
    # agree only while no intrinsic object is reachable under two names.
    from tack import _names

    table = _names._intrinsic_table()
    names = {}
    for obj, name in table.values():
        names.setdefault(id(obj), set()).add(name)
    assert all(len(v) == 1 for v in names.values())
    for obj, name in table.values():
        if "." not in name:
            assert _names._intrinsic_as_spelled(obj, name) in (None, ("intrinsic", name))
