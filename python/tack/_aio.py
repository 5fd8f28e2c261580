"""asyncio: `await tack.sync_async()` and `await field.numpy_async()`.

The mark is taken at the call, on the calling thread (launches queued later are not waited for),
and waited on in one of Tack's wait threads (`tack-wait`, 4) with the GIL released; the
coroutine resumes on its event loop, which keeps running while the device works. Kernel calls
stay plain calls. On a backend whose launches complete before returning (the CPU) there is
nothing to wait for and the coroutine completes at once.
"""

import _thread

from . import _tack

# asyncio and concurrent.futures load here only when a coroutine first waits for a device: they
# are half of what `import tack` would otherwise import (the coroutine's event loop has loaded
# asyncio by then anyway).
_POOL = None
_POOL_LOCK = _thread.allocate_lock()


def _waiters():
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            import concurrent.futures

            _POOL = concurrent.futures.ThreadPoolExecutor(
                max_workers=4, thread_name_prefix="tack-wait"
            )
        return _POOL


async def _wait(marks):
    if len(marks) == 0:
        return
    import asyncio

    await asyncio.get_running_loop().run_in_executor(_waiters(), marks.wait)


async def sync_async():
    """Wait, without blocking the event loop, for every launch queued so far on every device."""
    await _wait(_tack._mark_all())


async def numpy_async(self):
    """The field's contents as a NumPy array, once the launches queued before the call ran."""
    await _wait(_tack._mark_field(self))
    return self.to_numpy()


_tack.Field.numpy_async = numpy_async
