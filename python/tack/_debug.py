"""`with tack.debug():` (DECISIONS "Debug mode"); `tack.init(debug=True)` and TACK_DEBUG=1 are
device settings the core reads when the device is built."""

import contextlib

from . import _tack


@contextlib.contextmanager
def debug(enabled=True):
    """Run the kernels this thread launches inside the block in debug mode (or, with
    `enabled=False`, outside it), whatever the device's own setting.

    Debug variants check every field, local-array and shared-array index and every integer
    `//` and `%`; each launch waits for its device and raises IndexError or ZeroDivisionError,
    naming the kernel, the source position, the index and the shape (or the operands), for the
    launch's first violation. Blocks nest; leaving one restores the mode it found.
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"tack.debug() takes True or False, got {type(enabled).__name__}")
    previous = _tack._exchange_thread_debug(1 if enabled else 0)
    try:
        yield
    finally:
        _tack._exchange_thread_debug(previous)
