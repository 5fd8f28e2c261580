"""pytest plugin that runs the public Tack test suite against this package.

Loaded with `-p tack_public_plugin` by scripts/public_tests.sh, in place of the public
checkout's root conftest.py (which --confcutdir keeps pytest from reading). It provides:

- the backend fixtures the public tests take (`backend`, `f64_backend`, `reduction_backend`,
  `workgroup_backend`), each parametrized over the backends this build has that initialize
  here, filtered by the declared capabilities (never by name). Each re-inits its backend and
  returns the name string, because public tests compare `backend == "cpu"`;
- module shims for the few internal names public-API tests import (PUBLIC-TESTS.md section 5):
  `tack.lang.source_validation.UnsupportedSyntaxError` is our class, `tack.lang.func.Func` our
  Func, `tack.lang.constant.{Float,Int}Constant` our constant types, `tack.lang.types.<dtype>` our
  dtypes, `tack.lang.dlpack` the DLPack ABI structs (ctypes) and capsule calls,
  `Kernel.get_ir()` / `.func` exist, `Field._buffer` reaches a field's memory (`.address`,
  `._data`), `Field._writable` is `writable`, and `get_backend()._cache` counts a kernel's
  variants, `Kernel._ir_cache` its IR templates and `tack.lang.template_rewrite.iteration_space`
  is our `_iteration_space`. Any other `tack.lang.*`, `tack.codegen.*` or missing
  `tack.runtime.*` module is a stub whose attributes raise when used, so files that import
  internals at module top still collect; the tests that use those internals then fail and are
  counted as "internal".
"""

import ctypes
import importlib
import importlib.abc
import importlib.machinery
import os
import re
import sys
import types
import weakref

import numpy as np
import pytest

import tack

STUB_PREFIXES = ("tack.lang", "tack.codegen", "tack.runtime.")


class InternalStub:
    """Stands for an internal of the Python implementation; any use raises."""

    def __init__(self, qualname):
        self._qualname = qualname
        self.__name__ = self.__qualname__ = qualname.rpartition(".")[2]

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{self._qualname} is an internal of the Python implementation")

    __call__ = _refuse
    __iter__ = _refuse
    __int__ = _refuse
    __index__ = _refuse

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return InternalStub(f"{self._qualname}.{name}")

    def __mro_entries__(self, bases):
        # `class X(StubbedBase)` at module top: derive from object instead.
        return (object,)

    def __repr__(self):
        return f"<internal stub {self._qualname}>"


_SHIMMED = set()  # module names with real contents (_real_shims), filled by _StubFinder


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        qualname = f"{self.__name__}.{name}"
        if qualname in _SHIMMED:  # `from tack.lang import dlpack`
            return importlib.import_module(qualname)
        return InternalStub(qualname)


def _dlpack_abi():
    """The DLPack ABI (dlpack.h v1.0) as ctypes structs, with the CPython capsule calls, under
    the names public DLPack tests read a capsule with (`tack.lang.dlpack`). Written from the
    DLPack header, not from the Python implementation."""

    class DLDevice(ctypes.Structure):
        _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

    class DLDataType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16)]

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                    ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)),
                    ("byte_offset", ctypes.c_uint64)]

    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class DLManagedTensor(ctypes.Structure):
        _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", deleter)]

    class DLPackVersion(ctypes.Structure):
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]

    class DLManagedTensorVersioned(ctypes.Structure):
        _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

    api = ctypes.pythonapi
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", api))
    is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_IsValid", api))
    return {
        "DLDevice": DLDevice, "DLDataType": DLDataType, "DLTensor": DLTensor,
        "DLManagedTensor": DLManagedTensor, "DLPackVersion": DLPackVersion,
        "DLManagedTensorVersioned": DLManagedTensorVersioned,
        "DLPACK_FLAG_BITMASK_READ_ONLY": 1 << 0, "DLPACK_FLAG_BITMASK_IS_COPIED": 1 << 1,
        "_PyCapsule_GetPointer": get_pointer, "_PyCapsule_IsValid": is_valid,
    }


