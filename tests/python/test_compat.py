"""Host API details the public Tack programs and tests rely on (CONTRACT C2, C4, C21): device
equality, memory spaces and the tack.runtime.dispatch module."""

import subprocess
import sys

import numpy as np
import pytest

import tack

from conftest import python_env

# --- devices -----------------------------------------------------------------------------------


def test_devices_compare_with_anything():
    d = tack.init(tack.cpu)
    assert (d == None) is False and (d != None) is True  # noqa: E711
    assert (None == d) is False  # noqa: E711
    assert d != "cpu" and d != 0
    assert d == tack.runtime.dispatch.get_backend() and not (d != d)
    assert tack.init(tack.cpu) != d  # init builds a new backend (C1)
    assert tack.device("cpu") == tack.device("cpu")  # one process-wide device per name
    assert hash(tack.device("cpu")) == hash(tack.device("cpu"))
    assert len({d, tack.runtime.dispatch.get_backend(), tack.device("cpu")}) == 2


def test_memory_space_answers_without_guessing(backend):
    device = tack.runtime.dispatch.get_backend()
    host = np.zeros(4, np.float32)
    for ptr in (0, host.ctypes.data, 2**64 - 1):
        assert device.memory_space(ptr) == "cpu" == tack.memory_space(ptr)
    for not_an_address in ("0x10", 1.5, -1, 2**64, None, True):
        assert device.memory_space(not_an_address) == "cpu"
    # The method belongs to the Device type, not only to instances.
    assert type(device).memory_space is tack.Device.memory_space


def test_import_tack_makes_runtime_dispatch_usable():
    out = subprocess.run(
        [sys.executable, "-c", "import tack; print(tack.runtime.dispatch.get_backend().name)"],
        capture_output=True, text=True, env=python_env(), check=True).stdout
    assert out.strip() == "cpu"


def test_unavailable_backends_carry_their_install_guidance():
    from tack.runtime.dispatch import _BACKEND_HELP

    for arch in ("cpu", "metal", "cuda", "hip", "level_zero", "opencl"):
        assert len(_BACKEND_HELP[arch]) > 20
    assert "libze_loader" in _BACKEND_HELP["level_zero"]
    missing = [a for a in ("hip", "cuda", "metal") if a not in tack._tack._available_backends()]
    if not missing:
        pytest.skip("every backend is compiled in")
    with pytest.raises(RuntimeError, match="missing dependency") as e:
        tack.init(missing[0])
    assert _BACKEND_HELP[missing[0]].splitlines()[0] in str(e.value)
    assert isinstance(e.value.__cause__, ImportError)
