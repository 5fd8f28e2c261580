"""Field creation and memory interop (CONTRACT C6-C12, C19-C23). The work is the core's."""

import operator
import sys

from . import _tack
from ._tack import Field, f32, i32


def _shape(shape):
    return (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(shape)


def field(dtype=f32, shape=(), exportable=False):
    """A new zero-filled field. `exportable` matters to CUDA only (CONTRACT C6)."""
    return _tack._field(dtype, _shape(shape), None)


def zeros(dtype, shape):
    return field(dtype, shape)


def ones(dtype, shape):
    f = field(dtype, shape)
    f.fill(1)
    return f


def full(dtype, shape, value):
    f = field(dtype, shape)
    f.fill(value)
    return f


def arange(n, dtype=i32):
    """0, 1, ..., n-1 as `dtype`."""
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"arange needs a non-negative count, got {n}")
    if n >= 2**63:
        raise ValueError(f"arange({n}) is too large: the element count exceeds 2**63 - 1")
    return _tack._arange(n, dtype)


def field_like(arr, dtype=None):
    """A new field with `arr`'s shape (and dtype unless given), holding a copy of `arr`."""
    if isinstance(arr, Field):
        return arr.astype(dtype if dtype is not None else arr.dtype)
    shape, np_dtype = arr.shape, arr.dtype  # AttributeError for non-arrays (CONTRACT C28)
    if dtype is None:
        dtype = _tack._dtype_from_numpy(np_dtype)
        if dtype is None:
            raise TypeError(f"Unsupported numpy dtype: {np_dtype}")
    f = field(dtype, shape)
    f.from_numpy(arr)
    return f


def concat(fields):
    """A new 1-D field holding the fields' elements one after another."""
    return _tack._concat(list(fields))


class Vector:
    """Vector fields: `tack.Vector.field(n, dtype, shape)` (storage; CONTRACT C6, C11)."""

    @staticmethod
    def field(n, dtype=f32, shape=()):
        return _tack._field(dtype, _shape(shape), (operator.index(n),))


class Matrix:
    """Matrix fields: `tack.Matrix.field(n, m, dtype, shape)`, stored row-major."""

    @staticmethod
    def field(n, m, dtype=f32, shape=()):
        return _tack._field(dtype, _shape(shape), (operator.index(n), operator.index(m)))


def _is_ndarray(obj):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.ndarray)


def _address(ptr):
    try:
        address = operator.index(ptr)
    except TypeError:
        raise TypeError(
            "field_from_ptr() takes an integer address or a NumPy array, "
            f"got {type(ptr).__name__}"
        ) from None
    if not 0 <= address < 2**64:
        raise ValueError(f"Pointer {address} is not a 64-bit address")
    return address


def field_from_ptr(ptr, dtype, shape, writable=False):
    """Wrap existing memory without copying; Tack never frees it (CONTRACT C19-C20).

    The field is read-only unless `writable`: host writes raise RuntimeError and kernels that
    may store to it are refused before launch. A NumPy array is kept alive by the field.
    """
    owner = None
    if _is_ndarray(ptr):
        owner = ptr
        ptr = ptr.__array_interface__["data"][0]
    return _tack._field_from_ptr(_address(ptr), dtype, _shape(shape), bool(writable), owner)


array_from_ptr = field_from_ptr


def memory_space(ptr):
    """Where `ptr` lives for the active backend (CONTRACT C21): "cpu" on the CPU; on OpenCL too,
    whose buffers have no device addresses a host can hold (wrapping takes host memory).
    Anything that is not an address answers "cpu" without asking a driver."""
    return "cpu"


def from_dlpack(source, copy=False):
    """A field sharing a DLPack producer's memory (CONTRACT C23); `copy=True` copies it."""
    is_capsule = type(source).__name__ == "PyCapsule"
    if not is_capsule and not hasattr(source, "__dlpack__"):
        raise TypeError(
            "from_dlpack() takes a DLPack capsule or an object with __dlpack__, "
            f"got {type(source).__name__}"
        )
    if copy:
        import numpy as np

        return field_like(np.from_dlpack(source))
    if is_capsule:
        return _tack._from_dlpack_capsule(source)
    try:
        capsule = source.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = source.__dlpack__()
    return _tack._from_dlpack_capsule(capsule)
