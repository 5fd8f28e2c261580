"""tack.constant: named values kernels read as literals.

On the host a scalar constant is an ordinary int or float (a subclass that remembers its
dtype); a vector or matrix constant indexes and iterates like a tuple but is not one, so
`SUN + SUN` is an error instead of a silent concatenation. Every value is checked here, once:
a constant that cannot be represented in its dtype never reaches a kernel.
"""

import operator

from ._tack import DType

_INT_RANGES = {
    "i8": (-(2**7), 2**7 - 1),
    "u8": (0, 2**8 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "u16": (0, 2**16 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u64": (0, 2**64 - 1),
}
_NUMPY_NAMES = {
    "i8": "int8",
    "u8": "uint8",
    "i16": "int16",
    "u16": "uint16",
    "i32": "int32",
    "u32": "uint32",
    "i64": "int64",
    "u64": "uint64",
    "f32": "float32",
    "f64": "float64",
}
_UNTYPED_RANGE = (-(2**63), 2**64 - 1)  # B2: an untyped integer literal is i32, i64 or u64


class IntConstant(int):
    """An integer tack.constant: an ordinary int on the host, a literal in kernels."""

    dtype = None

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


class FloatConstant(float):
    """A float tack.constant: an ordinary float on the host, a literal in kernels."""

    dtype = None

    def __repr__(self):
        return float.__repr__(self)

    __str__ = __repr__


# The names of the previous releases of this package.
ConstantInt, ConstantFloat = IntConstant, FloatConstant


def _is_number(v):
    return not isinstance(v, (str, bytes, tuple, list)) and (
        hasattr(v, "__index__") or hasattr(v, "__float__")
    )


def _scalar(value, dtype):
    """The checked host value of one component."""
    if not _is_number(value):
        raise TypeError(f"tack.constant() takes a number, got {type(value).__name__}")
    integral = isinstance(value, bool) or hasattr(value, "__index__")
    if dtype is not None and dtype.name in _INT_RANGES:
        if not integral:
            raise TypeError(
                f"tack.constant({value!r}, tack.{dtype.name}): an integer type needs an integer"
            )
        lo, hi = _INT_RANGES[dtype.name]
        v = operator.index(value)
        if not lo <= v <= hi:
            raise ValueError(
                f"tack.constant({v}, tack.{dtype.name}): {v} does not fit in {dtype.name}"
            )
        c = IntConstant(v)
    elif dtype is not None:
        c = FloatConstant(float(value))  # a float dtype: the literal under that cast
    elif integral:
        v = operator.index(value)
        lo, hi = _UNTYPED_RANGE
        if not lo <= v <= hi:
            raise ValueError(
                f"tack.constant({v}) does not fit in 64 bits "
                "(kernel integers are at most i64 or u64)"
            )
        c = IntConstant(v)
    else:
        c = FloatConstant(float(value))
    c.dtype = dtype
    return c


class VectorConstant:
    """A vector or matrix tack.constant: indexes and iterates like a tuple, but is not one."""

    __slots__ = ("_rows", "dtype", "shape")

    def __init__(self, rows, dtype, shape):
        self._rows, self.dtype, self.shape = rows, dtype, shape

    def __getitem__(self, i):
        if isinstance(i, tuple):
            r, c = i
            return self._rows[r][c]
        return self._rows[i]

    def __iter__(self):
        return iter(self._rows)

    def __len__(self):
        return len(self._rows)

    def _plain(self):
        return tuple(tuple(r) if isinstance(r, tuple) else r for r in self._rows)

    def __eq__(self, other):
        import numpy as np

        return bool(np.array_equal(np.asarray(self), np.asarray(other)))

    __hash__ = None

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        want = dtype or (_NUMPY_NAMES[self.dtype.name] if self.dtype else None)
        return np.array(self._plain(), dtype=want)

    def components(self):
        """The components, row-major (what kernels see)."""
        out = []
        for r in self._rows:
            out.extend(r if isinstance(r, tuple) else (r,))
        return tuple(out)

    def __repr__(self):
        body = repr(
            tuple(
                tuple(float(x) if isinstance(x, FloatConstant) else int(x) for x in r)
                if isinstance(r, tuple)
                else (float(r) if isinstance(r, FloatConstant) else int(r))
                for r in self._rows
            )
        )
        return (
            f"tack.constant({body}, tack.{self.dtype.name})"
            if self.dtype
            else f"tack.constant({body})"
        )


def _vector(value, dtype):
    items = tuple(value)
    if not items:
        raise ValueError("tack.constant(()) has no components")
    rows = [isinstance(v, (tuple, list)) for v in items]
    if any(rows) and not all(rows):
        raise TypeError(
            "tack.constant() got a mix of numbers and rows; a vector holds numbers "
            "and a matrix holds rows of numbers"
        )
    if not any(rows):
        return VectorConstant(tuple(_scalar(v, dtype) for v in items), dtype, (len(items),))
    width = len(items[0])
    if width == 0 or any(len(r) != width for r in items):
        raise ValueError("the rows of a matrix tack.constant must have the same, nonzero length")
    for r in items:
        if any(isinstance(v, (tuple, list)) for v in r):
            raise TypeError("tack.constant() takes at most two levels: a vector or a matrix")
    matrix = tuple(tuple(_scalar(v, dtype) for v in r) for r in items)
    return VectorConstant(matrix, dtype, (len(items), width))


def constant(value, dtype=None):
    """A compile-time constant: a literal in kernels (typed by `dtype` when given, else as a
    literal is), an ordinary number on the host."""
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"tack.constant() dtype must be a Tack dtype such as tack.f32, got {dtype!r}"
        )
    if isinstance(value, (tuple, list)):
        return _vector(value, dtype)
    return _scalar(value, dtype)


def classify(obj):
    """The core's view of a constant (see _names.py), or None when `obj` is not one."""
    if isinstance(obj, IntConstant):
        return ("int", int(obj), obj.dtype)
    if isinstance(obj, FloatConstant):
        return ("float", float(obj), obj.dtype)
    if isinstance(obj, VectorConstant):
        comps = tuple(
            float(c) if isinstance(c, FloatConstant) else int(c) for c in obj.components()
        )
        cols = obj.shape[1] if len(obj.shape) == 2 else 0
        return ("tuple", obj.shape[0], cols, comps, obj.dtype)
    return None
