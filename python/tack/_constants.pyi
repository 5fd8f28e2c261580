# The signatures of _constants.py (see _fields.pyi for why a stub).
from collections.abc import Iterator, Sequence
from typing import Any, overload

from numpy.typing import NDArray

from ._tack import DType

class IntConstant(int):
    dtype: DType | None

class FloatConstant(float):
    dtype: DType | None

class VectorConstant:
    """A vector or matrix constant: components in kernels, a sequence on the host."""

    dtype: DType | None
    shape: tuple[int, ...]
    def __getitem__(self, i: int | tuple[int, int]) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray[Any]: ...
    def components(self) -> tuple[Any, ...]: ...

@overload
def constant(value: bool, dtype: DType | None = None) -> IntConstant: ...
@overload
def constant(value: int, dtype: DType | None = None) -> IntConstant: ...
@overload
def constant(value: float, dtype: DType | None = None) -> FloatConstant: ...
@overload
def constant(value: Sequence[Any], dtype: DType | None = None) -> VectorConstant: ...
def classify(obj: object) -> tuple[Any, ...] | None: ...
