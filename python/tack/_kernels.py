"""@tack.kernel, @tack.func, tack.constant and tack.inspect (docs/spec/contract.md#a1)."""

from . import _names, _source, _tack
from ._constants import constant  # noqa: F401  (re-exported as tack.constant)
from ._tack import Kernel


# What functools.update_wrapper copies, without importing functools (with collections, a tenth
# of `import tack`).
def _wrap(target, fn):
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(target, attr, getattr(fn, attr, None))
    target.__wrapped__ = fn
    return target


def kernel(fn=None):
    """Decorator: compile `fn` as a Tack kernel at its first call.

    Reads and parses the source now; validation, name resolution and lowering happen at the
    first call or tack.inspect, and their errors surface there.
    """
    if fn is None:
        return kernel
    src = _source.capture(fn, "kernel")
    k = Kernel(src.text, src.path, src.line_offset, src.col_offset, _names.resolver(fn))
    return _wrap(k, fn)


class Func:
    """A @tack.func: inlined into the kernels that call it. Fields, textures and arrays passed
    to it are aliased, other arguments copied."""

    def __init__(self, fn):
        src = _source.capture(fn, "func")
        self._source = _tack._FuncSource(
            src.text, src.path, src.line_offset, src.col_offset, _names.resolver(fn)
        )
        self.__dict__.update(getattr(fn, "__dict__", {}))
        self.__annotations__ = getattr(fn, "__annotations__", {})
        _wrap(self, fn)

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


def inspect(kernel, *args, mode="source"):
    """The pipeline's output for these arguments on the active backend, never run, compiled
    for a device or cached: "ir" (typed IR), "source" (the CPU's LLVM IR of the
    variant these arguments select, disjoint bit included; a GPU-style backend's C dialect, e.g.
    OpenCL C) or "optimized" (the CPU's LLVM IR after O3; ValueError elsewhere). The core's
    runtime/inspect.hpp does the work, as for `tackc inspect`."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"Expected a @tack.kernel, got {type(kernel).__name__}")
    return _tack._inspect(kernel, args, mode)
