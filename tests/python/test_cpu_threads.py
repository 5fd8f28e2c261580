"""CPU thread count and the serial/parallel policy, in fresh processes (CONTRACT E9-E11).

Hardening issue, defect 2: absurd thread counts (the init option, TACK_CPU_THREADS) used to abort
the process; they are clamped with a warning. Issue 13: a kernel whose serial run takes over a
millisecond used to lock into serial execution in some fresh processes; here each call's worker
CPU time is read from /proc, and no process may end with its workers idle call after call. No
timing is asserted: only whether the workers ran at all.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import python_env

KERNEL = """
import tack
@tack.kernel
def heavy(x, y):
    for i in range(x.shape[0]):
        v = x[i]
        for k in range(200):
            v = v * 0.999 + 0.001
        y[i] = v
"""


def run_child(tmp_path, code, **env):
    """Runs `code` as a script file (kernels need their source on disk)."""
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(code))
    e = python_env()
    e.update(env)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=e,
                          timeout=300)


def test_absurd_num_threads_option_is_clamped_with_a_warning(tmp_path):
    r = run_child(tmp_path, KERNEL + """
tack.init("cpu", num_threads=100000)
x, y = tack.ones(tack.f32, 1000), tack.zeros(tack.f32, 1000)
heavy(x, y)
print("ran", float(y.to_numpy()[0]) > 0)
""")
    assert r.returncode == 0, r.stderr
    assert "ran True" in r.stdout
    assert "warning" in r.stderr and "100000" in r.stderr


def test_absurd_thread_count_variable_is_clamped_with_a_warning(tmp_path):
    r = run_child(tmp_path, KERNEL + """
tack.init("cpu")
x, y = tack.ones(tack.f32, 1000), tack.zeros(tack.f32, 1000)
heavy(x, y)
print("ran", float(y.to_numpy()[0]) > 0)
""", TACK_CPU_THREADS="99999999999999999999")
    assert r.returncode == 0, r.stderr
    assert "ran True" in r.stdout and "warning" in r.stderr


POLICY_CHILD = KERNEL + """
import json, os, numpy as np
def worker_ns():
    me, total = os.getpid(), 0
    for t in os.listdir(f"/proc/{me}/task"):
        if int(t) != me:
            with open(f"/proc/{me}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
    return total
tack.init("cpu", num_threads=2)
# 2^20 elements: ~4 ms serially as SIMD lanes (codegen/llvm/lanes.hpp; 2^18 measured 1.1 ms on
# one core, too close to the policy's 1 ms line for a quiet host), ~300 ms as scalar code.
x = tack.field_like(np.linspace(0, 1, 1 << 20, dtype=np.float32))
y = tack.zeros(tack.f32, 1 << 20)
idle, fanned = [], []
for _ in range(12):
    before, fan_outs = worker_ns(), tack._tack._cpu_fan_outs()
    heavy(x, y)
    idle.append(worker_ns() == before)
    fanned.append(tack._tack._cpu_fan_outs() > fan_outs)
ref = x.to_numpy().astype(np.float32)
for _ in range(200):
    ref = ref * np.float32(0.999) + np.float32(0.001)
ok = bool(np.allclose(y.to_numpy(), ref, rtol=1e-5))
print(json.dumps(dict(idle=idle, fanned=fanned, ok=ok)))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/task") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux /proc schedstat and two CPUs")
def test_long_kernels_do_not_stay_serial_in_fresh_processes(tmp_path):
    stuck = []
    for attempt in range(8):
        r = run_child(tmp_path, POLICY_CHILD)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert out["ok"]
        # The decision itself, whatever the scheduler did: every call after the first fans out.
        # The first times a serial prefix, and on a host this loaded it may finish the range
        # before the prefix says fanning out pays (the issue asks that no LATER call stays
        # serial or pays a probe).
        assert all(out["fanned"][1:]), out["fanned"]
        # Idle workers on the last five calls in a row: the policy kept the kernel serial. (On a
        # loaded host a fanned-out call may also find its worker unscheduled until the caller
        # has stolen every piece, but not five calls of ~10 ms running.)
        if all(out["idle"][-5:]):
            stuck.append(attempt)
    assert stuck == []


HEAT_CHILD = """
import json
import numpy as np
import tack

@tack.kernel
def heat(u, v):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + 0.2 * lap

tack.init("cpu", num_threads=2)
u = np.random.default_rng(3).random((1024, 1024), dtype=np.float32)
fu, fv = tack.field_like(u), tack.zeros(tack.f32, (1024, 1024))
before = tack._tack._cpu_fan_outs()
for _ in range(60):
    heat(fu, fv)
want = u.copy()
want[1:-1, 1:-1] = u[1:-1, 1:-1] + np.float32(0.2) * (
    u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - np.float32(4.0) * u[1:-1, 1:-1])
got = fv.to_numpy()
ok = bool(np.allclose(got[1:-1, 1:-1], want[1:-1, 1:-1], rtol=1e-5, atol=1e-6))
print(json.dumps(dict(fan_outs=tack._tack._cpu_fan_outs() - before, ok=ok)))
"""


# Issue 13, the shorter side of the policy: a ~0.1 ms step (below the 1 ms always-parallel line)
# used to stay serial for a whole process when the start-up calibration read the fan-out cost
# high (every empty fan-out found the worker descheduled). The cost model now probes such ranges
# on the 1, 2, 4 ... schedule from the cheapest fan-out seen, so each fresh process fans out
# within 60 calls. Only the decision is asserted (fan-outs counted), never a time.
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_short_steps_are_probed_in_fresh_processes(tmp_path):
    for attempt in range(6):
        r = run_child(tmp_path, HEAT_CHILD)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert out["ok"]
        assert out["fan_outs"] > 0, f"attempt {attempt}: 60 calls, never fanned out"


def test_a_bad_thread_count_names_the_variable(tmp_path):
    # issue 24: the error was int()'s alone ("invalid literal for int() with base 10: 'abc'").
    r = run_child(tmp_path, """
        import tack
        try:
            tack.zeros(tack.f32, 4)
        except ValueError as e:
            print(e)
    """, TACK_CPU_THREADS="abc")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ("TACK_CPU_THREADS must be an integer: invalid literal for int() "
                                "with base 10: 'abc'")
