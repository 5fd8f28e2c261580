"""The package's typed stubs: the generated ones (the device-only intrinsics, _intrinsics.pyi and
math.pyi, from the builtin table; the extension's, _tack.pyi, from the module) are what
scripts/gen_stubs.py makes today; every device-only name of tack and tack.math has one; the
hand-written stubs of the Python modules name what the modules define, with the same
parameters; every public name has a docstring (the API reference is made of them); the package
ships the stubs with its py.typed marker."""

import ast
import fnmatch
import importlib.util
import inspect
import subprocess

import pytest

import tack
import tack.algorithms
import tack.math
import tack.random
import tack.runtime

from conftest import ROOT

PACKAGE = ROOT / "python" / "tack"


def gen_stubs():
    spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "scripts" / "gen_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stub_defs(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def device_only_names(module):
    return {name for name, obj in vars(module).items()
            if not name.startswith("_") and inspect.isfunction(obj)
            and obj.__module__ == "tack._intrinsics"}


def test_checked_in_stubs_are_current():
    for path, text in gen_stubs().stubs(tack._tack._builtins(), tack._tack).items():
        assert open(path, encoding="utf-8").read() == text, (
            f"{path} is stale: run PYTHONPATH=python .venv/bin/python scripts/gen_stubs.py")


def test_every_device_only_name_has_a_stub_and_every_stub_a_name():
    for module, stub in ((tack, "_intrinsics.pyi"), (tack.math, "math.pyi")):
        defs = {n for n in stub_defs(PACKAGE / stub) if not n.startswith("_")}
        names = device_only_names(module)
        assert names, module.__name__
        assert defs == names, (module.__name__, defs ^ names)


def test_stub_arguments_are_the_signatures():
    rows = {(r[4], r[0]): r for r in tack._tack._builtins()}
    for module, stub in (("tack", "_intrinsics.pyi"), ("tack.math", "math.pyi")):
        for name, node in stub_defs(PACKAGE / stub).items():
            if name.startswith("_"):
                continue
            _, _, signature, doc, _ = rows[(module, name)]
            params = ast.parse(f"def {signature}: ...").body[0].args
            assert [a.arg for a in node.args.args] == [a.arg for a in params.args], name
            assert (node.args.vararg is None) == (params.vararg is None), name
            assert len(node.args.defaults) == len(params.defaults), name
            assert ast.get_docstring(node) == doc, name


def test_the_package_ships_the_stubs():
    # pyproject.toml's wheel.packages copies the package folder, less wheel.exclude and what git
    # ignores: the stubs and the marker must be in the folder and ignored by neither.
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["scikit-build"]
    assert "python/tack" in config["wheel"]["packages"]
    files = ["py.typed"] + sorted(p.name for p in PACKAGE.glob("*.pyi"))
    assert {"_tack.pyi", "__init__.pyi", "_intrinsics.pyi", "math.pyi"} <= set(files)
    for name in files:
        assert (PACKAGE / name).exists(), name
        assert not any(fnmatch.fnmatch(f"tack/{name}", p) for p in config["wheel"]["exclude"])
    ignored = subprocess.run(["git", "check-ignore", *(f"python/tack/{n}" for n in files)],
                             cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout == "", ignored.stdout


def test_init_stub_exports_what_the_package_does():
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    stub_all = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and any(getattr(t, "id", None) == "__all__" for t in n.targets))
    assert sorted(stub_all) == sorted(tack.__all__)
    # The submodules that load on first use are attributes to a checker after `import tack`.
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
                and n.module is None for a in n.names}
    assert set(tack._LAZY_SUBMODULES) | {"math"} <= imported


# Python modules whose stub is written by hand beside them (their own annotations would cost
# `import tack` the typing module).
HAND_STUBS = ["_aio", "_constants", "_debug", "_devices", "_fields", "_kernels", "_templates",
              "_textures", "random"]


def public_runtime_names(module):
    return {n for n, obj in vars(module).items() if not n.startswith("_")
            and (inspect.isfunction(obj) or inspect.isclass(obj) or type(obj).__name__ == "Func")
            and getattr(obj, "__module__", module.__name__) == module.__name__
            and getattr(obj, "__name__", n) == n}  # an alias (an older name) is not its own


@pytest.mark.parametrize("name", HAND_STUBS)
def test_hand_written_stubs_match_their_modules(name):
    module = importlib.import_module(f"tack.{name}")
    tree = ast.parse((PACKAGE / f"{name}.pyi").read_text())
    defined = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.setdefault(node.name, node)
        elif isinstance(node, (ast.AnnAssign, ast.Assign)):
            for t in [node.target] if isinstance(node, ast.AnnAssign) else node.targets:
                defined.setdefault(getattr(t, "id", ""), node)
    missing = {n for n in public_runtime_names(module) if n not in defined}
    assert not missing, f"{name}.pyi lacks {sorted(missing)}"
    for stub_name, node in defined.items():
        if stub_name.startswith("_") and stub_name not in vars(module):
            continue
        assert hasattr(module, stub_name), f"{name}.pyi declares {stub_name}, the module has none"
        obj = getattr(module, stub_name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and inspect.isfunction(obj):
            runtime = [p.name for p in inspect.signature(obj).parameters.values()
                       if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            a = node.args
            stub = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
            assert stub == runtime, (name, stub_name, stub, runtime)


def test_every_public_name_has_a_docstring():
    missing = []
    for module in (tack, tack.math, tack.random, tack.algorithms, tack.runtime):
        names = getattr(module, "__all__", None) or [n for n in dir(module) if n[0] != "_"]
        for n in names:
            obj = getattr(module, n)
            if inspect.ismodule(obj) or isinstance(obj, (str, int, float, tack.DType)):
                continue
            if not (inspect.getdoc(obj) or "").strip():
                missing.append(f"{module.__name__}.{n}")
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if not (inspect.getdoc(value) or "").strip():
                        missing.append(f"{module.__name__}.{n}.{attr}")
    assert not missing, missing
