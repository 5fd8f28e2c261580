"""DLPack and memory spaces on CUDA with CuPy and/or PyTorch (scripts/gpu_check.sh step 4).

Run with PYTHONPATH=python after building the extension. Prints each check; exit status 1 when
one fails, 0 otherwise (a library that is not installed is reported and skipped)."""

import sys

import numpy as np

import tack

failures = []


def check(label, ok):
    print(f"  {'ok  ' if ok else 'FAIL'} {label}")
    if not ok:
        failures.append(label)


@tack.kernel
def add_one(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0


@tack.kernel
def fill(x, v):
    for i in range(x.shape[0]):
        x[i] = v


def with_cupy():
    import cupy as cp

    a = cp.arange(4096, dtype=cp.float32)
    f = tack.from_dlpack(a)  # kDLCUDA in, zero-copy
    add_one(f)  # binds memory another library owns: completes before returning
    check("cupy -> tack (kDLCUDA import, zero-copy)", bool(cp.all(a == cp.arange(4096) + 1)))
    g = tack.zeros(tack.f32, 4096)
    fill(g, 3.0)
    b = cp.from_dlpack(g)  # kDLCUDA out; share() waited for the fill
    check("tack -> cupy (kDLCUDA export)", float(b.sum()) == 3.0 * 4096)
    h = tack.field_from_ptr(a.data.ptr, tack.f32, (4096,), writable=True)
    add_one(h)
    check("field_from_ptr of a device pointer", float(a[10]) == 12.0)
    check("memory_space(device) == 'cuda'", tack.memory_space(a.data.ptr) == "cuda")
    managed = cp.cuda.malloc_managed(1 << 20)
    space = tack.memory_space(managed.ptr)
    check("memory_space(managed) == 'cuda_managed'", space == "cuda_managed")
    pinned = cp.cuda.alloc_pinned_memory(1 << 20)
    check("memory_space(pinned) == 'cuda_pinned'", tack.memory_space(pinned.ptr) == "cuda_pinned")
    host = np.zeros(16, np.float32)
    check("memory_space(pageable host) == 'cpu'", tack.memory_space(host.ctypes.data) == "cpu")


def with_torch():
    import torch

    t = torch.arange(4096, dtype=torch.float32, device="cuda")
    f = tack.from_dlpack(t)
    add_one(f)
    want = torch.arange(4096, device="cuda") + 1
    check("torch -> tack (kDLCUDA import)", bool((t == want).all()))
    g = tack.zeros(tack.f32, 4096)
    fill(g, 2.0)
    u = torch.from_dlpack(g)
    check("tack -> torch (kDLCUDA export)", float(u.sum()) == 2.0 * 4096)
    check("tack field's __dlpack_device__ is kDLCUDA", g.__dlpack_device__()[0] == 2)


def export_memory():
    import os

    g = tack.zeros(tack.f32, 1000)
    fill(g, 4.0)
    e = g.export_memory()
    check(
        f"export_memory: posix_fd {e.handle}, {e.size} of {e.allocation_size} bytes",
        e.handle_type == "posix_fd" and e.size == 4000 and e.allocation_size >= 4000,
    )
    check("export_memory: the fd is open", os.fstat(e.handle).st_size >= 0)
    check("export_memory: a device uuid", len(e.device_uuid) == 32)


def main():
    tack.init("cuda")
    print("export_memory:")
    export_memory()
    for name, run in (("CuPy", with_cupy), ("PyTorch", with_torch)):
        print(f"{name}:")
        try:
            run()
        except ImportError as e:
            print(f"  skipped: {e}")
    print("dlpack check:", "FAILED " + ", ".join(failures) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
