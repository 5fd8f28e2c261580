"""Weak float literals (CONTRACT B4, the public Oct 2026 rule): a literal takes the precision of
what it meets, and a local assigned once to a literal expression is that literal where it is read.
References are NumPy computations with each literal converted once."""

from math import sqrt

import numpy as np
import pytest

import tack


def _field(values, dtype):
    values = np.asarray(values, dtype={tack.f64: np.float64, tack.f32: np.float32}[dtype])
    r = tack.field(dtype, values.shape)
    r.from_numpy(values)
    return r


_VALUES = [0.1, float(np.float32(0.1)), 0.1000000001, 1.0, 7.0, 2.5, 1e-3, 123.456]


@tack.kernel
def _literals(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        out[i, 0] = x * 0.1
        out[i, 1] = x * -0.1
        out[i, 2] = x * (0.1 + 0.2)
        out[i, 3] = x * (1.0 / 3.0)
        out[i, 4] = 1.0 if x < 0.1 else 0.0
        out[i, 5] = 1.0 if x == 0.1 else 0.0
        out[i, 6] = sqrt(x + 0.1)
        out[i, 7] = x if x > 5.0 else 0.1
        out[i, 8] = min(x, 0.1)
        out[i, 9] = 0.1


def _expected(a, scalar):
    tenth = scalar(0.1)
    return np.column_stack(
        [
            a * tenth,
            a * scalar(-0.1),
            a * (tenth + scalar(0.2)),
            a * (scalar(1.0) / scalar(3.0)),
            np.where(a < tenth, 1, 0),
            np.where(a == tenth, 1, 0),
            np.sqrt(a + tenth),
            np.where(a > 5, a, tenth),
            np.fmin(a, tenth),
            np.full(len(a), tenth),
        ]
    ).astype(a.dtype)


@tack.kernel
def casts(a, out):
    for i in range(a.shape[0]):
        out[i, 0] = tack.f64(0.1)
        out[i, 1] = a[i] * tack.f64(0.1)
        out[i, 2] = tack.f32(0.1)
        out[i, 3] = tack.f64(1.0 / 3.0)


@tack.kernel
def partners(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        alone = 0.1
        out[i, 0] = x * alone
        out[i, 1] = i * 0.1
        out[i, 2] = x * (1 / 3)
        out[i, 3] = x * sqrt(2.0)
        total = 0.1
        total = total + x
        out[i, 4] = total


@tack.func
def _center():
    return tack.Vector([1.0 / 3.0, 0.1, 0.5])


@tack.func
def _pair():
    return 0.1, 0.2


@tack.func
def _branchy(k):
    if k > 0:
        return 0.1
    return 0.3


@tack.kernel
def _weak_locals(a, out64, out32, flag):
    for i in range(a.shape[0]):
        pc = _center()
        p, q = _pair()
        tenth = 0.1
        chained = tenth
        picked = 0.3 if 1 > 0 else 0.7
        guarded = 0.3 if flag > 0 else 0.7
        step = _branchy(flag)
        mixed = 0.1
        total = 0.1
        total = total + a[i]
        if flag > 5:
            mixed = a[i]
        out64[i, 0] = a[i] * pc[0]
        out64[i, 1] = a[i] * pc[1]
        out64[i, 2] = a[i] * chained
        out64[i, 3] = a[i] * picked
        out64[i, 4] = a[i] * guarded
        out64[i, 5] = total
        out64[i, 6] = a[i] * step
        out64[i, 7] = a[i] * mixed
        out64[i, 8] = a[i] + p - q
        out32[i] = tack.f32(a[i]) * tenth



def test_weak_literals_take_the_precision_they_meet(f64_backend):
    a = np.asarray(_VALUES)
    out = tack.field(tack.f64, (len(a), 10))
    _literals(_field(a, tack.f64), out)
    np.testing.assert_array_equal(out.to_numpy(), _expected(a, np.float64))
    a32 = a.astype(np.float32)
    out = tack.field(tack.f32, (len(a), 10))
    _literals(_field(a32, tack.f32), out)
    r, e = out.to_numpy(), _expected(a32, np.float32)
    np.testing.assert_array_equal(r[:, [0, 1, 2, 4, 5, 7, 8, 9]], e[:, [0, 1, 2, 4, 5, 7, 8, 9]])
    a = np.asarray([1.0, 3.0, 0.5], dtype=np.float32)
    out = tack.field(tack.f64, (3, 4))
    casts(_field(a, tack.f32), out)
    wide = a.astype(np.float64)
    np.testing.assert_array_equal(
        out.to_numpy(),
        np.column_stack(
            [
                np.full(3, 0.1),
                wide * 0.1,
                np.full(3, np.float64(np.float32(0.1))),
                np.full(3, 1.0 / 3.0),
            ]
        ),
    )
    a = np.asarray([1.0, 3.0, 0.5])
    out = tack.field(tack.f64, (3, 5))
    partners(_field(a, tack.f64), out)
    np.testing.assert_array_equal(
        out.to_numpy(),
        np.column_stack(
            [
                a * 0.1,
                (np.arange(3, dtype=np.float32) * np.float32(0.1)).astype(np.float64),
                a * np.float64(np.float32(1) / np.float32(3)),
                a * np.sqrt(2.0),
                0.1 + a,
            ]
        ),
    )
    a = np.asarray([1.0, 3.0, 0.7])
    out64 = tack.field(tack.f64, (3, 9))
    out32 = tack.field(tack.f32, (3,))
    _weak_locals(_field(a, tack.f64), out64, out32, 1)
    exp = np.column_stack(
        [
            a * (1.0 / 3.0),
            a * 0.1,
            a * 0.1,
            a * 0.3,
            a * 0.3,
            0.1 + a,
            a * 0.1,
            a * 0.1,
            a + 0.1 - 0.2,
        ]
    )
    np.testing.assert_array_equal(out64.to_numpy(), exp)
    np.testing.assert_array_equal(out32.to_numpy(), a.astype(np.float32) * np.float32(0.1))


@tack.kernel
def _accumulate(total):
    for _ in range(1):
        tack.atomic_add(total, 0, 0.1)


def test_an_atomic_literal_takes_the_field_type(f64_backend):
    total = _field([1.0], tack.f64)
    try:
        _accumulate(total)
    except TypeError as e:
        pytest.skip(str(e))
    assert total.to_numpy()[0] == 1.0 + 0.1
