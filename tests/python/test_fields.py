"""Host API of fields (CONTRACT C6-C18), checked against NumPy."""

import math
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tack

from conftest import python_env

ALL = [tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64, tack.f32,
       tack.f64]
NP = {t: np.dtype(n) for t, n in zip(ALL, ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                         "int64", "uint64", "float32", "float64"])}


def test_array_is_field():
    assert tack.Array is tack.Field


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.name)
def test_field_is_zero_filled_and_round_trips(dtype):
    f = tack.field(dtype, (3, 4))
    assert f.shape == (3, 4) and f.dtype is dtype and f.size == 12 and len(f) == 3
    assert np.array_equal(f.to_numpy(), np.zeros((3, 4), NP[dtype]))
    data = (np.arange(12) % 100).reshape(3, 4).astype(NP[dtype])
    f.from_numpy(data)
    out = f.to_numpy()
    assert out.dtype == NP[dtype] and np.array_equal(out, data)


def test_to_numpy_is_a_new_array():
    f = tack.ones(tack.f32, 4)
    a = f.to_numpy()
    a[0] = 7
    assert f.to_numpy()[0] == 1.0


def test_int_shape_and_zero_d():
    assert tack.field(tack.f32, 5).shape == (5,)
    s = tack.field(tack.f64)
    assert s.shape == () and s.size == 1 and len(s) == 0
    s.fill(2.5)
    assert s[None] == 2.5 and s.to_numpy().shape == ()


def test_creation_helpers():
    assert np.array_equal(tack.zeros(tack.i32, (2, 2)).to_numpy(), np.zeros((2, 2), np.int32))
    assert np.array_equal(tack.ones(tack.u8, 3).to_numpy(), np.ones(3, np.uint8))
    assert np.array_equal(tack.full(tack.f32, 3, 1.5).to_numpy(), np.full(3, 1.5, np.float32))
    a = tack.arange(5)
    assert a.dtype is tack.i32 and a.to_numpy().tolist() == [0, 1, 2, 3, 4]
    assert tack.arange(4, tack.f64).to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_field_like_and_unsupported_numpy_dtype():
    arr = np.arange(6, dtype=np.int16).reshape(2, 3)
    f = tack.field_like(arr)
    assert f.dtype is tack.i16 and np.array_equal(f.to_numpy(), arr)
    g = tack.field_like(arr, tack.f32)
    assert g.dtype is tack.f32 and np.array_equal(g.to_numpy(), arr.astype(np.float32))
    with pytest.raises(TypeError, match="Unsupported numpy dtype: float16"):
        tack.field_like(np.zeros(3, np.float16))
    with pytest.raises(AttributeError):
        tack.field_like([1, 2, 3])


def test_numpy_dtype_is_not_a_tack_type():
    with pytest.raises(AttributeError):
        tack.field(np.float32, 3)


def test_negative_extent_is_value_error():
    with pytest.raises(ValueError):
        tack.field(tack.f32, (-1,))


def test_from_numpy_errors():
    f = tack.field(tack.f32, 8)
    with pytest.raises(ValueError, match=r"Shape mismatch: field is \(8,\), got \(4,\)"):
        f.from_numpy(np.zeros(4, np.float32))
    with pytest.raises(AttributeError):
        f.from_numpy([0.0] * 8)


def test_from_numpy_converts_dtype_and_noncontiguous():
    f = tack.field(tack.i32, 4)
    f.from_numpy(np.array([1.7, -2.2, 3.0, 4.9]))
    assert f.to_numpy().tolist() == [1, -2, 3, 4]
    g = tack.field(tack.f64, 3)
    g.from_numpy(np.arange(6.0)[::2])
    assert g.to_numpy().tolist() == [0.0, 2.0, 4.0]


def test_fill_uses_cast_rules():
    f = tack.field(tack.i32, 3)
    f.fill(2.7)
    assert f.to_numpy().tolist() == [2, 2, 2]
    u = tack.field(tack.u8, 2)
    u.fill(300)
    assert u.to_numpy().tolist() == [44, 44]
    u.fill(np.int64(-1))
    assert u.to_numpy().tolist() == [255, 255]


def test_reshape_is_a_view():
    f = tack.arange(6, tack.f32)
    v = f.reshape((2, 3))
    assert v.shape == (2, 3) and v[1, 2] == 5.0
    v.fill(1.0)
    assert f.to_numpy().tolist() == [1.0] * 6
    assert f.reshape(6).shape == (6,)
    with pytest.raises(ValueError):
        f.reshape((4, 2))
    v.from_numpy(np.full((2, 3), 3.0, np.float32))
    assert f.to_numpy().tolist() == [3.0] * 6


def test_copy_and_astype():
    f = tack.field_like(np.array([1.5, -2.5, 300.0], np.float32))
    c = f.copy()
    c.fill(0)
    assert f.to_numpy().tolist() == [1.5, -2.5, 300.0]
    assert f.astype(tack.i32).to_numpy().tolist() == [1, -2, 300]
    assert f.astype(tack.u8).to_numpy().tolist() == [1, 0, 255]  # saturating float->int
    assert f.astype(tack.f64).dtype is tack.f64


def test_host_indexing():
    arr = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
    f = tack.field_like(arr)
    assert f[0, 0] == -5 and f[2, 3] == 6 and f[-1, -1] == 6 and f[1, -4] == -1
    assert isinstance(f[0, 1], int)
    g = tack.field_like(np.array([0.5, 0.25], np.float32))
    assert g[1] == 0.25 and isinstance(g[1], float)
    with pytest.raises(IndexError):
        f[3, 0]
    with pytest.raises(TypeError, match="takes 2 integer indices"):
        f[0]
    with pytest.raises(TypeError):
        f[0, 0] = 1
    with pytest.raises(TypeError):
        iter(f)
    u = tack.field_like(np.array([2**64 - 1], np.uint64))
    assert u[0] == 2**64 - 1


