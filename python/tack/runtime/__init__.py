"""Compatibility with upstream's module layout: tack.runtime.dispatch.get_backend()."""
