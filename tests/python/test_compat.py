"""Host API details the public Tack programs and tests rely on (CONTRACT C2, C4, C10-C12, C21):
device equality, memory spaces, the tack.runtime.dispatch module, field fills, host element
reads and the public wording of field errors."""

import subprocess
import sys

import numpy as np
import pytest

import tack

from conftest import python_env

# --- devices -----------------------------------------------------------------------------------


def test_devices_compare_with_anything():
    d = tack.init(tack.cpu)
    assert (d == None) is False and (d != None) is True  # noqa: E711
    assert (None == d) is False  # noqa: E711
    assert d != "cpu" and d != 0
    assert d == tack.runtime.dispatch.get_backend() and not (d != d)
    assert tack.init(tack.cpu) != d  # init builds a new backend (C1)
    assert tack.device("cpu") == tack.device("cpu")  # one process-wide device per name
    assert hash(tack.device("cpu")) == hash(tack.device("cpu"))
    assert len({d, tack.runtime.dispatch.get_backend(), tack.device("cpu")}) == 2


def test_memory_space_answers_without_guessing(backend):
    device = tack.runtime.dispatch.get_backend()
    host = np.zeros(4, np.float32)
    for ptr in (0, host.ctypes.data, 2**64 - 1):
        assert device.memory_space(ptr) == "cpu" == tack.memory_space(ptr)
    for not_an_address in ("0x10", 1.5, -1, 2**64, None, True):
        assert device.memory_space(not_an_address) == "cpu"
    # The method belongs to the Device type, not only to instances.
    assert type(device).memory_space is tack.Device.memory_space


def test_memory_space_refuses_to_guess_where_it_cannot_ask():
    """A backend with device memory and no query in the core (Level Zero today) raises rather
    than call a device pointer host memory; non-addresses and null still answer "cpu"."""
    from types import SimpleNamespace

    level_zero = SimpleNamespace(name="level_zero", label="Level Zero",
                                 device_memory_spaces=("level_zero",))
    space = tack.Device.memory_space
    assert space(level_zero, 0) == space(level_zero, "ptr") == space(level_zero, 2**64) == "cpu"
    with pytest.raises(RuntimeError, match="Level Zero backend has no memory-space query"):
        space(level_zero, 0x1000)


def test_import_tack_makes_runtime_dispatch_usable():
    out = subprocess.run(
        [sys.executable, "-c", "import tack; print(tack.runtime.dispatch.get_backend().name)"],
        capture_output=True, text=True, env=python_env(), check=True).stdout
    assert out.strip() == "cpu"


def test_unavailable_backends_carry_their_install_guidance():
    from tack.runtime.dispatch import _BACKEND_HELP

    for arch in ("cpu", "metal", "cuda", "hip", "level_zero", "opencl"):
        assert len(_BACKEND_HELP[arch]) > 20
    assert "libze_loader" in _BACKEND_HELP["level_zero"]
    missing = [a for a in ("hip", "cuda", "metal") if a not in tack._tack._available_backends()]
    if not missing:
        pytest.skip("every backend is compiled in")
    with pytest.raises(RuntimeError, match="missing dependency") as e:
        tack.init(missing[0])
    assert _BACKEND_HELP[missing[0]].splitlines()[0] in str(e.value)
    assert isinstance(e.value.__cause__, ImportError)


def test_a_backend_that_fails_to_start_says_why_then_what_to_install():
    from tack.runtime.dispatch import _BACKEND_HELP

    if "opencl" not in tack._tack._available_backends():
        pytest.skip("needs the opencl backend compiled in")
    with pytest.raises(RuntimeError) as e:
        tack.init("opencl", platform=10**6)
    message = str(e.value)
    assert message.startswith("Cannot initialize 'opencl' backend on ")
    assert message.endswith(". " + _BACKEND_HELP["opencl"])
    assert isinstance(e.value.__cause__, RuntimeError)


# --- fill --------------------------------------------------------------------------------------


def test_fill_takes_an_element_as_any_array_like(backend):
    frames = tack.Matrix.field(2, 2, dtype=tack.i32, shape=(3,))
    element = np.array([[1, 2], [3, 4]])
    frames.fill(element)
    expected = np.broadcast_to(element.astype(np.int32), (3, 2, 2))
    np.testing.assert_array_equal(frames.to_numpy(vectors=True), expected)
    frames.fill(((5, 6), (7, 8)))
    np.testing.assert_array_equal(frames.to_numpy(vectors=True)[1], [[5, 6], [7, 8]])

    colors = tack.Vector.field(3, dtype=tack.f32, shape=(2, 2))
    colors.fill(np.array([0.25, 0.5, 1.0], np.float64))
    np.testing.assert_array_equal(colors.to_numpy(), np.tile(np.float32([0.25, 0.5, 1.0]), 4))
    colors.fill(np.float32(3.0))  # a NumPy scalar sets every component
    assert (colors.to_numpy() == 3.0).all()

    scalars = tack.field(tack.f32, (3,))
    scalars.fill(np.array(2.5))  # a 0-d array is a number
    np.testing.assert_array_equal(scalars.to_numpy(), [2.5, 2.5, 2.5])


