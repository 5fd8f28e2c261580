"""The Metal backend's own behaviour (on a Mac, or on the emulated Metal device of
tests/emulated, which `make test` names through TACK_OBJC_LIBRARY / TACK_METAL_LIBRARY): no f64,
no zero-copy DLPack import (with the backend's refusal note), TACK_DUMP_MSL, and a queued
launch's results after a wait. Skipped where Metal cannot open."""

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
