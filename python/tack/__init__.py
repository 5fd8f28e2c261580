"""Tack: data-parallel kernels written in Python, compiled by a C++ core.

    import tack
    tack.init(arch=tack.cpu)

    @tack.kernel
    def saxpy(x, y, a):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

This package is thin: it captures kernel source, answers the core's questions about names,
and converts arguments and exceptions. Parsing, type checking, code generation and dispatch
are the C++ core's (the `_tack` extension).
"""

import os as _os
import sys as _sys

from . import _tack, math
from ._aio import sync_async
from ._debug import debug
from ._devices import (
    cpu,
    cuda,
    device,
    hip,
    init,
    level_zero,
    memory_space,
    metal,
    opencl,
    sync,
)
from ._errors import UnsupportedSyntaxError
from ._fields import (
    Matrix,
    Vector,
    arange,
    array_from_ptr,
    concat,
    field,
    field_from_ptr,
    field_like,
    from_dlpack,
    full,
    ones,
    zeros,
)
from ._intrinsics import (
    atomic_add,
    atomic_max,
    atomic_min,
    barrier,
    block_max,
    block_min,
    block_sum,
    local_array,
    local_array_like,
    ndrange,
    select,
    shared,
    shared_like,
    thread_id,
)
from ._kernels import Func, constant, func, inspect, kernel
from ._tack import (
    Device,
    DType,
    Field,
    Graph,
    GraphParam,
    Kernel,
    KernelProfile,
    Profile,
    capture,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    profile,
    u8,
    u16,
    u32,
    u64,
)
from ._templates import data_oriented, template
from ._textures import Texture3D, texture3d

Array = Field
__version__ = _tack.__version__

_DTYPES = {t.name: t for t in (i8, u8, i16, u16, i32, u32, i64, u64, f32, f64)}


def _dtype_by_name(name):
    """Pickle support for dtype objects."""
    return _DTYPES[name]


__all__ = [
    "Array", "Device", "DType", "Field", "Func", "Graph", "GraphParam", "Kernel", "Matrix",
    "UnsupportedSyntaxError", "Vector", "arange", "array_from_ptr", "atomic_add", "atomic_max",
    "atomic_min", "barrier", "block_max", "block_min", "block_sum", "capture", "concat",
    "constant", "cpu", "cuda", "debug", "device", "f32", "f64", "field", "field_from_ptr",
    "field_like", "from_dlpack", "full", "func", "hip", "i8", "i16", "i32", "i64", "init",
    "inspect", "kernel", "level_zero", "local_array", "local_array_like", "math", "memory_space",
    "metal", "ndrange", "ones", "opencl", "profile", "Profile", "KernelProfile", "select",
    "shared", "shared_like", "sync", "sync_async", "data_oriented", "template", "Texture3D",
    "texture3d", "thread_id", "u8", "u16", "u32", "u64", "zeros",
]


# Submodules that load on first use, keeping `import tack` cheap: tack.random imports NumPy
# (its host-side mirrors), tack.runtime is the capability query, tack.algorithms the library
# kernels. Kernels name them after a plain `import tack` too (tack._names reads this list).
_LAZY_SUBMODULES = ("algorithms", "random", "runtime")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'tack' has no attribute {name!r}")


def _extend_path(path, name):
    """pkgutil.extend_path for a regular package, without importing pkgutil (with importlib.util
    and typing it was a third of `import tack`): every `name` folder on sys.path is part of
    this package, in sys.path order after the package's own."""
    path = list(path)
    for entry in _sys.path:
        if not isinstance(entry, str):
            continue
        candidate = _os.path.join(entry or _os.getcwd(), name)
        if candidate not in path and _os.path.isdir(candidate):
            path.append(candidate)
    return path


# Other distributions (tack-vis, tack-rendering) add modules under tack/: every `tack` folder
# on sys.path is part of this package (this package's own modules are all in its own folder).
__path__ = _extend_path(__path__, __name__)
