"""Backend selection (CONTRACT C1-C4, C29, DECISIONS compatibility)."""

import pytest

import tack
from tack.runtime import dispatch


def test_arch_constants():
    assert (tack.cpu, tack.metal, tack.cuda, tack.hip, tack.level_zero) == (
        "cpu", "metal", "cuda", "hip", "level_zero")


def test_every_target_of_the_core_is_a_constant_and_listed():
    # The names come from the core's target table (src/driver/targets.cpp), not a Python list.
    from tack import _devices, _tack

    names = [row[0] for row in _tack._targets()]
    assert names == ["cpu", "cuda", "hip", "level_zero", "metal", "opencl"]
    for name in names:
        assert getattr(tack, name) == name and name in tack.__all__
    assert _devices._HOST_MEMORY_ONLY == ("cpu", "metal", "opencl")


def test_init_returns_a_new_cpu_device():
    a = tack.init(arch=tack.cpu)
    b = tack.init(tack.cpu)
    assert a.name == "cpu" and a.label == "CPU" and a != b
    assert dispatch.get_backend() == b
    assert a.supports_f64 and not a.supports_workgroups and not a.supports_device_reductions
    assert tack.f64 in a.supported_dtypes and len(a.supported_dtypes) == 10
    assert tack.i64 in a.supported_atomic_dtypes
    assert a.init_options == ("num_threads",)


def test_unknown_arch():
    with pytest.raises(ValueError, match=r"Unknown architecture: 'vulkan'\. Available: cpu, cuda, "
                                         r"hip, level_zero, metal, opencl$"):
        tack.init("vulkan")


@pytest.mark.parametrize("arch", ["cuda", "hip", "level_zero", "metal"])
def test_unavailable_backend_explains_what_is_missing(arch):
    if arch not in tack._tack._available_backends():
        with pytest.raises(RuntimeError, match=f"Cannot initialize '{arch}' backend: missing "
                                               "dependency") as info:
            tack.init(arch, num_threads=2)  # a missing dependency wins over a bad option (C2)
        assert isinstance(info.value.__cause__, ImportError)
        return
    try:
        tack.init(arch)
    except RuntimeError as e:  # compiled in, but no driver or device here
        assert str(e).startswith(f"Cannot initialize '{arch}' backend on ")
        assert str(e).count("Cannot initialize") == 1 and e.__cause__ is not None
    else:
        pytest.skip(f"{arch} runs on this machine")


def test_bad_option():
    with pytest.raises(ValueError, match=r"The 'cpu' backend does not accept the option\(s\) "
                                         r"bogus\. Accepted: num_threads\."):
        tack.init(tack.cpu, bogus=1)


def test_failed_init_keeps_previous_backend():
    d = tack.init(tack.cpu)
    with pytest.raises(ValueError):
        tack.init("vulkan")
    assert dispatch.get_backend() == d


def test_num_threads_option_and_bad_env(monkeypatch):
    assert tack.init(tack.cpu, num_threads=2).name == "cpu"
    monkeypatch.setenv("TACK_CPU_THREADS", "many")
    with pytest.raises(ValueError):
        tack.init(tack.cpu)


@pytest.mark.parametrize("value,on", [("1", True), ("yes", True), (" 0 ", False), ("", False),
                                      ("False", False), ("OFF", False), ("no", False)])
def test_no_reinit_flag(monkeypatch, value, on):
    first = tack.init(tack.cpu)
    monkeypatch.setenv("TACK_NO_REINIT", value)
    again = tack.init("vulkan-is-not-checked" if on else tack.cpu)
    assert (again == first) == on


def test_device_is_process_wide_and_sync():
    a = tack.device("cpu")
    b = tack.device("cpu")
    assert a == b and dispatch.get_backend() == a
    tack.sync()
    a.synchronize()
    assert tack.device("cpu", num_threads=1) != a


def test_fields_follow_the_active_device():
    d = tack.init(tack.cpu)
    assert tack.field(tack.f32, 2).device == d
