"""tack.runtime.dispatch.get_backend() (CONTRACT C4) and the env-flag parser (C3)."""

from .._devices import active_device, env_flag


def get_backend():
    """The active device, selecting the CPU first when none was chosen."""
    return active_device()


__all__ = ["env_flag", "get_backend"]