def test_fill_refuses_a_value_of_the_wrong_shape(backend):
    colors = tack.Vector.field(3, dtype=tack.f32, shape=(4,))
    colors.fill(1.0)
    with pytest.raises(ValueError, match=r"^fill\(\) got a value of shape \(2,\); the elements "
                                         r"of this field have shape \(3,\)$"):
        colors.fill([1.0, 2.0])
    frames = tack.Matrix.field(2, 2, dtype=tack.f32, shape=(1,))
    with pytest.raises(ValueError, match=r"shape \(4,\); the elements of this field have shape "
                                         r"\(2, 2\)"):
        frames.fill(np.arange(4))
    assert (colors.to_numpy() == 1.0).all()  # nothing was written
    scalars = tack.field(tack.f32, (4,))
    with pytest.raises(TypeError, match="takes a scalar for a field of scalars, got list"):
        scalars.fill([1.0, 2.0])
    with pytest.raises(TypeError, match="takes a scalar for a field of scalars, got ndarray"):
        scalars.fill(np.ones(4))
    with pytest.raises(TypeError, match="fill\\(\\) takes a number, got str"):
        scalars.fill("1")


# --- host element reads --------------------------------------------------------------------------


def test_host_reads_take_one_integer_per_dimension(backend):
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = tack.field_like(values)
    assert f[np.int64(2), 1] == values[2, 1] and f[-1, -4] == values[-1, -4]
    for index in (1, (0, 1, 2), (slice(0, 2), 0), (0, 1.0), (True, 0), "0"):
        with pytest.raises(TypeError, match=r"shape \(3, 4\) takes 2 integer indices"):
            f[index]
    with pytest.raises(IndexError, match="index 4 is out of range for axis 1 with size 4"):
        f[0, 4]
    with pytest.raises(IndexError, match="index -4 is out of range for axis 0 with size 3"):
        f[-4, 0]
    with pytest.raises(TypeError, match="zero-dimensional"):
        f[None]
    with pytest.raises(TypeError, match="not written by element"):
        f[0, 0] = 1.0
    with pytest.raises(TypeError, match="not iterated"):
        list(f)

    line = tack.field_like(values[0])
    with pytest.raises(TypeError, match=r"shape \(4,\) takes 1 integer index"):
        line[0, 0]

    z = tack.field(tack.i32, ())
    z.fill(9)
    assert z[None] == 9 and z[()] == 9
    with pytest.raises(TypeError, match=r"zero-dimensional field is read with f\[None\]"):
        z[0]


def test_numpy_conversion_copies_and_says_so(backend):
    f = tack.field_like(np.arange(3, dtype=np.float32))
    a = np.asarray(f)
    a[0] = 7.0  # a copy: the field is unchanged
    assert f.to_numpy().tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(f, dtype=np.int64).dtype == np.int64
    np.testing.assert_array_equal(np.array(f, copy=True), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="np.from_dlpack"):
        np.asarray(f, copy=False)


# --- messages with the public wording ----------------------------------------------------------


def test_field_errors_use_the_public_wording(backend):
    f = tack.field(tack.f32, (12,))
    with pytest.raises(ValueError, match=r"^Cannot reshape a field of size 12 into shape "
                                         r"\(5, 3\)$"):
        f.reshape((5, 3))
    with pytest.raises(TypeError, match=r"^concat\(\) needs fields of the same dtype, got "
                                        r"tack\.f32 and tack\.i32$"):
        tack.concat([f, tack.field(tack.i32, (2,))])


@pytest.mark.parametrize("decorator,noun", [("kernel", "kernel"), ("func", "device function")])
def test_unreadable_source_names_what_it_is(decorator, noun):
    namespace = {}
    exec(compile("def generated(x):\n    return x\n", "<generated>", "exec"), namespace)
    with pytest.raises(RuntimeError, match=rf"^Cannot read the source of {noun} 'generated' "
                                           rf"\(@tack\.{decorator}\)") as e:
        getattr(tack, decorator)(namespace["generated"])
    assert isinstance(e.value.__cause__, OSError)


def test_dtypes_carry_their_numpy_dtype():
    expected = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
                "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
                "f32": np.float32, "f64": np.float64}
    for name, np_type in expected.items():
        t = getattr(tack, name)
        assert isinstance(t.numpy_dtype, np.dtype) and t.numpy_dtype == np.dtype(np_type)
        assert t.numpy_dtype == t.np
    assert np.iinfo(tack.u16.numpy_dtype).max == 2**16 - 1


# --- DLPack ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 2)])
def test_empty_tensors_import_whatever_their_strides(backend, shape):
    source = np.zeros(shape, np.float32)  # NumPy exports zero strides for empty arrays
    f = tack.from_dlpack(source)
    assert f.shape == shape and f.size == 0 and f.sum() == 0.0
    assert f.to_numpy().shape == shape
    with pytest.raises(ValueError, match="only C-contiguous tensors"):
        tack.from_dlpack(np.zeros((4, 4), np.float32)[:, :2])
