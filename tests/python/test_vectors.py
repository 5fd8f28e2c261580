"""Vectors and matrices in kernels (CONTRACT A28-A34, C11), checked against NumPy.

Every kernel runs on each backend this build has (cpu, opencl on PoCL here); the references are
NumPy computations of the same per-component formulas.
"""

import numpy as np
import pytest

import tack

RNG = np.random.default_rng(7)


def vectors(values, dtype=tack.f32):
    f = tack.Vector.field(values.shape[-1], dtype=dtype, shape=values.shape[:-1])
    f.from_numpy(values)
    return f


def matrices(values, dtype=tack.f32):
    f = tack.Matrix.field(values.shape[-2], values.shape[-1], dtype=dtype, shape=values.shape[:-2])
    f.from_numpy(values)
    return f


# ---- fields of vectors ------------------------------------------------------------------------


@tack.kernel
def _count_and_scale(vf, out):
    for i in range(len(vf)):
        out[i] = vf[i] * 2.0


def test_a_vector_field_is_a_field_of_vectors(backend):
    """len() and range() see the logical count (4), not the 12 stored floats."""
    p = RNG.standard_normal((4, 3)).astype(np.float32)
    out = vectors(np.zeros((4, 3), np.float32))
    _count_and_scale(vectors(p), out)
    np.testing.assert_array_equal(out.to_numpy(vectors=True), p * 2)
    assert out.to_numpy().shape == (12,)


@tack.kernel
def _methods(a, b, out, vout, n):
    for i in range(n):
        u = a[i]
        w = b[i]
        c = u.cross(w)
        vout[i] = c
        out[i, 0] = u.dot(w)
        out[i, 1] = u.norm()
        out[i, 2] = u.norm(0.5)
        out[i, 3] = u.norm_sqr()
        out[i, 4] = u.normalized().x + u.normalized(0.25).y
        out[i, 5] = u.sum() + u.min() * 10.0 + u.max() * 100.0
        out[i, 6] = u.x + u.y * 2.0 + u.z * 3.0 + u[-1] * 4.0


