# The signatures of _aio.py (see _fields.pyi for why a stub).
from typing import Any

from numpy.typing import NDArray

from ._tack import Field

async def sync_async() -> None:
    """Wait, without blocking the event loop, for every launch queued so far on every device."""

async def numpy_async(self: Field) -> NDArray[Any]:
    """The field's contents as a NumPy array, once the launches queued before the call ran."""
