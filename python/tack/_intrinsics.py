"""Device-only intrinsics. Inside kernels the core compiles them; these Python objects exist so
that names like `tack.atomic_add` resolve (a name bound to the same object as tack.X is that
intrinsic) and raise RuntimeError when called from Python."""


def _device_only(name):
    def intrinsic(*args, **kwargs):
        raise RuntimeError(
            f"tack.{name}() is a device-only intrinsic and cannot be called from Python; "
            "use it inside a @tack.kernel or @tack.func"
        )

    intrinsic.__name__ = intrinsic.__qualname__ = name
    intrinsic.__doc__ = f"Kernel intrinsic tack.{name} (device only)."
    return intrinsic


ndrange = _device_only("ndrange")
atomic_add = _device_only("atomic_add")
atomic_min = _device_only("atomic_min")
atomic_max = _device_only("atomic_max")
local_array = _device_only("local_array")
local_array_like = _device_only("local_array_like")
shared = _device_only("shared")
shared_like = _device_only("shared_like")
barrier = _device_only("barrier")
thread_id = _device_only("thread_id")
block_sum = _device_only("block_sum")
block_min = _device_only("block_min")
block_max = _device_only("block_max")
select = _device_only("select")
