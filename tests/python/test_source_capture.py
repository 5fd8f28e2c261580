"""Reading a kernel's source without `inspect` (tack/_source.py, frontend/definition.hpp): the
lines and first line must be the ones inspect.getsourcelines gives, on files laid out every way
Python allows; where the fast path declines (no file, an encoding declaration, IPython-style
linecache text) inspect decides, and its errors stay the same."""

import importlib.util
import inspect
import linecache
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tack
from tack import _source

from conftest import python_env

LAYOUTS = {
    "plain": """
        def f(x):
            return x + 1

        y = 2
        """,
    "decorated over lines": """
        def keep(*args, **kwargs):
            return lambda fn: fn

        @keep(
            maxsize=None,
        )
        @keep(len)
        def f(x):
            return x
        z = 1
        """,
    "docstring and brackets at column 0": '''
        def f(x):
            """A docstring
        with a line at column 0
            """
            y = (x +
        1)
            s = "a\\
        b"
            return y + \\
        2
        w = 0
        ''',
    "method and nested function": """
        class C:
            def f(self, x):
                def g(y):
                    return y
                return g(x)

            def h(self):
                pass
        """,
    "trailing comments": """
        def f(x):
            return x

            # indented as the body
        # at column 0
        def g():
            pass
        """,
    "one-liner and async": """
        def f(x): return x
        async def a():
            pass
        """,
    "tabs": "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\nq = 3\n",
    "end of file without newline": "def f(x):\n    return x",
    "crlf": "def f(x):\r\n    return x\r\n\r\nz = 1\r\n",
    "bom": "\ufeffdef f(x):\n    return x\n",
    "non-ascii": "def f(x):\n    s = 'π'  # ∑\n    return x\n",
    "lone cr": "def f(x):\r    return x\r\rz = 1\r",
    "form feed and vertical tab in strings": "def f(x):\n    s = 'a\x0cb\x0bc\x1c'\n    return x\n",
}


def load(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / f"mod_{abs(hash(name))}.py"
    path.write_bytes(textwrap.dedent(text).lstrip("\n").encode(encoding) if "\r" not in text
                     else text.encode(encoding))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def functions(module):
    found = [v for v in vars(module).values() if inspect.isfunction(v)]
    if hasattr(module, "C"):
        found.append(module.C.f)
        found.append(module.C.h)
    return found


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_lines_are_inspects(tmp_path, name):
    module, _ = load(tmp_path, name, LAYOUTS[name])
    fns = [f for f in functions(module) if inspect.isfunction(f)]
    assert fns
    for fn in fns:
        assert _source._read_definition(fn) == inspect.getsourcelines(fn), (name, fn)


def test_a_file_changed_after_a_capture_is_read_again(tmp_path):
    # Each file is read once for all its definitions (hardening round three, defect 11:
    # importing N kernels read the file N times); a new version of the file is read anew.
    path = tmp_path / "changing.py"
    path.write_text("def f(x):\n    return x\n")
    first = _source._read_definition(load_path(path).f)
    path.write_text("# a line more\ndef f(x):\n    return x + 1\n")
    second = _source._read_definition(load_path(path).f)
    assert first == (["def f(x):\n", "    return x\n"], 1)
    assert second == (["def f(x):\n", "    return x + 1\n"], 2)


def load_path(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nested_functions_are_inspects(tmp_path):
    module, _ = load(tmp_path, "nested", """
        def outer(n):
            @staticmethod
            def inner(x):
                return x * n
            return inner
        """)
    inner = module.outer(2).__func__
    assert _source._read_definition(inner) == inspect.getsourcelines(inner)


def test_wrappers_are_read_as_inspect_reads_them(tmp_path):
    # inspect follows __wrapped__ to the function a functools.wraps wrapper stands for.
    module, _ = load(tmp_path, "wrapped", """
        import functools

        def logged(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                return fn(*args)
            return wrapper

        @logged
        def f(x):
            return x + 1
        """)
    assert _source._read_definition(module.f) is None
    lines, _ = inspect.getsourcelines(module.f)
    assert _source.capture(module.f, "func").text.endswith("".join(lines[-1:]))
    assert "return x + 1" in _source.capture(module.f, "func").text


def test_declined_cases_fall_back_to_inspect(tmp_path):
    module, _ = load(tmp_path, "latin-1", "# -*- coding: latin-1 -*-\ndef f(x):\n    return 'é'\n",
                     encoding="latin-1")
    assert _source._read_definition(module.f) is None
    assert _source.capture(module.f, "func").text.endswith("    return 'é'\n")
    namespace = {}
    exec("def g(x):\n    return x\n", namespace)
    assert _source._read_definition(namespace["g"]) is None
    # Text linecache holds for a file that is not on disk (how IPython registers a cell).
    cell = str(tmp_path / "cell_1.py")
    code = compile("def h(x):\n    return x\n", cell, "exec")
    exec(code, namespace)
    linecache.cache[cell] = (24, None, ["def h(x):\n", "    return x\n"], cell)
    try:
        assert _source._read_definition(namespace["h"]) is None
        assert _source.capture(namespace["h"], "func").text.endswith("    return x\n")
    finally:
        del linecache.cache[cell]


def test_kernels_from_every_layout_run(tmp_path):
    module, _ = load(tmp_path, "kernels", '''
        import tack

        class Holder:
            @tack.kernel
            def k(x, s):
                """Doc
        string"""
                for i in range(x.shape[0]):
                    x[i] = (x[i] +
        s)  # a bracket back at column 0

                # a comment indented as the body

        @tack.func
        def twice(a): return 2.0 * a

        @tack.kernel
        def j(x):
            for i in range(x.shape[0]):
                x[i] = twice(x[i])
        ''')
    x = tack.field_like(np.arange(4, dtype=np.float32))
    module.Holder.k(x, 2.0)
    np.testing.assert_array_equal(x.to_numpy(), np.arange(4, dtype=np.float32) + 2)
    module.j(x)
    np.testing.assert_array_equal(x.to_numpy(), 2 * (np.arange(4, dtype=np.float32) + 2))


def test_a_first_kernel_does_not_import_inspect(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import sys
        import tack

        @tack.kernel
        def k(x):
            for i in range(x.shape[0]):
                x[i] = 1.0

        print("inspect" in sys.modules)
        """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         check=True, env=python_env()).stdout
    assert out.strip() == "False"
