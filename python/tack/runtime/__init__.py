"""Compatibility with upstream's module layout: tack.runtime.dispatch.get_backend()."""

# tack.runtime.dispatch works after `import tack.runtime`, as upstream.
from .dispatch import get_backend  # noqa: F401
