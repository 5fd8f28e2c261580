# The signatures of _debug.py (see _fields.pyi for why a stub).
from types import TracebackType

class _DebugBlock:
    def __enter__(self) -> None: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool: ...

def debug(enabled: bool = True) -> _DebugBlock:
    """Run the kernels this thread launches inside the block in debug mode (or, with
    `enabled=False`, outside it), whatever the device's own setting."""