def _real_shims():
    """Public-compatible names under the Python implementation's module paths."""
    dtypes = (tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64,
              tack.f32, tack.f64)
    return {
        "tack.lang.source_validation": {"UnsupportedSyntaxError": tack.UnsupportedSyntaxError},
        "tack.lang.types": {t.name: t for t in dtypes},
        "tack.lang.func": {"Func": tack.Func},
        "tack.lang.dlpack": _dlpack_abi(),
        "tack.lang.template_rewrite": {"iteration_space": tack._tack._iteration_space},
        # The classes of our scalar constants, whatever module defines them.
        "tack.lang.constant": {
            "FloatConstant": type(tack.constant(1.0)),
            "IntConstant": type(tack.constant(1)),
        },
    }


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: answers only for modules our package does not have."""

    def __init__(self):
        self._shims = _real_shims()
        _SHIMMED.update(self._shims)

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(STUB_PREFIXES) and fullname not in ("tack.lang", "tack.codegen"):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__dict__.update(self._shims.get(spec.name, {}))
        return module

    def exec_module(self, module):
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


_USED_AS_VALUE = re.compile(r"array '(\w+)' used as a value")
_WRONG_RANK = re.compile(r"'(\w+)' has \d+ dimension\(s\) but is indexed with (\d+) ind")


def _dummy_arg(kind, element):
    if kind == "scalar":
        return 1  # an int: it may be a loop bound or an index
    shape = (1,) * kind
    if element is None:
        return tack.field(tack.f32, shape)
    if isinstance(element, int):
        return tack.Vector.field(element, tack.f32, shape)
    return tack.Matrix.field(*element, tack.f32, shape)


def _get_ir(self, vector_fields=None, **_):
    """Public tests call get_ir() to trigger frontend errors: validate and raise, or return
    the typed IR text. The arguments are guessed: a one-element f32 field per parameter (a
    vector or matrix field where `vector_fields` gives `{name: n}` or `{name: (n, m)}`), then,
    as the core's type errors tell, a scalar for a parameter used as a value and a field of the
    rank a parameter is indexed with."""
    elements = dict(vector_fields or {})
    kinds = {name: 1 for name in self.params}
    for _ in range(2 * len(kinds) + 1):
        args = [_dummy_arg(kinds[name], elements.get(name)) for name in self.params]
        try:
            return tack.inspect(self, *args, mode="ir")
        except TypeError as e:
            scalar, rank = _USED_AS_VALUE.search(str(e)), _WRONG_RANK.search(str(e))
            if scalar and kinds.get(scalar[1]) != "scalar":
                kinds[scalar[1]] = "scalar"
            elif rank and rank[1] in kinds and kinds[rank[1]] != int(rank[2]):
                kinds[rank[1]] = int(rank[2])
            else:
                raise
    return tack.inspect(self, *args, mode="ir")


class _BufferShim:
    """`field._buffer` of the Python implementation, as far as public tests use it to reach a
    field's memory: one object per storage (`a._buffer is a.reshape(...)._buffer`), `.address`
    and, on host-visible memory, `._data` (a NumPy view, taken through DLPack). Memory a host
    cannot address (OpenCL buffers) refuses both, rather than hand field_from_ptr a handle."""

    def __init__(self, field):
        self._field = field

    def _host_view(self):
        try:
            return np.from_dlpack(self._field)
        except BufferError as e:
            raise NotImplementedError(f"_buffer of a field that is not host-visible: {e}") from e

    @property
    def address(self):
        self._host_view()
        return self._field.address

    @property
    def _data(self):
        return self._host_view()

    def __getattr__(self, name):
        raise NotImplementedError(f"Field._buffer.{name} is an internal of the Python "
                                  "implementation")


_BUFFERS = weakref.WeakValueDictionary()


def _buffer(field):
    key = (field.device, field.address)
    shim = _BUFFERS.get(key)
    if shim is None:
        shim = _BUFFERS[key] = _BufferShim(field)
    return shim


class _VariantCacheShim:
    """`get_backend()._cache` of the Python implementation, as far as public tests count
    compiled variants with it: `get(kernel)` / `[kernel]` is a sized stand-in for that kernel's
    variants on this device (`Kernel._num_variants()`), and `pop(kernel)` forgets the ones
    compiled so far (the count restarts there). Anything else is internal."""

    _baselines = {}

    def __init__(self, device):
        self._device = device

    def _count(self, kernel):
        key = (self._device, kernel)
        return kernel._num_variants() - self._baselines.get(key, 0)

    def get(self, kernel, default=None):
        n = self._count(kernel)
        return range(n) if n else default

    def __getitem__(self, kernel):
        n = self._count(kernel)
        if not n:
            raise KeyError(kernel)
        return range(n)

    def __contains__(self, kernel):
        return self._count(kernel) > 0

    def pop(self, kernel, *default):
        n = self._count(kernel)
        self._baselines[(self._device, kernel)] = kernel._num_variants()
        if n:
            return range(n)
        if default:
            return default[0]
        raise KeyError(kernel)

    def __getattr__(self, name):
        raise NotImplementedError(f"Backend._cache.{name} is an internal of the Python "
                                  "implementation")

    def __len__(self):
        raise NotImplementedError("len(Backend._cache) is an internal of the Python "
                                  "implementation")


def _install_shims():
    sys.meta_path.append(_StubFinder())
    unwrapped = property(lambda self: self.__wrapped__)
    tack.Kernel.func = unwrapped
    tack.Kernel.get_ir = _get_ir
    tack.Func.func = unwrapped
    tack.Field._buffer = property(_buffer)
    tack.Field._writable = property(lambda field: field.writable)
    tack.Device._cache = property(_VariantCacheShim)
    # `len(kernel._ir_cache)`: the kernel's lowered IR templates on this device.
    tack.Kernel._ir_cache = property(lambda k: range(k._num_templates()))


_install_shims()


def _probe_backends():
    # Backends left out are never opened: the emulated HIP device must not share a process with
    # PoCL (tests/python/conftest.py says why).
    wanted = [b for b in os.environ.get("TACK_PUBLIC_BACKENDS", "").split(",") if b]
    usable, excluded = {}, {}
    for name in tack._tack._available_backends():
        if wanted and name not in wanted:
            continue
        try:
            usable[name] = tack.init(name)
        except (ImportError, RuntimeError, OSError, AttributeError) as e:
            excluded[name] = str(e)
    tack.init(tack.cpu)
    return usable, excluded


BACKENDS, EXCLUDED = _probe_backends()

CAPABILITIES = {
    "backend": lambda d: True,
    "f64_backend": lambda d: d.supports_f64,
    "reduction_backend": lambda d: d.supports_device_reductions,
    "workgroup_backend": lambda d: d.supports_workgroups,
}


def pytest_report_header(config):
    lines = [f"tack package: {os.path.dirname(tack.__file__)}"]
    lines.append(f"tack backends: {', '.join(BACKENDS)}")
    lines += [f"tack backend excluded: {name}: {why}" for name, why in EXCLUDED.items()]
    return lines


def pytest_generate_tests(metafunc):
    for fixture, wants in CAPABILITIES.items():
        if fixture in metafunc.fixturenames and fixture not in metafunc.definition.module.__dict__:
            names = [n for n, d in BACKENDS.items() if wants(d)]
            metafunc.parametrize(fixture, names, indirect=True)


def _activate(request):
    tack.init(getattr(tack, request.param))
    return request.param


backend = pytest.fixture(_activate, name="backend")
f64_backend = pytest.fixture(_activate, name="f64_backend")
reduction_backend = pytest.fixture(_activate, name="reduction_backend")
workgroup_backend = pytest.fixture(_activate, name="workgroup_backend")


@pytest.fixture(autouse=True)
def _no_reinit_flag(monkeypatch):
    monkeypatch.delenv("TACK_NO_REINIT", raising=False)
