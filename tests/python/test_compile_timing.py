"""TACK_TIME_COMPILE (src/support/env.hpp): each variant a call builds writes its steps' times to
stderr, a cold build with the compile and the disk-cache store, a warm one (a new process, the
same cache) with the disk load instead, on every backend: the second process runs the kernel
from what the first one stored (PTX, a code object, a program binary, an object file). Only the
steps are checked, never a time."""

import subprocess
import sys
import textwrap

from conftest import python_env

SCRIPT = """
import sys
import tack

tack.init(sys.argv[1])

@tack.kernel
def timed_axpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]

x, y = tack.ones(tack.f32, 64), tack.ones(tack.f32, 64)
timed_axpy(x, y, 2.0)
timed_axpy(x, y, 2.0)
print(y.to_numpy()[0])
"""


def run(tmp_path, backend="cpu", **env_vars):
    script = tmp_path / "timed.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    env.update(env_vars)
    r = subprocess.run([sys.executable, str(script), backend], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "5.0"
    return [line for line in r.stderr.splitlines() if line.startswith("tack: ")]


def steps(line):
    words = line.rsplit(" ms:", 1)[1].split()
    return words[0::2]


def test_cold_then_warm_builds_report_their_steps(backend, tmp_path):
    cold = run(tmp_path, backend, TACK_TIME_COMPILE="1")
    # The source once, one signature, one variant: the second call builds nothing.
    assert len(cold) == 3, cold
    assert all("'timed_axpy'" in line for line in cold)
    assert [steps(line) for line in cold[:2]] == [["validate"], ["lower"]]
    assert steps(cold[2]) == ["specialize", "key", "disk-load", "compile", "disk-store"]
    warm = run(tmp_path, backend, TACK_TIME_COMPILE="1")
    assert steps(warm[2]) == ["specialize", "key", "disk-load", "load"]


def test_silent_unless_asked(tmp_path):
    assert run(tmp_path) == []
    assert run(tmp_path, TACK_TIME_COMPILE="0") == []
