# The signatures of _devices.py (see _fields.pyi for why a stub).
from typing import Any, Literal

from ._tack import Device

cpu: Literal["cpu"]
opencl: Literal["opencl"]
level_zero: Literal["level_zero"]
cuda: Literal["cuda"]
hip: Literal["hip"]
metal: Literal["metal"]

def env_flag(name: str) -> bool:
    """Whether the flag `name` is on: unset, empty, 0, false, no and off are off."""

def init(arch: str = "cpu", **options: Any) -> Device:
    """Build a new backend for `arch` and make it the active one, on every call, also for the
    arch already active; if building fails, the previous backend stays active.

    With TACK_NO_REINIT set and a backend already active, returns the active device without
    validating anything.
    """

def device(name: str, **options: Any) -> Device:
    """Make `name`'s device the default and return it.

    With no options it is the one process-wide device of that name (its compiled kernels are
    kept when the default switches away and back); with options a new device is built.
    """

def sync() -> None:
    """Wait for every launch queued on every live device."""

def active_device() -> Device:
    """The active device (the CPU when none was chosen)."""

def memory_space(ptr: int) -> str:
    """Where `ptr` lives for the active backend; see Device.memory_space."""
