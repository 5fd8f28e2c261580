"""tack.runtime.dispatch: get_backend() (the active backend, the CPU chosen first when none
was), env_flag() (unset, empty, 0, false, no and off are off) and the install guidance per
backend that tack.init's errors carry."""

from .. import _devices
from .._devices import active_device, env_flag

_BACKEND_HELP = _devices._HINTS  # the name upstream's tests read


def get_backend():
    """The active device, selecting the CPU first when none was chosen."""
    return active_device()


__all__ = ["env_flag", "get_backend"]
