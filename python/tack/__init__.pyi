# What `import tack` gives a type checker: the names of __init__.py, and the submodules it
# loads on first use (tack.algorithms, tack.random, tack.runtime), which a checker should see
# after a plain `import tack` as the interpreter does. tests/python/test_stubs.py checks that
# __all__ here and there agree.
from . import _tack as _tack
from . import algorithms as algorithms
from . import math as math
from . import random as random
from . import runtime as runtime
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
__version__: str

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