def test_vector_methods(backend):
    n = 6
    a = RNG.standard_normal((n, 3)).astype(np.float32)
    b = RNG.standard_normal((n, 3)).astype(np.float32)
    out = tack.field(tack.f32, (n, 7))
    vout = vectors(np.zeros((n, 3), np.float32))
    _methods(vectors(a), vectors(b), out, vout, n)
    a64 = a.astype(np.float64)
    norm = np.linalg.norm(a64, axis=1)
    want = np.stack(
        [
            (a64 * b).sum(1),
            norm,
            np.sqrt((a64**2).sum(1) + 0.5),
            (a64**2).sum(1),
            a64[:, 0] / norm + a64[:, 1] / (norm + 0.25),
            a64.sum(1) + a64.min(1) * 10 + a64.max(1) * 100,
            a64[:, 0] + 2 * a64[:, 1] + 3 * a64[:, 2] + 4 * a64[:, 2],
        ],
        axis=1,
    )
    np.testing.assert_allclose(out.to_numpy(), want, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(vout.to_numpy(vectors=True), np.cross(a, b), rtol=1e-5, atol=1e-6)


@tack.kernel
def _evaluate_all_then_store(a, b, n):
    for i in range(n):
        a[i] = a[i].cross(b[i])
        v = b[i]
        v = tack.Vector([v.z, v.x, v.y])  # reads the old components
        b[i] = v


def test_assignment_evaluates_every_component_before_storing(backend):
    """A33: `a[i] = a[i].cross(b[i])` reads a[i] whole before writing any component."""
    n = 5
    a = RNG.standard_normal((n, 3)).astype(np.float32)
    b = RNG.standard_normal((n, 3)).astype(np.float32)
    fa, fb = vectors(a), vectors(b)
    _evaluate_all_then_store(fa, fb, n)
    np.testing.assert_allclose(fa.to_numpy(vectors=True), np.cross(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(fb.to_numpy(vectors=True), b[:, [2, 0, 1]])


@tack.kernel
def _components(vf, sel, out, n):
    for i in range(n):
        v = vf[i]
        k = sel[i]
        out[i, 0] = v[k]  # runtime index: out of range reads the last component
        v[k] = -1.0  # out of range writes nothing
        vf[i][k] += 100.0
        vf[i].y = 7.0
        out[i, 1] = v.sum()


def test_runtime_component_indices(backend):
    p = np.arange(15, dtype=np.float32).reshape(5, 3)
    k = np.array([0, 2, 3, -1, 1], np.int32)
    vf, sel, out = vectors(p), tack.field(tack.i32, (5,)), tack.field(tack.f32, (5, 2))
    sel.from_numpy(k)
    _components(vf, sel, out, 5)
    ok = (k >= 0) & (k < 3)
    read = np.where(ok, p[np.arange(5), np.clip(k, 0, 2)], p[:, 2])
    written = p.copy()
    written[np.arange(5)[ok], k[ok]] = -1.0
    stored = p.copy()
    stored[np.arange(5)[ok], k[ok]] += 100.0
    stored[:, 1] = 7.0
    np.testing.assert_array_equal(out.to_numpy()[:, 0], read)
    np.testing.assert_array_equal(out.to_numpy()[:, 1], written.sum(1))
    np.testing.assert_array_equal(vf.to_numpy(vectors=True), stored)


@tack.kernel
def _integer_vector_index(grid, cells, out, n):
    for i in range(n):
        out[i] = grid[cells[i]]


def test_an_integer_vector_indexes_a_field(backend):
    """A34: grid[cell] with a 2-vector of integers."""
    g = np.arange(20, dtype=np.float32).reshape(4, 5)
    c = np.array([[0, 0], [3, 4], [2, 1]], np.int32)
    grid = tack.field(tack.f32, (4, 5))
    grid.from_numpy(g)
    out = tack.field(tack.f32, (3,))
    _integer_vector_index(grid, vectors(c, tack.i32), out, 3)
    np.testing.assert_array_equal(out.to_numpy(), g[c[:, 0], c[:, 1]])


@tack.kernel
def _single_vector(cam, out, n):
    for i in range(n):
        out[i] = cam[None] * tack.f32(i)


def test_a_zero_dimensional_vector_field(backend):
    cam = tack.Vector.field(3, tack.f32, shape=())
    cam.fill([1.0, 2.0, 3.0])
    out = vectors(np.zeros((3, 3), np.float32))
    _single_vector(cam, out, 3)
    np.testing.assert_array_equal(
        out.to_numpy(vectors=True), np.arange(3)[:, None] * np.float32([1, 2, 3])
    )


# ---- matrices ---------------------------------------------------------------------------------


@tack.kernel
def _products(a, b, r, v, w, ab, ar, av, wa, ww, n):
    for i in range(n):
        ab[i] = a[i] @ b[i]
        ar[i] = a[i] @ r[i]
        av[i] = a[i] @ v[i]
        wa[i] = w[i] @ a[i]
        ww[i] = v[i] @ w[i]


def test_matrix_products(backend):
    n = 4
    A = RNG.standard_normal((n, 2, 2)).astype(np.float32)
    B = RNG.standard_normal((n, 2, 2)).astype(np.float32)
    R = RNG.standard_normal((n, 2, 3)).astype(np.float32)
    V = RNG.standard_normal((n, 2)).astype(np.float32)
    W = RNG.standard_normal((n, 2)).astype(np.float32)
    ab, ar = matrices(np.zeros_like(A)), matrices(np.zeros_like(R))
    av, wa, ww = (
        vectors(np.zeros_like(V)),
        vectors(np.zeros((n, 2), np.float32)),
        tack.field(tack.f32, (n,)),
    )
    _products(matrices(A), matrices(B), matrices(R), vectors(V), vectors(W), ab, ar, av, wa, ww, n)
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ab.to_numpy(vectors=True), A @ B, **tol)
    np.testing.assert_allclose(ar.to_numpy(vectors=True), A @ R, **tol)
    np.testing.assert_allclose(av.to_numpy(vectors=True), np.einsum("nij,nj->ni", A, V), **tol)
    np.testing.assert_allclose(wa.to_numpy(vectors=True), np.einsum("ni,nij->nj", W, A), **tol)
    np.testing.assert_allclose(ww.to_numpy(), (V * W).sum(1), **tol)


@tack.kernel
def _decompose(a2, a3, inv2, inv3, rt, scal, n):
    for i in range(n):
        m = a3[i]
        inv2[i] = a2[i].inverse()
        inv3[i] = m.inverse()
        rt[i] = a2[i].transpose() + tack.Matrix.identity(2)
        scal[i, 0] = a2[i].determinant()
        scal[i, 1] = m.determinant()
        scal[i, 2] = m.trace() + m.norm_sqr() + m.sum()
        scal[i, 3] = m[2, 1] + m[0, 2] * 10.0


def test_inverse_determinant_trace(backend):
    n = 5
    A2 = (RNG.standard_normal((n, 2, 2)) + 3 * np.eye(2)).astype(np.float32)
    A3 = (RNG.standard_normal((n, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
    inv2, inv3, rt = (
        matrices(np.zeros_like(A2)),
        matrices(np.zeros_like(A3)),
        matrices(np.zeros_like(A2)),
    )
    scal = tack.field(tack.f32, (n, 4))
    _decompose(matrices(A2), matrices(A3), inv2, inv3, rt, scal, n)
    a2, a3 = A2.astype(np.float64), A3.astype(np.float64)
    np.testing.assert_allclose(inv2.to_numpy(vectors=True), np.linalg.inv(a2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inv3.to_numpy(vectors=True), np.linalg.inv(a3), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(
        rt.to_numpy(vectors=True), A2.transpose(0, 2, 1) + np.eye(2, dtype=np.float32)
    )
    want = np.stack(
        [
            np.linalg.det(a2),
            np.linalg.det(a3),
            np.trace(a3, axis1=1, axis2=2) + (a3**2).sum((1, 2)) + a3.sum((1, 2)),
            a3[:, 2, 1] + a3[:, 0, 2] * 10,
        ],
        axis=1,
    )
    np.testing.assert_allclose(scal.to_numpy(), want, rtol=1e-4, atol=1e-5)


@tack.func
def _sym_and_trace(M):
    return (M + M.transpose()) * 0.5, M.trace()


@tack.kernel
def _constructors(v, built, sym, outer, tr, n):
    for i in range(n):
        p = v[i]
        m = tack.Matrix([[p[0], 2.0], [3, p[1]]])
        rows = tack.Matrix([p, p * 2.0])
        built[i] = m * rows - tack.Matrix.identity(2)
        s, t = _sym_and_trace(m)
        sym[i] = s
        tr[i] = t
        outer[i] = p.outer_product(tack.Vector([1.0, -1.0]))


def test_matrix_constructors_and_device_functions(backend):
    n = 3
    V = RNG.standard_normal((n, 2)).astype(np.float32)
    built, sym, outer = (matrices(np.zeros((n, 2, 2), np.float32)) for _ in range(3))
    tr = tack.field(tack.f32, (n,))
    _constructors(vectors(V), built, sym, outer, tr, n)
    x, y = V[:, 0], V[:, 1]
    m = np.stack(
        [np.stack([x, np.full(n, 2, np.float32)], 1), np.stack([np.full(n, 3, np.float32), y], 1)],
        1,
    )
    rows = np.stack([V, V * 2], 1)
    np.testing.assert_allclose(built.to_numpy(vectors=True), m * rows - np.eye(2), rtol=1e-6)
    np.testing.assert_allclose(
        sym.to_numpy(vectors=True), (m + m.transpose(0, 2, 1)) * 0.5, rtol=1e-6
    )
    np.testing.assert_allclose(tr.to_numpy(), x + y, rtol=1e-6)
    np.testing.assert_array_equal(outer.to_numpy(vectors=True), V[:, :, None] * np.float32([1, -1]))


@tack.kernel
def _matrix_atomics(a, total, old, n):
    for i in range(n):
        prev = tack.atomic_add(total, 0, a[i])
        old[i] = prev.trace() * 0.0 + 1.0
        a[i] += tack.Matrix.identity(2)
        a[i] *= 2.0


def test_matrix_atomics_and_augmented_stores(backend):
    n = 6
    whole = np.round(RNG.standard_normal((n, 2, 2)) * 8) / 8
    a = matrices(whole.astype(np.float32))
    total = tack.Matrix.field(2, 2, tack.f32, shape=(1,))
    old = tack.field(tack.f32, (n,))
    _matrix_atomics(a, total, old, n)
    np.testing.assert_array_equal(total.to_numpy(vectors=True)[0], whole.sum(0))
    np.testing.assert_array_equal(a.to_numpy(vectors=True), (whole + np.eye(2)) * 2)
    np.testing.assert_array_equal(old.to_numpy(), np.ones(n))


# ---- masks, any/all, select -------------------------------------------------------------------


@tack.func
def _inside(p):
    inside = -0.1 <= p <= 1.1
    return all(inside), tack.select(inside, p, 0.0)


@tack.kernel
def _masks(pos, out, flags, n):
    for i in range(n):
        p = pos[i]
        m = p > 0.5
        out[i, 0] = m.sum()
        out[i, 1] = 1.0 if any(p > 0.9) else 0.0
        ok, clipped = _inside(p)
        out[i, 2] = clipped.sum() + (10.0 if ok else 0.0)
        s = tack.select(p < 0.5, -1.0, 1.0)
        out[i, 3] = s.x * 1 + s.y * 2 + s.z * 4
        both = (p > 0.2) and (p < 0.8)
        out[i, 4] = both.sum() + (not m).sum() * 100
        w = tack.select(p.x > 0.5, p, [0.0, 0.0, 0.0])
        out[i, 5] = w.sum()
        out[i, 6] = (p == pos[i]).sum() + (p != pos[i]).sum() * 10
        if all(p >= 0.0):
            flags[i] = 1


def test_masks_select_any_all(backend):
    pts = np.array(
        [[0.1, 0.6, 0.95], [-0.2, 0.5, 0.3], [0.7, 0.75, 0.3], [1.2, 0.0, 0.5]], np.float32
    )
    n = len(pts)
    out, flags = tack.field(tack.f32, (n, 7)), tack.field(tack.i32, (n,))
    _masks(vectors(pts), out, flags, n)
    want = []
    for p in pts:
        inside = (p >= -0.1) & (p <= 1.1)
        m = p > 0.5
        want.append(
            [
                m.sum(),
                float((p > 0.9).any()),
                np.where(inside, p, 0).sum() + (10 if inside.all() else 0),
                np.where(p < 0.5, -1, 1) @ [1, 2, 4],
                ((p > 0.2) & (p < 0.8)).sum() + (~m).sum() * 100,
                (p if p[0] > 0.5 else np.zeros(3)).sum(),
                3.0,
            ]
        )
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(flags.to_numpy(), (pts >= 0).all(axis=1))


# ---- constants, tack.math ---------------------------------------------------------------------

SUN = tack.constant((0.5, 0.25, 0.0))
ROT = tack.constant(((0.0, -1.0), (1.0, 0.0)))
CELL = tack.constant((2, 3), tack.i32)
HASH = tack.constant((747796405, 2891336453), tack.u32)


@tack.kernel
def _vector_constants(pos, grid, out, n):
    for i in range(n):
        p = pos[i]
        q = ROT @ [p.x, p.y]
        h = HASH * tack.u32(3)
        out[i] = (
            (p - SUN).norm() + SUN.y + SUN[2] + ROT[1, 0] + q.x + grid[CELL] + tack.f32(h[0] % 7)
        )


def test_vector_and_matrix_constants(backend):
    pts = RNG.standard_normal((3, 3)).astype(np.float32)
    grid = tack.field(tack.f32, (4, 4))
    grid.fill(7.0)
    out = tack.field(tack.f32, (3,))
    _vector_constants(vectors(pts), grid, out, 3)
    sun = np.array(SUN, np.float32)
    h0 = int(np.uint32(747796405) * np.uint32(3)) % 7
    want = [np.linalg.norm(p - sun) + 0.25 + 0 + 1 + (-p[1]) + 7 + h0 for p in pts]
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-5)


def test_constants_on_the_host():
    assert len(SUN) == 3 and SUN[1] == 0.25 and tuple(SUN) == (0.5, 0.25, 0.0)
    assert ROT[1][0] == 1.0 and ROT[0, 1] == -1.0 and ROT.shape == (2, 2)
    assert np.asarray(CELL).dtype == np.int32 and np.asarray(SUN).dtype == np.float64
    assert repr(CELL) == "tack.constant((2, 3), tack.i32)"
    with pytest.raises(TypeError):
        SUN + SUN
    assert tack.constant(3, tack.f32) == 3.0 and isinstance(tack.constant(3, tack.f32), float)


@pytest.mark.parametrize(
    "value, dtype, error, match",
    [
        (2**40, tack.i32, ValueError, "does not fit"),
        (-1, tack.u8, ValueError, "does not fit"),
        (2**64, None, ValueError, "64 bits"),
        (1.5, tack.i32, TypeError, "integer type needs an integer"),
        ("x", None, TypeError, "takes a number"),
        (1.0, "f32", TypeError, "dtype"),
        ((), None, ValueError, "no components"),
        (((1, 2), (3,)), None, ValueError, "same, nonzero length"),
        ((1, (2, 3)), None, TypeError, "mix of numbers and rows"),
        ((((1,),),), None, TypeError, "two levels"),
    ],
)
def test_unrepresentable_constants_are_rejected(value, dtype, error, match):
    with pytest.raises(error, match=match):
        tack.constant(value, dtype)


@tack.kernel
def _helpers(p, out, n):
    for i in range(n):
        v = p[i]
        w = [0.5, 0.5, 0.5]
        out[i, 0] = tack.math.fract(v * 3.0).sum()
        out[i, 1] = tack.math.mix(v, w, 0.25).sum() + tack.math.mix(v, w, [0.0, 0.5, 1.0]).sum()
        out[i, 2] = tack.math.clamp(v, 0.2, 0.4).sum()
        out[i, 3] = tack.math.smoothstep(0.0, 1.0, v).sum()
        out[i, 4] = tack.math.length(v) + tack.math.distance(v, w)
        out[i, 5] = tack.math.normalize(v).norm()
        out[i, 6] = tack.math.step(0.25, v).sum() + 10.0 * tack.math.sign(v - 0.25).sum()


def test_math_helpers_on_vectors(backend):
    pts = np.array([[0.1, 0.2, 0.3], [1.0, -2.0, 2.0]], np.float32)
    out = tack.field(tack.f32, (2, 7))
    _helpers(vectors(pts), out, 2)

    def smooth(e0, e1, x):
        t = np.clip((x - e0) / (e1 - e0), 0, 1)
        return t * t * (3 - 2 * t)

    w, a = np.full(3, 0.5), np.array([0, 0.5, 1])
    want = [
        [
            (v * 3 - np.floor(v * 3)).sum(),
            (v * 0.75 + w * 0.25).sum() + (v * (1 - a) + w * a).sum(),
            np.clip(v, 0.2, 0.4).sum(),
            smooth(0, 1, v).sum(),
            np.linalg.norm(v) + np.linalg.norm(v - w),
            1.0,
            (v >= 0.25).sum() + 10 * np.sign(v - 0.25).sum(),
        ]
        for v in pts.astype(np.float64)
    ]
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-5, atol=1e-6)


# ---- tack.random --------------------------------------------------------------------------------


@tack.kernel
def _draw(out, dirs, n, frame):
    for i in range(n):
        state = tack.random.seed(i, frame)
        u, state = tack.random.uniform(state)
        z, state = tack.random.normal(state)
        d, state = tack.random.direction3(state)
        e, state = tack.random.direction2(state)
        out[i, 0] = u
        out[i, 1] = z
        out[i, 2] = tack.f32(state)
        out[i, 3] = e.y
        dirs[i] = d


def test_random_matches_its_numpy_mirrors(backend):
    from tack import random

    n = 5000
    out, dirs = tack.field(tack.f32, (n, 4)), vectors(np.zeros((n, 3), np.float32))
    _draw(out, dirs, n, 11)
    s = random.np_seed(np.arange(n, dtype=np.uint32), 11)
    u, s = random.np_uniform(s)
    z, s = random.np_normal(s)
    d, s = random.np_direction3(s)
    e, s = random.np_direction2(s)
    got = out.to_numpy()
    np.testing.assert_array_equal(got[:, 0], u)  # bit-identical: integer arithmetic, 2**-24
    np.testing.assert_array_equal(got[:, 2], s.astype(np.float32))
    np.testing.assert_allclose(got[:, 1], z, atol=2e-6)
    np.testing.assert_allclose(dirs.to_numpy(vectors=True), d, atol=2e-6)
    np.testing.assert_allclose(got[:, 3], e[:, 1], atol=2e-6)
    assert 0.48 < u.mean() < 0.52 and np.all((u >= 0) & (u < 1))


# ---- rejections with shapes and positions -------------------------------------------------


REJECTIONS = [
    (["out[i] = m[i] @ tack.Vector([1.0, 2.0, 3.0])"], "multiplies a 2x2 matrix by a 3-vector"),
    (["m[i] = m[i] @ 2.0"], r"use '\*' to scale by a scalar"),
    (
        ["a = m[i]", "out[i] = tack.Vector([a[0], a[1]])"],
        r"of a 2x2 matrix needs a row and a column: m\[i, j\]",
    ),
    (
        ["m[i] = tack.Vector([1.0, 2.0, 3.0, 4.0])"],
        "stores a 4-vector into a field of 2x2 matrix elements",
    ),
    (["m[i] = m[i] + tack.Vector([1.0, 2.0, 3.0, 4.0])"], "combines a 2x2 matrix and 4-vector"),
    (
        ["r = tack.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "m[i] = r.inverse()"],
        r"inverse\(\) needs a square matrix, not a 2x3 matrix",
    ),
    (["out[i] = v[i] * m[i].x"], r"'x' names a component of a vector; a matrix entry is m\[i, j\]"),
    (["m[i] = tack.Matrix([[1.0, 2.0], [3.0]])"], "has rows of different lengths"),
    (["if m[i]:", "    out[i] = v[i]"], "has a 2x2 matrix as its condition"),
    (
        ["if v[i] > 0.0:", "    out[i] = v[i]"],
        "has a 2-vector as its condition; reduce it with any",
    ),
    (["w = v[i]", "while w < 1.0:", "    w += 1.0"], "while .* has a 2-vector as its condition"),
    (["out[i] = v[i] if any(n > 0) else v[i]"], "a scalar is already a truth value"),
    (
        ["out[i] = tack.select(v[i] > 0.0, [1.0, 2.0, 3.0], 0.0)"],
        "combines a 2-vector and 3-vector",
    ),
    (["out[i] = v[i] + [1.0, 2.0, 3.0]"], "combines a 2-vector and 3-vector"),
]


@pytest.mark.parametrize("body, message", REJECTIONS)
def test_mismatched_shapes_are_rejected_with_both_shapes(tmp_path, body, message):
    path = tmp_path / "bad_kernel.py"
    lines = "".join(f"        {line}\n" for line in body)
    path.write_text(
        "import tack\n\n@tack.kernel\ndef bad(m, v, out, n):\n    for i in range(n):\n" + lines
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("bad_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = tack.Matrix.field(2, 2, tack.f32, shape=(2,))
    v = tack.Vector.field(2, tack.f32, shape=(2,))
    out = tack.Vector.field(2, tack.f32, shape=(2,))
    with pytest.raises(tack.UnsupportedSyntaxError, match=message) as info:
        mod.bad(m, v, out, 2)
    assert "bad_kernel.py" in str(info.value) and "line" in str(info.value)


# ---- 0-d fields and field aliases ---------------------------------------------------------------


@tack.kernel
def _zero_d_and_alias(counter, data, out, n):
    for i in range(n):
        alias = data  # another name for the same field
        out[i] = alias[i] * 2.0
        tack.atomic_add(counter, 0, 1)


@tack.kernel
def _zero_d_store(c):
    for _ in range(1):
        c[None] = c[None] + 5
        c[None] += 1


def test_zero_d_fields_and_aliases(backend):
    c = tack.field(tack.i32, shape=())
    d = tack.field(tack.f32, (4,))
    d.from_numpy(np.arange(4, dtype=np.float32))
    out = tack.field(tack.f32, (4,))
    _zero_d_and_alias(c, d, out, 4)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(4) * 2.0)
    _zero_d_store(c)
    assert c[None] == 4 + 5 + 1


@tack.kernel
def _four_d_norms(a, out):
    for i, j, k, m in tack.ndrange(2, 2, 2, 3):
        out[i, j, k, m] = a[i, j, k, m].norm()


def test_a_four_dimensional_field_of_vectors(backend):
    """Storage rank 5: four element dimensions and the vector's."""
    v = RNG.standard_normal((2, 2, 2, 3, 3)).astype(np.float32)
    out = tack.field(tack.f32, (2, 2, 2, 3))
    _four_d_norms(vectors(v), out)
    np.testing.assert_allclose(out.to_numpy(), np.linalg.norm(v, axis=-1), rtol=1e-6)
