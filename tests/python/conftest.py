"""Shared fixtures: every test runs on a fresh CPU backend unless it asks otherwise."""

import atexit
import os
import pathlib
import shutil
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
