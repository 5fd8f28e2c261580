"""Packaging properties: import cost, no Python-side kernel compiler, the public names."""

import pathlib
import subprocess
import sys
import textwrap

import tack

from conftest import ROOT, python_env

PACKAGE = ROOT / "python" / "tack"


def run_python(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env=python_env())
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_costs_at_most_150_ms():
    # CPU time of the import (wall time on a loaded machine measures the other processes).
    best = min(float(run_python("""
        import time
        t = time.process_time()
        import tack
        print(time.process_time() - t)
    """)) for _ in range(5))
    assert best <= 0.150, f"import tack took {best * 1000:.0f} ms of CPU time"


def test_package_has_no_python_side_parser_or_code_generator():
    forbidden = ("import ast", "from ast", "ast.parse", "compile(", "llvmlite", "import dis")
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        for word in forbidden:
            assert word not in text, f"{path.name} uses {word}"


def test_kernels_compile_without_pythons_parser(tmp_path):
    script = tmp_path / "uses_kernel.py"
    script.write_text(textwrap.dedent("""
        import ast, sys
        def refuse(*a, **k):
            raise AssertionError("the Python parser was used")
        ast.parse = refuse
        import numpy as np, tack
        @tack.kernel
        def k(x):
            for i in range(x.shape[0]):
                x[i] = x[i] * 2 + 1
        f = tack.field_like(np.arange(4, dtype=np.float32))
        k(f)
        print(f.to_numpy().tolist())
        print(sorted(m for m in sys.modules if m.startswith("tack")))
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=python_env())
    assert r.returncode == 0, r.stderr
    out = r.stdout
    lines = out.splitlines()
    assert lines[0] == "[1.0, 3.0, 5.0, 7.0]"
    assert "llvmlite" not in out


def test_public_names():
    for name in ("init", "device", "sync", "field", "zeros", "ones", "full", "arange",
                 "field_like", "concat", "Vector", "from_dlpack", "field_from_ptr",
                 "memory_space", "kernel", "func", "constant", "ndrange", "inspect",
                 "atomic_add", "local_array", "UnsupportedSyntaxError", "Array", "Field"):
        assert hasattr(tack, name), name
    assert pathlib.Path(tack.__file__).parent == PACKAGE


@tack.kernel
def four_args(a, b, c, s):
    for i in range(a.shape[0]):
        c[i] = a[i] * s + b[i]


def test_launch_overhead_is_microseconds():
    # The target is 2 us median for this call; the bound here is loose so that a loaded
    # machine does not fail it, while a Python-level call path (tens of us) would.
    import time

    a, b, c = (tack.field(tack.f32, 1) for _ in range(3))
    four_args(a, b, c, 2.0)
    medians = []
    for _ in range(20):
        t = time.perf_counter_ns()
        for _ in range(500):
            four_args(a, b, c, 2.0)
        medians.append((time.perf_counter_ns() - t) / 500)
    assert sorted(medians)[len(medians) // 2] < 10_000
