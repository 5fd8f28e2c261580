"""Field creation and memory interop (docs/spec/contract.md#c6 and #c19). The work is the
core's."""

import operator
import sys

from . import _tack
from ._tack import Field, f32, i32


def _shape(shape):
    return (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(shape)


def field(dtype=f32, shape=(), exportable=False):
    """A new zero-filled field. `exportable=True` keeps its memory exportable for its whole life
    (export_memory then hands out the field's own allocation, which sees later kernel writes)
    on CUDA; other backends make an ordinary field."""
    return _tack._field(dtype, _shape(shape), None, bool(exportable))


def zeros(dtype, shape):
    """A new field of zeros."""
    return field(dtype, shape)


def ones(dtype, shape):
    """A new field of ones."""
    f = field(dtype, shape)
    f.fill(1)
    return f


def full(dtype, shape, value):
    """A new field with every element `value`."""
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


def _device_value(name):
    raise RuntimeError(
        f"tack.{name}(...) builds a value inside a @tack.kernel or @tack.func; on the host use "
        "tuples, NumPy arrays or tack.constant"
    )


class Vector:
    """Small vectors: `tack.Vector([x, y, z])` in kernels, taken apart into scalars, and vector
    fields, `tack.Vector.field(n, dtype, shape)`, whose host shape describes the flat storage."""

    def __new__(cls, *args, **kwargs):
        _device_value("Vector")

    @staticmethod
    def field(n, dtype=f32, shape=()):
        """A zero-filled field of `shape` whose elements are `n`-component vectors of
        `dtype`."""
        n = operator.index(n)
        most = _tack._MAX_VECTOR_COMPONENTS
        if not 1 <= n <= most:
            raise ValueError(f"Vector.field({n}): vectors have 1 to {most} components")
        return _tack._field(dtype, _shape(shape), (n,))


class Matrix:
    """Small matrices up to 4x4, taken apart into scalars: `tack.Matrix([[a, b], [c, d]])`,
    `tack.Matrix.identity(n)` in kernels, and matrix fields, `tack.Matrix.field(n, m, dtype,
    shape)`, stored row-major."""

    def __new__(cls, *args, **kwargs):
        _device_value("Matrix")

    @staticmethod
    def identity(n):
        """In kernels: the n x n identity matrix."""
        _device_value("Matrix.identity")

    @staticmethod
    def field(n, m, dtype=f32, shape=()):
        """A zero-filled field of `shape` whose elements are n x m matrices of `dtype`
        (row-major)."""
        n, m = operator.index(n), operator.index(m)
        most = _tack._MAX_MATRIX_EXTENT
        if not (1 <= n <= most and 1 <= m <= most):
            raise ValueError(f"Matrix.field({n}, {m}): matrices are at most {most}x{most}")
        return _tack._field(dtype, _shape(shape), (n, m))


def _is_ndarray(obj):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.ndarray)


def _address(ptr):
    try:
        address = operator.index(ptr)
    except TypeError:
        raise TypeError(
            f"field_from_ptr() takes an integer address or a NumPy array, got {type(ptr).__name__}"
        ) from None
    if not 0 <= address < 2**64:
        raise ValueError(f"Pointer {address} is not a 64-bit address")
    return address


def _object_id(obj, kind, label):
    """The id of an Objective-C object (pyobjc's __c_void_p__ protocol), for backends whose
    field_from_ptr wraps one (Metal: an MTLBuffer) rather than an address."""
    to_void_p = getattr(type(obj), "__c_void_p__", None)
    if to_void_p is None:
        raise TypeError(
            f"the {label} backend wraps an {kind} object, not {type(obj).__name__}: pass the "
            f"pyobjc {kind} (an object whose __c_void_p__() gives its id)"
        )
    address = to_void_p(obj).value
    if not address:
        raise TypeError(f"the {label} backend wraps an {kind} object, not nil")
    return address


def field_from_ptr(ptr, dtype, shape, writable=False):
    """Wrap existing memory without copying; Tack never frees it.

    The field is read-only unless `writable`: host writes raise RuntimeError and kernels that
    may store to it are refused before launch. A NumPy array is kept alive by the field; on
    Metal `ptr` is an MTLBuffer object, which the field keeps (and retains).
    """
    device = _tack._default_device()
    kind = device.wraps_object
    if kind:
        address = _object_id(ptr, kind, device.label)
        return _tack._field_from_ptr(address, dtype, _shape(shape), bool(writable), ptr)
    owner = None
    if _is_ndarray(ptr):
        owner = ptr
        ptr = ptr.__array_interface__["data"][0]
    return _tack._field_from_ptr(_address(ptr), dtype, _shape(shape), bool(writable), owner)


array_from_ptr = field_from_ptr


def from_dlpack(source, copy=False):
    """A field sharing a DLPack producer's memory, writable unless the versioned capsule says
    read-only; `copy=True` copies it."""
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
