"""Packaging properties: import cost, no Python-side kernel compiler, the public names."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import tack

from conftest import ROOT, python_env

PACKAGE = ROOT / "python" / "tack"


def run_python(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env=python_env())
    assert r.returncode == 0, r.stderr
    return r.stdout


def run_script(tmp_path, code):
    """run_python for code that defines kernels (they need their source in a file)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=python_env())
    assert r.returncode == 0, r.stderr
    return r.stdout


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


def test_import_loads_no_heavy_modules():
    # asyncio (with ssl, subprocess, ...) and pkgutil (with importlib.util and typing) were two
    # thirds of `import tack`, contextlib, functools and collections another tenth;
    # tack.sync_async loads asyncio when a coroutine first waits.
    code = ("import sys, tack; heavy = ('asyncio', 'concurrent.futures', 'pkgutil', 'typing', "
            "'numpy', 'contextlib', 'functools', 'collections', 'weakref'); "
            "print(sorted(m for m in heavy if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=python_env())
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_lazy_submodules_resolve_in_kernels_after_import_tack(tmp_path):
    # NumPy users expect numpy.random after `import numpy`: a kernel names tack.random after a
    # plain `import tack`, which leaves it unloaded until then (issue 24).
    out = run_script(tmp_path, """
        import sys, numpy as np, tack
        print("tack.random" in sys.modules)
        @tack.kernel
        def k(out, frame):
            for i in range(out.shape[0]):
                u, state = tack.random.uniform(tack.random.seed(i, frame))
                out[i] = u
        f = tack.zeros(tack.f32, 16)
        k(f, 3)
        want, _ = tack.random.np_uniform(tack.random.np_seed(np.arange(16), 3))
        print(np.array_equal(f.to_numpy(), want))
        print(callable(tack.algorithms.exclusive_scan))
    """)
    assert out.split() == ["False", "True", "True"]


def test_other_module_attributes_are_read_without_running_code(tmp_path):
    # Only tack's own lazy submodules are imported by a lookup; a module __getattr__ elsewhere
    # is never called (name resolution runs no user code).
    (tmp_path / "lazy_mod.py").write_text("def __getattr__(name):\n    raise SystemExit(3)\n")
    out = run_script(tmp_path, f"""
        import sys; sys.path.insert(0, {str(tmp_path)!r})
        import tack, lazy_mod
        @tack.kernel
        def k(out):
            for i in range(out.shape[0]):
                out[i] = lazy_mod.value
        try:
            k(tack.zeros(tack.f32, 4))
        except NameError as e:
            print("does not define" in str(e))
    """)
    assert out.split() == ["True"]


LAZY_LLVM = (PACKAGE / "_tack_llvm.so").exists()


@pytest.mark.skipif(not LAZY_LLVM, reason="this build links LLVM into the extension")
def test_import_maps_no_llvm_until_a_cpu_backend_starts(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import tack

        def llvm_mapped():  # libLLVM.so, or the generator module that carries LLVM in it
            return any("libLLVM" in line or "_tack_llvm" in line
                       for line in open("/proc/self/maps"))

        print(llvm_mapped())
        @tack.kernel
        def twice(x):
            for i in range(x.shape[0]):
                x[i] = 2 * x[i]
        x = tack.ones(tack.f32, 4)
        print(llvm_mapped())
        twice(x)
        print(x.to_numpy().tolist())
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=python_env())
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:3] == ["False", "True", "[2.0, 2.0, 2.0, 2.0]"]


@pytest.mark.skipif(not LAZY_LLVM, reason="this build links LLVM into the extension")
def test_missing_code_generator_module_is_explained(tmp_path):
    copy = tmp_path / "tack"
    copy.mkdir()
    for f in PACKAGE.iterdir():
        if f.suffix == ".py" or (f.name.startswith("_tack.") and f.suffix == ".so"):
            (copy / f.name).write_bytes(f.read_bytes())
    code = ("import tack\n"
            "try:\n    tack.init(tack.cpu)\n"
            "except RuntimeError as e:\n    print('RuntimeError', e)\n")
    env = dict(python_env(), PYTHONPATH=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("RuntimeError")
    assert "_tack_llvm.so cannot be loaded" in r.stdout


def test_other_tack_folders_on_sys_path_join_the_package(tmp_path):
    # What pkgutil.extend_path gave: tack-vis-style distributions add modules under tack/.
    extra = tmp_path / "site" / "tack"
    extra.mkdir(parents=True)
    (extra / "addon_probe.py").write_text("VALUE = 42\n")
    env = python_env()
    env["PYTHONPATH"] += os.pathsep + str(tmp_path / "site")
    code = "import tack.addon_probe as p, tack; print(p.VALUE, len(tack.__path__))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "42"


def test_public_names():
    for name in ("init", "device", "sync", "field", "zeros", "ones", "full", "arange",
                 "field_like", "concat", "Vector", "from_dlpack", "field_from_ptr",
                 "memory_space", "kernel", "func", "constant", "ndrange", "inspect",
                 "atomic_add", "local_array", "UnsupportedSyntaxError", "Array", "Field"):
        assert hasattr(tack, name), name
    assert pathlib.Path(tack.__file__).parent == PACKAGE
