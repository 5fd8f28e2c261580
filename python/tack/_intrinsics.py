"""Device-only intrinsics. Inside kernels the core compiles them; these Python objects exist so
that names like `tack.atomic_add` resolve (a name bound to the same object as tack.X is that
intrinsic) and raise RuntimeError when called from Python.

Which names get one is the builtin table's word (src/builtins/builtins.cpp, read through
_tack._builtins()): a row whose module is "tack" is bound here, one whose module is "tack.math"
in tack.math. The signatures are in the stubs (_intrinsics.pyi, math.pyi), generated from the
same table by scripts/gen_stubs.py."""

from . import _tack

# (name, category, signature, doc, module) of every builtin, sorted by name.
ROWS = _tack._builtins()


def _device_only(name):
    def intrinsic(*args, **kwargs):
        raise RuntimeError(
            f"tack.{name}() is a device-only intrinsic and cannot be called from Python; "
            "use it inside a @tack.kernel or @tack.func"
        )

    intrinsic.__name__ = intrinsic.__qualname__ = name
    intrinsic.__doc__ = f"Kernel intrinsic tack.{name} (device only)."
    return intrinsic


def bind(module):
    """{name: device-only object} for the rows bound under `module` ("tack" or "tack.math")."""
    prefix = module[len("tack"):].lstrip(".")
    objects = {}
    for name, _category, signature, doc, where in ROWS:
        if where != module:
            continue
        intrinsic = _device_only(f"{prefix}.{name}" if prefix else name)
        intrinsic.__name__ = intrinsic.__qualname__ = name
        intrinsic.__doc__ = f"{signature}\n\n{doc}\n\n{intrinsic.__doc__}"
        objects[name] = intrinsic
    return objects


globals().update(bind("tack"))
