"""The stubs of the device-only intrinsics (python/tack/_intrinsics.pyi, math.pyi) are what
scripts/gen_stubs.py makes of the builtin table today, they parse, and every device-only name of
tack and tack.math has one; the package ships them with its py.typed marker."""

import ast
import fnmatch
import importlib.util
import inspect
import subprocess

import pytest

import tack
import tack.math

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
    for path, text in gen_stubs().stubs(tack._tack._builtins()).items():
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
    files = ["py.typed", "_intrinsics.pyi", "math.pyi"]
    for name in files:
        assert (PACKAGE / name).exists(), name
        assert not any(fnmatch.fnmatch(f"tack/{name}", p) for p in config["wheel"]["exclude"])
    ignored = subprocess.run(["git", "check-ignore", *(f"python/tack/{n}" for n in files)],
                             cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout == "", ignored.stdout
