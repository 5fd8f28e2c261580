# The signatures of _textures.py (see _fields.pyi for why a stub).
from collections.abc import Sequence

from ._tack import Field

class Texture3D:
    """What tack.texture3d returns. Pass it to kernels like a field."""

    shape: tuple[int, int, int]
    interp: str
    def __init__(self, field: Field, shape: Sequence[int], interp: str = "linear") -> None: ...
    def update(self) -> None:
        """Copies the field again: kernels see its current contents from now on."""
    def sample(self, u: float, v: float, w: float) -> float:
        """In kernels: the trilinear sample at normalized coordinates (u, v, w) in [0, 1]."""

def texture3d(field: Field, shape: Sequence[int], interp: str = "linear") -> Texture3D:
    """A 3-D texture over `field` (f32, W*H*D elements, x fastest) of shape (W, H, D)."""
