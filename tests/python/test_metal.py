"""The Metal backend's own behaviour (on a Mac, or on the emulated Metal device of
tests/emulated, which `make test` names through TACK_OBJC_LIBRARY / TACK_METAL_LIBRARY): no f64,
no zero-copy DLPack import (with the backend's refusal note), TACK_DUMP_MSL, and a queued
launch's results after a wait, MTLBuffer interop (field_from_ptr, export_memory). Skipped where
Metal cannot open."""

import ctypes
import gc

import numpy as np
import pytest

import tack

from conftest import BACKENDS

pytestmark = pytest.mark.skipif("metal" not in BACKENDS, reason="no Metal device here")


@pytest.fixture
def metal():
    d = tack.init("metal")
    yield d
    tack.init(tack.cpu)


@tack.kernel
def scale(x, a):
    for i in range(x.shape[0]):
        x[i] = x[i] * a


def test_f64_is_refused_with_the_contracts_message(metal):
    x = tack.field(tack.f32, 4)
    assert not metal.supports_f64 and tack.f64 not in metal.supported_dtypes
    with pytest.raises(TypeError, match="has dtype tack.f64, which is not supported on Metal"):
        scale(tack.field(tack.f64, 4), 2.0)
    scale(x, 2.0)  # the backend works on after the refusal


def test_dlpack_imports_copy_and_say_why_not_zero_copy(metal):
    assert "copy=True" in metal.dlpack_refusal_note
    host = np.arange(16, dtype=np.float32)
    with pytest.raises(RuntimeError, match=r"The Metal backend cannot wrap DLPack memory on "
                                           r"kDLCPU: Metal imports no DLPack memory zero-copy"):
        tack.from_dlpack(host)
    f = tack.from_dlpack(host, copy=True)
    scale(f, 3.0)
    np.testing.assert_array_equal(f.to_numpy(), host * 3)
    assert tack.init(tack.cpu).dlpack_refusal_note is None


def test_dump_msl_writes_the_source(metal, monkeypatch, tmp_path):
    monkeypatch.setenv("TACK_DUMP_MSL", "1")
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path / "cache"))  # a fresh compile

    @tack.kernel
    def dumped_once(x):
        for i in range(x.shape[0]):
            x[i] = 7.0

    x = tack.field(tack.f32, 300)
    dumped_once(x)
    assert (x.to_numpy() == 7.0).all()
    with open("/tmp/tack_dumped_once.msl") as f:  # the seed: /tmp/tack_<kernel>.msl
        text = f.read()
    assert "kernel void tack_kernel_" in text and "[[buffer(0)]]" in text


class ObjcObject:
    """What pyobjc hands out for an Objective-C object, reduced to the protocol field_from_ptr
    reads: __c_void_p__() gives the object's id."""

    def __init__(self, object_id):
        self.object_id = object_id

    def __c_void_p__(self):
        return ctypes.c_void_p(self.object_id)


def test_export_memory_hands_out_the_fields_own_mtlbuffer(metal):
    f = tack.field(tack.f32, 1000)
    scale(f, 2.0)  # queued: the export comes after it
    e = f.export_memory()
    assert (e.backend, e.handle_type, e.size, e.device_uuid) == ("metal", "mtl_buffer", 4000, None)
    assert e.allocation_size >= e.size and e.handle > 0 and e.live


def test_field_from_ptr_wraps_an_mtlbuffer_both_ways(metal):
    f = tack.field(tack.f32, 1000)
    f.from_numpy(np.arange(1000, dtype=np.float32))
    handle = f.export_memory().handle
    grid = tack.field_from_ptr(ObjcObject(handle), tack.f32, (10, 100))
    np.testing.assert_array_equal(grid.to_numpy(), np.arange(1000).reshape(10, 100))
    g = tack.field_from_ptr(ObjcObject(handle), tack.f32, 1000, writable=True)
    scale(g, 3.0)  # a kernel on the wrapper writes the original's memory
    np.testing.assert_array_equal(f.to_numpy(), 3 * np.arange(1000))
    scale(f, 0.5)  # and the other way
    np.testing.assert_array_equal(g.to_numpy(), 1.5 * np.arange(1000))
    del f, grid  # the wrapper retains the MTLBuffer: the memory outlives the field that made it
    gc.collect()
    scale(g, 2.0)
    np.testing.assert_array_equal(g.to_numpy(), 3 * np.arange(1000))
    h = tack.field_from_ptr(ObjcObject(handle), tack.f32, 1000)  # read-only (CONTRACT C20)
    with pytest.raises(ValueError, match="may be written, but its field is read-only"):
        scale(h, 2.0)
    np.testing.assert_array_equal(h.to_numpy(), 3 * np.arange(1000))


def test_field_from_ptr_on_metal_refuses_what_is_not_an_mtlbuffer(metal):
    f = tack.field(tack.f32, 16)
    handle = f.export_memory().handle
    for ptr, name in ((handle, "int"), (np.zeros(4, np.float32), "ndarray"), (None, "NoneType")):
        with pytest.raises(TypeError, match=f"the Metal backend wraps an MTLBuffer object, not "
                                            f"{name}"):
            tack.field_from_ptr(ptr, tack.f32, 4)
    with pytest.raises(TypeError, match="not nil"):
        tack.field_from_ptr(ObjcObject(0), tack.f32, 4)
    with pytest.raises(ValueError, match="the MTLBuffer holds 64 bytes, but the shape needs 68"):
        tack.field_from_ptr(ObjcObject(handle), tack.f32, 17)
    assert metal.wraps_object == "MTLBuffer" and tack.init(tack.cpu).wraps_object is None
