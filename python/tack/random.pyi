# The signatures of random.py: its generators are @tack.func device functions on u32 states,
# their NumPy mirrors functions over arrays of states.
from typing import Any

from numpy.typing import ArrayLike, NDArray

from ._kernels import Func

advance: Func[[int], int]
seed: Func[[int, int], int]
uniform: Func[[int], tuple[float, int]]
normal: Func[[int], tuple[float, int]]
direction2: Func[[int], tuple[Any, int]]
direction3: Func[[int], tuple[Any, int]]

def np_advance(state: ArrayLike) -> NDArray[Any]: ...
def np_seed(index: ArrayLike, stream: ArrayLike) -> NDArray[Any]: ...
def np_uniform(state: ArrayLike) -> tuple[NDArray[Any], NDArray[Any]]: ...
def np_normal(state: ArrayLike) -> tuple[NDArray[Any], NDArray[Any]]: ...
def np_direction2(state: ArrayLike) -> tuple[NDArray[Any], NDArray[Any]]: ...
def np_direction3(state: ArrayLike) -> tuple[NDArray[Any], NDArray[Any]]: ...
