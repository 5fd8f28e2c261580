"""Backend selection: tack.init, tack.device, tack.sync (docs/spec/contract.md#c1)."""

import os
import sys

from . import _tack

# Every architecture the core can generate code for, one row each of the core's table
# (src/driver/targets.cpp): its install hint, and whether its arrays are host memory. One this
# build lacks is "unavailable" (with what is missing), not "unknown". Each hint starts with
# "Requires", the word the public tests look for.
_TARGETS = {name: (hint, host) for name, hint, host in _tack._targets()}
_HINTS = {name: hint for name, (hint, _) in _TARGETS.items()}
_CONTRACT_ARCHS = tuple(_TARGETS)
# tack.cpu, tack.cuda, ...: each name as a constant (tack/__init__.py exports them).
globals().update({name: name for name in _TARGETS})

_OFF = ("", "0", "false", "no", "off")


def env_flag(name):
    """Whether the flag `name` is on: unset, empty, 0, false, no and off (any case, spaces
    ignored) are off, anything else on."""
    value = os.environ.get(name)
    return value is not None and value.strip().lower() not in _OFF


def _known_archs():
    return sorted(set(_CONTRACT_ARCHS) | set(_tack._available_backends()))


def _check_arch(arch):
    if not isinstance(arch, str) or arch not in _known_archs():
        raise ValueError(
            f"Unknown architecture: {arch!r}. Available: {', '.join(_known_archs())}"
        )
    if arch not in _tack._available_backends():
        missing = ImportError(f"This build of Tack was compiled without the '{arch}' backend.")
        raise RuntimeError(
            f"Cannot initialize {arch!r} backend: missing dependency. {missing} "
            f"{_HINTS.get(arch, '')}"
        ) from missing


def _system():
    names = {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}
    return names.get(sys.platform, sys.platform)


def _sentence(text):
    """The core's reason ending in a full stop, so the install hint reads as its own sentence.
    (After a colon, not capitalized: it may start with a library's file name.)"""
    text = text.strip()
    return text if not text or text.endswith(".") else text + "."


def _open(arch, options, fresh):
    _check_arch(arch)
    try:
        return _tack._open_device(arch, options, fresh)
    except RuntimeError as e:
        reason = str(e).removeprefix(f"Cannot initialize {arch!r} backend: ")
        raise RuntimeError(
            f"Cannot initialize {arch!r} backend on {_system()}: {_sentence(reason)} "
            f"{_HINTS.get(arch, '')}"
        ) from e


def init(arch="cpu", **options):
    """Build a new backend for `arch` and make it the active one, on every call, also for the
    arch already active; if building fails, the previous backend stays active.

    With TACK_NO_REINIT set and a backend already active, returns the active device without
    validating anything.
    """
    if env_flag("TACK_NO_REINIT") and _tack._device_used():
        return _tack._default_device()
    return _open(arch, options, fresh=True)


def device(name, **options):
    """Make `name`'s device the default and return it.

    With no options it is the one process-wide device of that name (its compiled kernels are
    kept when the default switches away and back); with options a new device is built.
    """
    return _open(name, options, fresh=False)


def sync():
    """Wait for every launch queued on every live device."""
    _tack._sync()


def active_device():
    """The active device (the CPU when none was chosen)."""
    return _tack._default_device()


# CONTRACT C21. Backends whose arrays are host memory wrap it in field_from_ptr, so every
# pointer is "cpu" to them: the CPU, Metal (unified memory) and OpenCL, whose buffers have no
# address a host can hold. A backend with device memory asks its driver (cuPointerGetAttribute,
# hipPointerGetAttributes, zeMemGetAllocProperties) through the core, which can query the active
# device only; for another device it refuses rather than guess, as C21 has a failed Level Zero
# query do.
_HOST_MEMORY_ONLY = tuple(name for name, (_, host) in _TARGETS.items() if host)


def _device_memory_space(device, ptr):
    """Where `ptr` lives for this device: "cpu", or one of the device's
    `device_memory_spaces`. Anything that is not an address (an int in [0, 2**64)) answers
    "cpu" without asking a driver."""
    # The null pointer is no allocation of any device's.
    if not isinstance(ptr, int) or isinstance(ptr, bool) or not 0 < ptr < 2**64:
        return "cpu"
    if device.name in _HOST_MEMORY_ONLY or not device.device_memory_spaces:
        return "cpu"
    if device == active_device():
        return _tack._memory_space(ptr)  # the driver's answer (CUDA: cuPointerGetAttribute)
    raise RuntimeError(
        f"Cannot tell which memory pointer {ptr:#x} is in: this build's {device.label} backend "
        "has no memory-space query yet"
    )


_device_memory_space.__name__ = "memory_space"
_device_memory_space.__qualname__ = "Device.memory_space"
_tack.Device.memory_space = _device_memory_space


def memory_space(ptr):
    """Where `ptr` lives for the active backend; see Device.memory_space."""
    return active_device().memory_space(ptr)
