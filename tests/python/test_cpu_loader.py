"""How the CPU backend loads its objects (src/codegen/llvm/elf_loader.hpp): Tack's own loader by
default, LLVM's JITLink with TACK_CPU_LOADER=orc. Both, cold and from a warm disk cache, in new
processes, must give NumPy's answers for kernels that call libm; an unknown value is a clean
ValueError naming the accepted ones."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import python_env

SCRIPT = """
import math

import numpy as np
import tack

@tack.kernel
def loader_mix(x, y, a):
    for i in range(x.shape[0]):
        y[i] = math.fmod(math.sin(x[i]) * a + math.exp(x[i] * 0.1), 1.5)

x = tack.field_like(np.linspace(-20.0, 20.0, 4099))
y = tack.zeros(tack.f64, 4099)
loader_mix(x, y, 7.0)
np.save({out!r}, y.to_numpy())
"""


def run(tmp_path, loader, cache):
    out = tmp_path / f"{loader}-{cache}.npy"
    script = tmp_path / "loader.py"
    script.write_text(textwrap.dedent(SCRIPT.format(out=str(out))))
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path / cache)
    if loader != "default":
        env["TACK_CPU_LOADER"] = loader
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=300)
    return r, out


@pytest.mark.parametrize("loader", ["default", "orc"])
def test_cold_and_warm_loads_match_numpy(tmp_path, loader):
    x = np.linspace(-20.0, 20.0, 4099)
    want = np.fmod(np.sin(x) * 7.0 + np.exp(x * 0.1), 1.5)
    for attempt in ("cold", "warm"):
        r, out = run(tmp_path, loader, "cache")
        assert r.returncode == 0, f"{attempt}: {r.stderr}"
        np.testing.assert_allclose(np.load(out), want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{loader} loader, {attempt} cache")


def test_unknown_loader_is_a_value_error(tmp_path):
    r, _ = run(tmp_path, "jitlink", "cache")
    assert r.returncode != 0
    assert "ValueError" in r.stderr and "TACK_CPU_LOADER 'jitlink'" in r.stderr, r.stderr
    assert "auto, orc" in r.stderr
