"""Tack's own exception class; every other error is a built-in Python exception."""

from . import _tack


class UnsupportedSyntaxError(NotImplementedError):
    """Valid Python that the kernel language rejects, Tack's only exception class of its own.

    A NotImplementedError, hence also a RuntimeError. The message names the kernel or device
    function, the construct and its position, followed by the user's file, line and column, the
    source line and a caret.
    """


_tack._set_unsupported_syntax_error(UnsupportedSyntaxError)
