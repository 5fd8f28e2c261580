"""Backend selection: tack.init, tack.device, tack.sync (CONTRACT C1-C3, C29)."""

import os
import sys

from . import _tack

cpu = "cpu"
metal = "metal"
cuda = "cuda"
hip = "hip"
level_zero = "level_zero"
opencl = "opencl"

# The architectures the public contract and DECISIONS name; one this build lacks is
# "unavailable" (with what is missing), not "unknown".
_CONTRACT_ARCHS = ("cpu", "cuda", "hip", "level_zero", "metal", "opencl")

_HINTS = {
    "cpu": "The CPU backend is part of every build; check the LLVM installation.",
    "cuda": "The CUDA backend needs an NVIDIA driver (libcuda.so) and NVRTC.",
    "hip": "The HIP backend needs ROCm (libamdhip64.so and hipRTC).",
    "level_zero": "The Level Zero backend needs libze_loader.so and libocloc.so.",
    "metal": "The Metal backend runs on macOS only.",
    "opencl": "The OpenCL backend needs an OpenCL 1.2+ ICD (for example PoCL).",
}

_OFF = ("", "0", "false", "no", "off")


def env_flag(name):
    """CONTRACT C3: unset, empty, 0, false, no, off (any case, spaces ignored) are off."""
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
        missing = ImportError(f"this build of Tack was compiled without the '{arch}' backend")
        raise RuntimeError(
            f"Cannot initialize {arch!r} backend: missing dependency. {missing} "
            f"{_HINTS.get(arch, '')}"
        ) from missing


def _system():
    names = {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}
    return names.get(sys.platform, sys.platform)


def _open(arch, options, fresh):
    _check_arch(arch)
    try:
        return _tack._open_device(arch, options, fresh)
    except RuntimeError as e:
        reason = str(e).removeprefix(f"Cannot initialize {arch!r} backend: ")
        raise RuntimeError(
            f"Cannot initialize {arch!r} backend on {_system()}. {reason} "
            f"{_HINTS.get(arch, '')}"
        ) from e


def init(arch="cpu", **options):
    """Build a new backend for `arch` and make it the active one (CONTRACT C1).

    With TACK_NO_REINIT set and a backend already active, returns the active device without
    validating anything (C3).
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
