"""Issue 12 (a hostile new user): shapes whose element or byte count overflows, internal C++
errors leaking to Python, non-regular cache entries. Each test failed before its fix."""


import sys

import numpy as np
import pytest

import tack

OVERFLOWING = [
    (tack.f32, (2**32, 2**32)),
    (tack.u8, (2**33, 2**31)),
    (tack.u8, (2**31, 2**31, 4)),
    (tack.f64, (2**21,) * 3),
]


@pytest.mark.parametrize("dtype,shape", OVERFLOWING, ids=str)
def test_overflowing_shape_is_a_value_error_naming_the_shape(backend, dtype, shape):
    with pytest.raises(ValueError, match="too large") as e:
        tack.field(dtype, shape)
    assert str(shape[0]) in str(e.value)


def test_byte_count_overflow_is_a_value_error(backend):
    # 2**62 elements fit int64, their 4 * 2**62 bytes do not.
    with pytest.raises(ValueError, match=r"\(4611686018427387904,\).*too large"):
        tack.field(tack.f32, 2**62)


def test_extent_past_int64_is_a_value_error():
    with pytest.raises(ValueError, match="too large"):
        tack.field(tack.f32, 2**70)
    with pytest.raises(ValueError, match="negative"):
        tack.field(tack.f32, -(2**70))


def test_unallocatable_field_is_a_memory_error_naming_the_shape(backend):
    with pytest.raises(MemoryError, match=r"\(1099511627776,\).*tack.f32"):
        tack.field(tack.f32, 2**40)


def test_vector_field_count_overflow():
    with pytest.raises(ValueError, match="too large"):
        tack.Vector.field(64, tack.f32, (2**60,))
    with pytest.raises(ValueError, match="too large"):
        tack.Matrix.field(4, 4, tack.f32, (2**61,))
    # Element shapes themselves are bounded: vectors up to 64, matrices up to 4x4 (A28).
    with pytest.raises(ValueError, match="1 to 64 components"):
        tack.Vector.field(2**32, tack.f32, (2**32,))
    with pytest.raises(ValueError, match="at most 4x4"):
        tack.Matrix.field(2**16, 2**16, tack.f32, (2**32,))


def test_reshape_into_an_overflowing_shape():
    z = tack.field(tack.f32, 0)
    with pytest.raises(ValueError, match="too large"):
        z.reshape((2**32, 2**32))
    assert z.reshape((2**32, 2**32, 0)).size == 0  # a zero extent is empty, as in NumPy


def test_zero_extent_with_huge_others_is_empty(backend):
    f = tack.field(tack.f32, (0, 2**40, 2**40))
    assert f.size == 0 and f.nbytes == 0


def test_huge_host_index_is_an_index_error():
    x = tack.field(tack.f32, 8)
    for idx in [2**70, -(2**70), (2**70,), (2**64,)]:
        with pytest.raises(IndexError, match="out of bounds"):
            x[idx]
    m = tack.field(tack.i32, (2, 3))
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        m[1, 2**65]
    for idx in [1.5, (1.5,)]:
        with pytest.raises(TypeError):
            x[idx]
    with pytest.raises(TypeError):
        m[0, "a"]


@pytest.mark.parametrize("source", [3, None, "x", 2.5, object()])
def test_from_dlpack_of_a_non_tensor_is_a_type_error(source):
    with pytest.raises(TypeError, match="DLPack capsule or an object with __dlpack__"):
        tack.from_dlpack(source)
    with pytest.raises(TypeError, match="DLPack capsule or an object with __dlpack__"):
        tack.from_dlpack(source, copy=True)


def test_kernel_writes_fill_the_declared_shape(backend):
    @tack.kernel
    def last(out):
        for i in range(out.shape[0]):
            out[i] = i

    f = tack.field(tack.i32, (1 << 20,))
    last(f)
    assert f[(1 << 20) - 1] == (1 << 20) - 1
    assert f.nbytes == 4 << 20
    np.testing.assert_array_equal(f.to_numpy(), np.arange(1 << 20, dtype=np.int32))


def _write_module(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(tmp_path))