def test_concat():
    a = tack.field_like(np.array([1, 2], np.int32))
    b = tack.field_like(np.array([[3, 4], [5, 6]], np.int32))
    c = tack.concat([a, b])
    assert c.shape == (6,) and c.to_numpy().tolist() == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError):
        tack.concat([])
    with pytest.raises(TypeError):
        tack.concat([a, tack.field(tack.f32, 2)])


def test_reductions_follow_the_contract():
    # C16: i8 [100, 100] sums in i64; u64 wraps modulo 2^64.
    assert tack.field_like(np.array([100, 100], np.int8)).sum() == 200.0
    assert tack.field_like(np.array([2**64 - 1, 2], np.uint64)).sum() == 1.0
    x = np.array([3.0, -1.0, 2.5, 7.0], np.float64)
    f = tack.field_like(x)
    for name in ("sum", "min", "max", "mean"):
        got = getattr(f, name)()
        assert isinstance(got, float) and got == getattr(x, name)()
    ints = tack.field_like(np.array([5, -3, 9], np.int32))
    assert ints.min() == -3.0 and ints.max() == 9.0 and isinstance(ints.max(), float)


def test_reductions_of_empty_and_nan():
    e = tack.field(tack.f32, 0)
    assert e.sum() == 0.0 and math.copysign(1.0, e.sum()) == 1.0
    assert math.isnan(e.mean())
    with pytest.raises(ValueError, match="min reduction requires a nonempty field"):
        e.min()
    with pytest.raises(ValueError, match="max reduction requires a nonempty field"):
        e.max()
    n = tack.field_like(np.array([1.0, np.nan, 3.0], np.float32))
    assert math.isnan(n.max()) and math.isnan(n.min()) and math.isnan(n.sum())
    z = tack.field_like(np.array([0.0, -0.0], np.float32))
    assert math.copysign(1.0, z.min()) == -1.0 and math.copysign(1.0, z.max()) == 1.0


def test_float32_sum_within_gamma_n():
    rng = np.random.default_rng(3)
    x = rng.random(100_000).astype(np.float32)
    n, u = x.size, 2.0**-24
    exact = math.fsum(x.astype(np.float64))
    assert abs(tack.field_like(x).sum() - exact) <= n * u / (1 - n * u) * np.abs(x).sum()


def test_array_protocol():
    f = tack.field_like(np.array([1, 2, 3], np.int32))
    a = np.asarray(f)
    assert a.dtype == np.int32 and a.tolist() == [1, 2, 3]
    assert np.asarray(f, dtype=np.float64).dtype == np.float64


def test_vector_and_matrix_fields_storage():
    v = tack.Vector.field(3, tack.f32, shape=(4,))
    assert v.shape == (12,) and v.size == 12 and len(v) == 12
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    v.from_numpy(data)
    assert np.array_equal(v.to_numpy(vectors=True), data)
    assert np.array_equal(v.to_numpy(), data.reshape(12))
    assert np.array_equal(v[2], data[2])
    v.fill([1.0, 2.0, 3.0])
    assert np.array_equal(v.to_numpy(vectors=True), np.tile([1.0, 2.0, 3.0], (4, 1)))
    v.fill(0.5)
    assert v.sum() == 6.0
    m = tack.Matrix.field(2, 2, tack.f64, shape=3)
    m.from_numpy(np.arange(12.0).reshape(12))
    assert np.array_equal(m.to_numpy(vectors=True)[1], [[4.0, 5.0], [6.0, 7.0]])


def test_dtype_objects():
    assert repr(tack.f32) == "tack.f32" and tack.f32.name == "f32" and tack.f64.itemsize == 8
    assert tack.i32(2**32 + 5) == 5 and tack.u8(-1) == 255 and tack.f32(0.1) == np.float32(0.1)
    assert {tack.f32: 1}[tack.f32] == 1
    assert pickle.loads(pickle.dumps(tack.f64)) is tack.f64


@pytest.mark.skipif(not os.path.isdir("/sys/kernel/mm/transparent_hugepage"),
                    reason="no transparent huge pages in this kernel")
def test_large_host_arrays_ask_for_huge_pages_unless_told_not_to(tmp_path):
    # A 16 MiB array's mapping carries the madvise(MADV_HUGEPAGE) flag (smaps VmFlags "hg"),
    # unless TACK_MADVISE_HUGEPAGE is off; a 1 MiB one never does.
    script = tmp_path / "hp.py"
    script.write_text(textwrap.dedent("""
        import tack
        tack.init(tack.cpu)
        big, small = tack.zeros(tack.f32, 1 << 22), tack.zeros(tack.f32, 1 << 18)
        def flags(address):
            with open("/proc/self/smaps") as f:
                lines = f.read().splitlines()
            for i, line in enumerate(lines):
                lo, _, hi = line.split()[0].partition("-")
                if "-" in line.split()[0] and int(lo, 16) <= address < int(hi, 16):
                    for rest in lines[i + 1:]:
                        if rest.startswith("VmFlags:"):
                            return rest.split()[1:]
            return []
        print("hg" in flags(big.address), "hg" in flags(small.address))
        """))
    for value, expected in ((None, "True False"), ("0", "False False"), ("off", "False False"),
                            ("1", "True False")):
        env = python_env()
        env.pop("TACK_MADVISE_HUGEPAGE", None)
        if value is not None:
            env["TACK_MADVISE_HUGEPAGE"] = value
        out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == expected, (value, out)
