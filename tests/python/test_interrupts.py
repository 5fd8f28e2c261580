"""Ctrl-C (hardening round three, defect 10): a SIGINT during a CPU launch that would run for
hours, or during tack.sync() while a device runs such a kernel, raises KeyboardInterrupt in
the caller within a few seconds (the process stayed busy past 5 s before)."""

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import BACKENDS, python_env

CHILD = textwrap.dedent("""
    import os
    import sys
    import time

    import tack

    @tack.kernel
    def endless(out, n: int, m: int):
        for i in range(n):
            s = 0.0
            for j in range(m):
                s = s * 0.5 + 1.0
            if i < out.shape[0]:
                out[i] = s

    tack.init(sys.argv[1])
    out = tack.field(tack.f32, 4096)
    endless(out, 1, 1)  # compiled before the signal can come
    tack.sync()
    print("started", flush=True)
    start = time.monotonic()
    try:
        # 4 * 10^12 dependent steps on the CPU (an hour), 4 * 10^15 on a device (minutes on
        # a GPU); the launch limit of every backend admits 4 * 10^9 iterations.
        endless(out, 4_000_000_000, 1000 if sys.argv[1] == "cpu" else 1_000_000)
        if sys.argv[2] == "sync":
            tack.sync()
        print("finished", flush=True)
    except KeyboardInterrupt:
        print(f"KeyboardInterrupt after {time.monotonic() - start:.1f} s", flush=True)
    os._exit(0)  # the device may still run the kernel: leave without waiting for it
""")


def interrupted(tmp_path, backend, wait):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    child = subprocess.Popen([sys.executable, str(script), backend, wait], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started", child.stderr.read()
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
        return out, err, time.monotonic() - sent
    finally:
        child.kill()


def test_ctrl_c_ends_a_cpu_launch(tmp_path):
    # Between chunks of the range: one iteration that never ends cannot be stopped.
    out, err, took = interrupted(tmp_path, "cpu", "launch")
    assert "KeyboardInterrupt after" in out, err
    assert took < 5


@pytest.mark.parametrize("device", [b for b in BACKENDS if b != "cpu"])
def test_ctrl_c_ends_a_device_wait(tmp_path, device):
    out, err, took = interrupted(tmp_path, device, "sync")
    assert "KeyboardInterrupt after" in out, err
    assert took < 5