KW_KERNELS = """\
import tack

@tack.kernel
def kw(x, **options):
    for i in range(x.shape[0]):
        x[i] = 1

@tack.kernel
def kwonly(x, *, n):
    for i in range(x.shape[0]):
        x[i] = n

@tack.kernel
async def coroutine(x):
    for i in range(x.shape[0]):
        x[i] = 1
"""


@pytest.mark.parametrize(
    "kernel,args,where",
    [
        ("kw", 1, "line 4, column 11"),
        ("kw", 2, "line 4, column 11"),
        ("kwonly", 1, "line 9, column 18"),
        ("kwonly", 3, "line 9, column 18"),
    ],
)
def test_unsupported_parameter_is_reported_before_the_arity(tmp_path, kernel, args, where):
    mod = _write_module(tmp_path, f"kwmod_{kernel}_{args}", KW_KERNELS)
    x = tack.field(tack.f32, 4)
    with pytest.raises(tack.UnsupportedSyntaxError, match="unsupported parameter") as e:
        getattr(mod, kernel)(*([x] * args))
    assert where in str(e.value) and "^" in str(e.value)
    with pytest.raises(tack.UnsupportedSyntaxError, match="unsupported parameter"):
        tack.inspect(getattr(mod, kernel), *([x] * args))


def test_async_kernel_is_rejected_with_its_position(tmp_path):
    mod = _write_module(tmp_path, "asyncmod", KW_KERNELS)
    x = tack.field(tack.f32, 4)
    with pytest.raises(tack.UnsupportedSyntaxError, match="AsyncFunctionDef") as e:
        mod.coroutine(x)
    assert "line 14, column 1" in str(e.value)
    np.testing.assert_array_equal(x.to_numpy(), np.zeros(4, np.float32))


NFKC_KERNELS = """\
import tack

@tack.kernel
def ligature(out):
    for i in range(out.shape[0]):
        \ufb01 = i * 2
        out[i] = fi + 1

@tack.func
def \uff54wice(v):
    return 2 * v

@tack.kernel
def fullwidth(out):
    for i in range(out.shape[0]):
        out[i] = twice(i)
"""


def test_identifiers_are_nfkc_normalized_as_python_does(tmp_path, backend):
    # Python reads 'ﬁ' as 'fi' (PEP 3131); Tack used to see two names and read an unbound or
    # different variable (issue 12).
    mod = _write_module(tmp_path, "nfkcmod_" + backend, NFKC_KERNELS)
    out = tack.field(tack.i32, 8)
    mod.ligature(out)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(8) * 2 + 1)
    mod.fullwidth(out)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(8) * 2)


MATMUL_AUG = """\
import tack

@tack.kernel
def local(a, out):
    for i in range(out.shape[0]):
        s = a[i]
        s @= a[i]
        out[i] = s

@tack.kernel
def store(a, out):
    for i in range(out.shape[0]):
        out[i] @= a[i]
"""


@pytest.mark.parametrize("kernel", ["local", "store"])
def test_augmented_matmul_on_scalars_is_rejected(tmp_path, kernel):
    # Found by fuzz_frontend: `x @= y` read past the operator table and compiled as `x += y`.
    mod = _write_module(tmp_path, "matmulaug_" + kernel, MATMUL_AUG)
    a = tack.ones(tack.f32, 4)
    out = tack.field(tack.f32, 4)
    with pytest.raises(tack.UnsupportedSyntaxError, match="operator @ on scalars"):
        getattr(mod, kernel)(a, out)
    np.testing.assert_array_equal(out.to_numpy(), np.zeros(4, np.float32))


def test_arange_counts_are_checked():
    with pytest.raises(ValueError, match="too large"):
        tack.arange(2**62)  # int64 elements, not bytes: was an internal std::vector message
    with pytest.raises(ValueError, match="too large"):
        tack.arange(2**70)  # was nanobind's "incompatible function arguments"
    with pytest.raises(ValueError, match="non-negative"):
        tack.arange(-(2**70))
    with pytest.raises(MemoryError, match="arange"):
        tack.arange(2**40)
    np.testing.assert_array_equal(tack.arange(70000, tack.u16).to_numpy(),
                                  np.arange(70000).astype(np.uint16))
