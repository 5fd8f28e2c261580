# The signatures of _kernels.py (see _fields.pyi for why a stub). A kernel or device function
# keeps its Python function's parameters and result, so calls are checked against them.
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from ._constants import constant as constant
from ._tack import Kernel

_P = ParamSpec("_P")
_R = TypeVar("_R", covariant=True)
_S = TypeVar("_S")

@overload
def kernel(fn: Callable[_P, _R]) -> Kernel[_P, _R]: ...
@overload
def kernel(fn: None = None) -> Callable[[Callable[_P, _R]], Kernel[_P, _R]]: ...

class Func(Generic[_P, _R]):
    """A @tack.func: inlined into the kernels that call it. Fields, textures and arrays passed
    to it are aliased, other arguments copied."""

    def __init__(self, fn: Callable[_P, _R]) -> None: ...
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R: ...
    @overload
    def __get__(self, obj: None, cls: type | None = None) -> Func[_P, _R]: ...
    @overload
    def __get__(
        self: Func[Concatenate[_S, _P], _R], obj: _S, cls: type | None = None
    ) -> Callable[_P, _R]: ...

@overload
def func(fn: Callable[_P, _R]) -> Func[_P, _R]: ...
@overload
def func(fn: None = None) -> Callable[[Callable[_P, _R]], Func[_P, _R]]: ...
def inspect(kernel: Kernel[..., Any], *args: Any, mode: str = "source") -> str:
    """The pipeline's output for these arguments on the active backend, never run: "ir",
    "source" or "optimized"."""
