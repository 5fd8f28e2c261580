"""Compatibility with upstream's module layout: tack.runtime.dispatch.get_backend()."""

from . import dispatch  # noqa: F401  (tack.runtime.dispatch works after import tack.runtime)
