"""The device-only objects of tack and tack.math come from the builtin table
(_tack._builtins()): one per row bound there, under the row's name, each refusing a call from
Python with the same message."""

import pytest

import tack
import tack.math


def rows(module):
    return {r[0]: r for r in tack._tack._builtins() if r[4] == module}


def test_rows_bound_under_tack_are_its_device_only_objects_and_public():
    table = rows("tack")
    assert {"atomic_add", "ndrange", "local_array", "shared", "barrier", "thread_id",
            "block_sum", "select"} <= set(table)
    for name in table:
        obj = getattr(tack, name)
        assert obj.__module__ == "tack._intrinsics" and obj.__name__ == name
        assert name in tack.__all__, name
    own = [n for n, obj in vars(tack).items()
           if callable(obj) and getattr(obj, "__module__", None) == "tack._intrinsics"
           and not n.startswith("_")]
    assert sorted(own) == sorted(table)


def test_rows_bound_under_tack_math_are_its_helpers():
    table = rows("tack.math")
    assert sorted(table) == ["clamp", "distance", "fract", "length", "mix", "normalize",
                             "saturate", "sign", "smoothstep", "step"]
    assert {r[1] for r in table.values()} == {"Helper"}
    public = {n for n in vars(tack.math) if not n.startswith("_")}
    assert public == set(table)


@pytest.mark.parametrize("module,name", [("tack", "atomic_add"), ("tack", "ndrange"),
                                         ("tack.math", "clamp"), ("tack.math", "smoothstep")])
def test_calling_from_python_is_refused(module, name):
    obj = getattr(tack if module == "tack" else tack.math, name)
    message = (f"{module}.{name}() is a device-only intrinsic and cannot be called from "
               "Python; use it inside a @tack.kernel or @tack.func")
    with pytest.raises(RuntimeError) as info:
        obj(1, 2, 3)
    assert str(info.value) == message
    assert obj.__qualname__ == name
    signature = rows(module)[name][2]
    assert obj.__doc__.startswith(signature + "\n")


def test_rows_carry_signatures_and_docs():
    table = {r[0]: r for r in tack._tack._builtins()}
    assert len(table) == 71
    assert table["clamp"][2] == "clamp(x: Value, lo: Value, hi: Value) -> Value"
    assert table["sqrt"][2] == "sqrt(x: Value) -> Value"
    assert table["sqrt"][4] == "" and table["range"][4] == ""  # Python's own objects
    for name, _category, signature, doc, module in table.values():
        assert signature.startswith(name + "(") and " -> " in signature, name
        assert doc.endswith("."), name
        assert module in ("", "tack", "tack.math"), name
    methods = {r[0]: r for r in tack._tack._builtin_methods()}
    assert methods["norm"][1:3] == ("vectors and matrices", "norm(eps: Float = 0) -> Float")
    assert methods["sample"][2] == "sample(u: Float, v: Float, w: Float) -> Float"


def test_intrinsics_keep_resolving_in_kernels():
    @tack.kernel
    def k(x, counts):
        for i in range(x.shape[0]):
            x[i] = tack.math.clamp(x[i], 0.0, 1.0) + tack.select(x[i] > 0.5, 1.0, 0.0)
            tack.atomic_add(counts, 0, 1)

    x = tack.full(tack.f32, 4, 0.75)
    counts = tack.zeros(tack.i32, 1)
    k(x, counts)
    assert x.to_numpy().tolist() == [1.75] * 4
    assert counts.to_numpy().tolist() == [4]
