"""@tack.kernel, @tack.func, tack.constant and tack.inspect (CONTRACT A1, A20-A22, A27, C26)."""

import functools

from . import _names, _source, _tack
from ._tack import DType, Kernel


def _wrap(target, fn):
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(target, attr, getattr(fn, attr, None))
    target.__wrapped__ = fn
    return target


def kernel(fn=None):
    """Decorator: compile `fn` as a Tack kernel at its first call (CONTRACT A1).

    Reads and parses the source now; validation, name resolution and lowering happen at the
    first call or tack.inspect, and their errors surface there.
    """
    if fn is None:
        return kernel
    src = _source.capture(fn, "kernel")
    k = Kernel(src.text, src.path, src.line_offset, src.col_offset, _names.resolver(fn))
    return _wrap(k, fn)


class Func:
    """A @tack.func: inlined into the kernels that call it (CONTRACT A20)."""

    def __init__(self, fn):
        src = _source.capture(fn, "func")
        self._source = _tack._FuncSource(
            src.text, src.path, src.line_offset, src.col_offset, _names.resolver(fn)
        )
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"@tack.func '{self.__name__}' cannot be called from Python. Call it from a "
            "@tack.kernel or another @tack.func."
        )

    def __repr__(self):
        return f"<tack.func {self.__qualname__}>"


def func(fn=None):
    """Decorator: a device function inlined at every call site."""
    if fn is None:
        return func
    return Func(fn)


class ConstantInt(int):
    """An integer tack.constant: an ordinary int on the host, a literal in kernels."""

    dtype = None


class ConstantFloat(float):
    """A float tack.constant: an ordinary float on the host, a literal in kernels."""

    dtype = None


class ConstantVector:
    """A vector tack.constant: indexes and iterates like a tuple, but is not one (A27)."""

    __slots__ = ("_values", "dtype")

    def __init__(self, values, dtype):
        self._values, self.dtype = tuple(values), dtype

    def __getitem__(self, i):
        return self._values[i]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"tack.constant({self._values!r})"


def _check_number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if not hasattr(value, "__index__") and not hasattr(value, "__float__"):
            raise TypeError(f"tack.constant() takes a number, got {type(value).__name__}")


def constant(value, dtype=None):
    """A compile-time constant (CONTRACT A27): a literal in kernels, a number on the host."""
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(f"tack.constant() dtype must be a Tack dtype, got {dtype!r}")
    if isinstance(value, (tuple, list)):
        for v in value:
            if not isinstance(v, (tuple, list)):
                _check_number(v)
        return ConstantVector(value, dtype)
    _check_number(value)
    if isinstance(value, bool) or hasattr(value, "__index__"):
        c = ConstantInt(int(value))
    else:
        c = ConstantFloat(float(value))
    c.dtype = dtype
    return c


def inspect(kernel, *args, mode="source"):
    """The pipeline's output for these arguments on the active backend, never run, compiled
    for a device or cached (CONTRACT C26): "ir" (typed IR), "source" (the CPU's LLVM IR of the
    variant these arguments select, disjoint bit included; a GPU-style backend's C dialect, e.g.
    OpenCL C) or "optimized" (the CPU's LLVM IR after O3; ValueError elsewhere). The core's
    runtime/inspect.hpp does the work, as for `tackc inspect`."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"Expected a @tack.kernel, got {type(kernel).__name__}")
    return _tack._inspect(kernel, args, mode)
