"""`with tack.debug():` (docs/spec/decisions.md#debug-mode); `tack.init(debug=True)` and
TACK_DEBUG=1 are device settings the core reads when the device is built."""

from . import _tack


class _DebugBlock:
    # A context manager of its own rather than contextlib's: contextlib (with collections and
    # functools) was a tenth of `import tack`.
    def __init__(self, enabled):
        self._enabled = enabled
        self._previous = None

    def __enter__(self):
        if not isinstance(self._enabled, bool):
            raise TypeError(
                f"tack.debug() takes True or False, got {type(self._enabled).__name__}")
        self._previous = _tack._exchange_thread_debug(1 if self._enabled else 0)

    def __exit__(self, *exc):
        _tack._exchange_thread_debug(self._previous)
        return False


def debug(enabled=True):
    """Run the kernels this thread launches inside the block in debug mode (or, with
    `enabled=False`, outside it), whatever the device's own setting.

    Debug variants check every field, local-array and shared-array index and every integer
    `//` and `%`; each launch waits for its device and raises IndexError or ZeroDivisionError,
    naming the kernel, the source position, the index and the shape (or the operands), for the
    launch's first violation. Blocks nest; leaving one restores the mode it found.
    """
    return _DebugBlock(enabled)
