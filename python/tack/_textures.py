"""tack.texture3d: a 3-D f32 texture sampled in kernels with trilinear filtering.

A texture is a snapshot: creating it copies the field, and later writes to the field (from the
host or a kernel) are invisible until `tex.update()` copies it again. Two textures over one
field are independent copies. In kernels, `tex.sample(u, v, w)` takes normalized coordinates
in [0, 1] (0 and 1 at the centres of the first and last texels, clamped) and interpolates
trilinearly on every backend.
"""

import operator

from . import _tack
from ._intrinsics import _device_only


class Texture3D:
    """What tack.texture3d returns. Pass it to kernels like a field."""

    __slots__ = {
        "_source": None,
        "_storage": None,
        "shape": "(W, H, D), x fastest.",
        "interp": "The filtering: 'linear' (trilinear), the only one.",
        "__weakref__": None,
    }

    def __init__(self, field, shape, interp="linear"):
        if interp != "linear":
            raise ValueError(f"tack.texture3d interp must be 'linear', got {interp!r}")
        if not isinstance(field, _tack.Field):
            raise TypeError(f"tack.texture3d needs a tack field, got {type(field).__name__}")
        w, h, d = (operator.index(x) for x in shape)
        if not all(0 <= x < 2**63 for x in (w, h, d)):
            raise ValueError(f"tack.texture3d extents must lie in [0, 2**63 - 1]; got {(w, h, d)}")
        self._source, self.shape, self.interp = field, (w, h, d), interp
        self._storage = _tack._texture_storage(field, w, h, d)

    def update(self):
        """Copies the field again: kernels see its current contents from now on."""
        w, h, d = self.shape
        self._storage = _tack._texture_storage(self._source, w, h, d)

    sample = _device_only("texture3d.sample")

    def __repr__(self):
        return f"<tack.texture3d shape={self.shape} interp={self.interp!r}>"


_tack._register_texture_type(Texture3D)


def texture3d(field, shape, interp="linear"):
    """A 3-D texture over `field` (f32, W*H*D elements, x fastest) of shape (W, H, D)."""
    return Texture3D(field, shape, interp)
