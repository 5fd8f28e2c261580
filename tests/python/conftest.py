"""Shared fixtures: every test runs on a fresh CPU backend unless it asks otherwise.

Tests that take `backend` (or a capability fixture: `f64_backend`, `reduction_backend`,
`workgroup_backend`) run once per backend this build has that initializes here, chosen by the
backends' declared capabilities, never by name (CONTRACT F2). A backend whose init fails is
excluded, with the reason in the report header.
"""

import atexit
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
# A private disk cache per session (subprocesses inherit it): results never depend on what an
# earlier run left in ~/.cache/tack.
os.environ["TACK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tack-pytest-cache-")
atexit.register(shutil.rmtree, os.environ["TACK_CACHE_DIR"], ignore_errors=True)

import tack  # noqa: E402


@pytest.fixture(autouse=True)
def cpu_backend(monkeypatch):
    monkeypatch.delenv("TACK_NO_REINIT", raising=False)
    tack.init(tack.cpu)
    yield


@pytest.fixture
def root():
    return ROOT


def python_env():
    """Environment for subprocesses that import tack from the source tree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_script(tmp_path, text):
    """Runs `text` as a script in a fresh process with a cache of its own; its output."""
    script = tmp_path / "script.py"
    script.write_text(text)
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out


# TACK_TEST_BACKENDS=cpu,hip limits the backends the parametrized tests run on. The emulated
# HIP device runs apart from OpenCL: ROCm 5.2's hipRTC (its comgr) and PoCL both bring LLVM 15
# and abort in LLVM's option registry when both compile in one process.
_WANTED = [b for b in os.environ.get("TACK_TEST_BACKENDS", "").split(",") if b]


def _probe_backends():
    usable, excluded = {}, {}
    for name in tack._tack._available_backends():
        if _WANTED and name not in _WANTED:
            excluded[name] = "not in TACK_TEST_BACKENDS"
            continue
        try:
            usable[name] = tack.init(name)
        except (ImportError, RuntimeError, OSError, AttributeError) as e:
            excluded[name] = str(e)
    tack.init(tack.cpu)
    return usable, excluded


BACKENDS, EXCLUDED = _probe_backends()

CAPABILITIES = {
    "backend": lambda d: True,
    "f64_backend": lambda d: d.supports_f64,
    "reduction_backend": lambda d: d.supports_device_reductions,
    "workgroup_backend": lambda d: d.supports_workgroups,
}


def pytest_report_header(config):
    lines = [f"tack backends: {', '.join(BACKENDS)}"]
    lines += [f"tack backend excluded: {name}: {why}" for name, why in EXCLUDED.items()]
    return lines


def pytest_generate_tests(metafunc):
    for fixture, wants in CAPABILITIES.items():
        if fixture in metafunc.fixturenames:
            names = [n for n, d in BACKENDS.items() if wants(d)]
            metafunc.parametrize(fixture, names, indirect=True)


def _activate(request):
    tack.init(request.param)
    return request.param


backend = pytest.fixture(_activate, name="backend")
f64_backend = pytest.fixture(_activate, name="f64_backend")
reduction_backend = pytest.fixture(_activate, name="reduction_backend")
workgroup_backend = pytest.fixture(_activate, name="workgroup_backend")
