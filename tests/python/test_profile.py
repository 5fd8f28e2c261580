"""tack.profile() and TACK_PROFILE (src/runtime/profile.hpp): the counts are exact, the trace is
JSON with a span per launch and build, and nothing outside a profile's with-block is counted."""

import json
import subprocess
import sys

import numpy as np
import pytest
import tack
from conftest import python_env


@tack.kernel
def saxpy(x, y, a: tack.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@tack.kernel
def scale(x, a: tack.f32):
    for i in range(x.shape[0]):
        x[i] = a * x[i]


def test_counts_are_exact(backend):
    x = tack.ones(tack.f32, 1000)
    y = tack.ones(tack.f32, 1000)
    saxpy(x, y, 1.0)  # compiled before the profile: no compile inside it
    with tack.profile() as p:
        for _ in range(10):
            saxpy(x, y, 2.0)
        small = tack.ones(tack.f32, 16)
        for _ in range(3):
            scale(small, 0.5)
    saxpy(x, y, 2.0)  # after the block: not counted
    rows = p.kernels
    assert [(r.kernel, r.backend, r.calls) for r in rows] == [
        ("saxpy", backend, 10),
        ("scale", backend, 3),
    ]
    s, c = rows
    assert (s.compiles, s.variants, s.compile_time) == (0, 0, 0.0)
    assert (c.compiles, c.variants) == (2, 1)  # one signature lowered, one variant built
    assert c.compile_time > 0
    assert s.bytes == 10 * 2 * 1000 * 4 and c.bytes == 3 * 16 * 4
    assert 0 < s.min <= s.mean <= s.max and s.total == pytest.approx(10 * s.mean)
    np.testing.assert_allclose(y.numpy(), 1 + 1.0 + 2.0 * 11)  # the profiled launches really ran
    assert p.kernel("nothing") is None and p.kernel("saxpy").calls == 10


@tack.kernel
def double_rows(x):
    for i, j in tack.ndrange(x.shape[0], x.shape[1]):
        x[i, j] = 2.0 * x[i, j]


def test_every_variant_counts_and_a_field_passed_twice_counts_once():
    with tack.profile() as p:
        for shape in ((4, 8), (4, 8), (2, 16)):  # a row length is in the variant's key
            double_rows(tack.ones(tack.f32, shape))
        for n in (8, 32):  # the outermost extent is not
            x = tack.ones(tack.f32, n)
            saxpy(x, x, 1.0)
    rows, flat = p.kernels
    assert (rows.calls, rows.compiles, rows.variants) == (3, 3, 2)
    assert rows.bytes == 3 * 32 * 4
    assert (flat.calls, flat.variants) == (2, 1)
    assert flat.bytes == (8 + 32) * 4


def test_the_trace_is_json_with_a_span_per_launch_and_build():
    x = tack.ones(tack.f32, 64)
    with tack.profile() as p:
        for _ in range(4):
            scale(x, 1.5)
    trace = json.loads(p.trace())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["cat"] for e in spans] == ["lower", "build", "launch", "launch", "launch", "launch"]
    assert all(e["name"] == "scale" and e["dur"] >= 0 for e in spans)
    starts = [e["ts"] for e in spans]
    assert starts == sorted(starts) and starts[0] == 0
    assert all(e["args"]["bytes"] == 64 * 4 for e in spans if e["cat"] == "launch")
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"]
    assert names == ["cpu (host thread 0)"] or (len(names) == 1 and names[0].startswith("cpu"))


def test_save_writes_the_trace(tmp_path):
    x = tack.ones(tack.f32, 8)
    with tack.profile() as p:
        scale(x, 2.0)
    p.save(tmp_path / "trace.json")
    assert json.loads((tmp_path / "trace.json").read_text()) == json.loads(p.trace())
    with pytest.raises(OSError, match="cannot write"):
        p.save(tmp_path / "missing" / "trace.json")


def test_profiles_overlap_and_each_sees_its_span():
    x = tack.ones(tack.f32, 8)
    scale(x, 1.0)
    with tack.profile() as outer:
        scale(x, 1.0)
        with tack.profile() as inner:
            scale(x, 1.0)
        scale(x, 1.0)
    assert outer.kernel("scale").calls == 3 and inner.kernel("scale").calls == 1


def test_the_table_and_the_states(capsys):
    p = tack.profile()
    assert "not started" in repr(p) and p.kernels == []
    x = tack.ones(tack.f32, 8)
    with p:
        scale(x, 2.0)
        assert "collecting" in repr(p)
    assert repr(p) == "<tack.Profile stopped, 1 kernel>"
    p.print()
    out = capsys.readouterr().out
    header, row = out.splitlines()
    assert header.split()[:4] == ["kernel", "backend", "calls", "total"]
    assert row.split()[:3] == ["scale", "cpu", "1"]
    with pytest.raises(RuntimeError, match="collected once"):
        with p:
            pass


def test_stop_ends_collection():
    x = tack.ones(tack.f32, 8)
    with tack.profile() as p:
        scale(x, 2.0)
        p.stop()
        scale(x, 2.0)
    assert p.kernel("scale").calls == 1


def test_tack_profile_prints_the_table_at_exit(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "import tack\n"
        "@tack.kernel\n"
        "def bump(x):\n"
        "    for i in range(x.shape[0]):\n"
        "        x[i] = x[i] + 1.0\n"
        "f = tack.zeros(tack.f32, 10)\n"
        "for _ in range(7):\n"
        "    bump(f)\n"
        "print(f.numpy()[0])\n"
    )
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    env["TACK_PROFILE"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "7.0"
    lines = out.stderr.splitlines()
    assert lines[0] == "tack profile (TACK_PROFILE):"
    (row,) = [line for line in lines if line.startswith("bump ")]
    assert row.split()[1:3] == ["cpu", "7"]
    env["TACK_PROFILE"] = "0"
    quiet = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=120)
    assert "tack profile" not in quiet.stderr
