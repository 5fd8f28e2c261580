"""Vector and matrix kernels on every backend at once (CONTRACT A28, F): each backend's result
is compared with NumPy and with every other backend's: integer results bit for bit, float
results within a few ulps (the C-family backends may contract a product into an add within one
expression, B23)."""

import numpy as np
import pytest

import tack

from conftest import BACKENDS

RNG = np.random.default_rng(21)
N = 257


@tack.func
def _rotate(m, v):
    return m @ v, m.determinant()


@tack.kernel
def _mixed(a, b, m, k, fout, iout, n):
    for i in range(n):
        u = a[i]
        w = b[i]
        r, det = _rotate(m[i], u)
        c = u.cross(w) + r * det
        s = tack.select(c > 0.0, c, -c * 0.5)
        fout[i] = tack.Vector([s.norm(), (u - w).norm_sqr(), tack.math.mix(u, w, 0.25).sum()])
        iv = k[i]
        q = iv * 3 + tack.Vector([1, 2, 3])
        iout[i] = tack.select(q > 10, q // 2, q % 5) ^ (iv << 1)


def _reference(a, b, m, k):
    r = np.einsum("nij,nj->ni", m, a)
    det = np.linalg.det(m.astype(np.float64)).astype(np.float32)
    c = np.cross(a, b) + r * det[:, None]
    s = np.where(c > 0, c, -c * np.float32(0.5))
    f = np.stack([np.linalg.norm(s, axis=1), ((a - b) ** 2).sum(1),
                  (a * np.float32(0.75) + b * np.float32(0.25)).sum(1)], 1)
    q = k * 3 + np.int32([1, 2, 3])
    i = np.where(q > 10, q // 2, q % 5) ^ (k << 1)
    return f, i


def _run(name, a, b, m, k):
    tack.init(name)
    fa = tack.Vector.field(3, tack.f32, shape=(N,))
    fb = tack.Vector.field(3, tack.f32, shape=(N,))
    fm = tack.Matrix.field(3, 3, tack.f32, shape=(N,))
    fk = tack.Vector.field(3, tack.i32, shape=(N,))
    fo = tack.Vector.field(3, tack.f32, shape=(N,))
    io = tack.Vector.field(3, tack.i32, shape=(N,))
    for f, v in ((fa, a), (fb, b), (fm, m), (fk, k)):
        f.from_numpy(v)
    _mixed(fa, fb, fm, fk, fo, io, N)
    return fo.to_numpy(vectors=True), io.to_numpy(vectors=True)


@pytest.mark.skipif(len(BACKENDS) < 1, reason="no backend initializes here")
def test_every_backend_agrees_with_numpy_and_the_others():
    a = RNG.standard_normal((N, 3)).astype(np.float32)
    b = RNG.standard_normal((N, 3)).astype(np.float32)
    m = RNG.standard_normal((N, 3, 3)).astype(np.float32)
    k = RNG.integers(-50, 50, (N, 3)).astype(np.int32)
    want_f, want_i = _reference(a, b, m, k)
    results = {name: _run(name, a, b, m, k) for name in BACKENDS}
    for name, (f, i) in results.items():
        np.testing.assert_array_equal(i, want_i, err_msg=name)
        np.testing.assert_allclose(f, want_f, rtol=2e-5, atol=2e-5, err_msg=name)
    names = list(results)
    for other in names[1:]:
        np.testing.assert_array_equal(results[other][1], results[names[0]][1])
        np.testing.assert_array_max_ulp(results[other][0], results[names[0]][0], maxulp=8)
