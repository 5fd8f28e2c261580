"""`for c in obj` over a template whose class declares `__tack_iterate__` (one to three integer
attributes, fastest first): as the parallel loop it launches in the object's shape, inside a body
it is nested range loops. References are NumPy index grids."""

import numpy as np
import pytest

import tack


@tack.data_oriented
class Row:
    __tack_iterate__ = "n"

    def __init__(self, n):
        self.n = n

    @tack.func
    def flat(self, c):
        return c

    @tack.func
    def ijk(self, c):
        return c, 0, 0


@tack.data_oriented
class Plane:
    __tack_iterate__ = ("nx", "ny")

    def __init__(self, nx, ny):
        self.nx, self.ny = nx, ny

    @tack.func
    def flat(self, c):
        return c[0] + self.nx * c[1]

    @tack.func
    def ijk(self, c):
        return c[0], c[1], 0


@tack.data_oriented
class Box:
    __tack_iterate__ = ["nx", "ny", "nz"]  # a list works as well as a tuple

    def __init__(self, nx, ny, nz):
        self.nx, self.ny, self.nz = nx, ny, nz

    @tack.func
    def flat(self, c):
        return c[0] + self.nx * (c[1] + self.ny * c[2])


@tack.data_oriented
class FixedPlane:
    __tack_iterate__ = ("NX", "NY")  # class constants: compiled in
    NX = 5
    NY = 3

    @tack.func
    def flat(self, c):
        return c[0] + self.NX * c[1]

    @tack.func
    def ijk(self, c):
        return c[0], c[1], 0


@tack.data_oriented
class Derived(Plane):  # the declaration is inherited
    pass


def _expected(shape):
    """Rows (flat, i, j, k) of an index space, c[0] fastest."""
    idx = np.indices(shape[::-1]).reshape(len(shape), -1)[::-1]  # fastest first
    flat = np.arange(idx.shape[1])
    return flat, idx


@tack.kernel
def _indices(cells, out):
    for c in cells:
        k = cells.flat(c)
        i, j, m = cells.ijk(c)  # the object's methods take c as it comes
        out[k, 0] = k
        out[k, 1] = i
        out[k, 2] = j
        out[k, 3] = m


@tack.kernel
def _indices3(cells, out):
    for c in cells:
        k = cells.flat(c)
        out[k, 0] = k
        out[k, 1] = c[0]
        out[k, 2] = c[1]
        out[k, 3] = c[2]


@pytest.mark.parametrize("obj, shape", [(Row(7), (7,)), (Plane(6, 4), (6, 4)),
                                        (Plane(1, 9), (1, 9)), (FixedPlane(), (5, 3)),
                                        (Derived(3, 2), (3, 2))])
def test_the_parallel_loop_covers_the_space(backend, obj, shape):
    n = int(np.prod(shape))
    out = tack.field(tack.i32, shape=(n, 4))
    out.fill(-1)
    _indices(obj, out)
    got = out.to_numpy()
    flat, idx = _expected(shape)
    np.testing.assert_array_equal(got[:, 0], flat)
    for d in range(3):
        np.testing.assert_array_equal(got[:, 1 + d], idx[d] if d < len(shape) else 0)


def test_three_dimensions_c0_fastest(backend):
    out = tack.field(tack.i32, shape=(4 * 3 * 5, 4))
    out.fill(-1)
    _indices3(Box(4, 3, 5), out)
    flat, idx = _expected((4, 3, 5))
    got = out.to_numpy()
    np.testing.assert_array_equal(got[:, 0], flat)
    np.testing.assert_array_equal(got[:, 1:].T, idx)


def test_the_parallel_loop_launches_in_the_objects_shape():
    text = tack.inspect(_indices3, Box(2, 3, 4), tack.field(tack.i32, shape=(24, 4)), mode="ir")
    parallel = next(line for line in text.splitlines() if line.lstrip().startswith("parallel"))
    assert parallel.count(" in [0i64, ") == 3  # one launch dimension per extent, no division
    assert "floordiv" not in text and "mod" not in text


@tack.kernel
def _repeat(cells, out, m):
    for r in range(m):
        for c in cells:
            out[r, cells.flat(c)] = r * 100 + cells.flat(c)


@tack.kernel
def _sum_over(cells, weights, out):
    for i in range(out.shape[0]):
        total = 0.0
        for c in cells:
            if cells.flat(c) % 2 == 1:
                continue  # continue moves to the next index of the whole space
            total += weights[cells.flat(c)] * tack.f32(i + 1)
        out[i] = total


@pytest.mark.parametrize("obj, n", [(Row(5), 5), (Plane(4, 3), 12), (Box(2, 3, 2), 12)])
def test_a_sequential_loop_over_an_object(backend, obj, n):
    out = tack.field(tack.i32, shape=(3, n))
    _repeat(obj, out, 3)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(3)[:, None] * 100 + np.arange(n))
    w = np.linspace(0.5, 2.0, n).astype(np.float32)
    weights = tack.field(tack.f32, (n,))
    weights.from_numpy(w)
    sums = tack.field(tack.f32, (4,))
    _sum_over(obj, weights, sums)
    np.testing.assert_allclose(sums.to_numpy(), w[::2].sum() * np.arange(1, 5), rtol=1e-6)


@tack.data_oriented
class Particles:
    __tack_iterate__ = "count"

    def __init__(self, count):
        self.count = count
        self.x = tack.field(tack.f32, shape=(count,))

    @tack.kernel
    def advance(self, dt: tack.f32):
        for p in self:
            self.x[p] += dt * tack.f32(p)


@tack.data_oriented
class Mesh:
    def __init__(self, cells, values):
        self.cells = cells  # a nested template that can be iterated
        self.values = values

    @tack.kernel
    def scale(self, s: tack.f32):
        for c in self.cells:
            k = self.cells.flat(c)
            self.values[k] = self.values[k] * s


def test_a_kernel_method_iterates_its_object_and_a_nested_one(backend):
    particles = Particles(6)
    particles.advance(0.5)
    particles.advance(0.25)
    np.testing.assert_allclose(particles.x.to_numpy(), 0.75 * np.arange(6))
    values = tack.field(tack.f32, (12,))
    values.from_numpy(np.arange(12, dtype=np.float32))
    Mesh(Plane(4, 3), values).scale(2.0)
    np.testing.assert_array_equal(values.to_numpy(), np.arange(12) * 2.0)


@tack.kernel
def _rebinds(cells, out):
    for c in cells:
        k = cells.flat(c)
        c = c * 2  # the body may rebind the index; the launch is unaffected
        out[k] = c[0] + c[1]


def test_the_body_may_rebind_the_index(backend):
    out = tack.field(tack.i32, (6,))
    _rebinds(Plane(3, 2), out)
    i, j = np.meshgrid(np.arange(3), np.arange(2))
    np.testing.assert_array_equal(out.to_numpy(), (2 * (i + j)).ravel())


def test_new_extents_do_not_recompile(backend):
    _indices(Plane(2, 2), tack.field(tack.i32, shape=(4, 4)))
    before = _indices._num_variants()
    for nx, ny in ((8, 8), (100, 1), (11, 13)):
        out = tack.field(tack.i32, shape=(nx * ny, 4))
        _indices(Plane(nx, ny), out)
        np.testing.assert_array_equal(out.to_numpy()[:, 0], np.arange(nx * ny))
    assert _indices._num_variants() == before


# ---- errors ----------------------------------------------------------------------------------


@tack.data_oriented
class NoDecl:
    def __init__(self):
        self.n = 3


@tack.data_oriented
class FourNames:
    __tack_iterate__ = ("a", "b", "c", "d")
    a = b = c = d = 2


@tack.data_oriented
class FieldName:
    __tack_iterate__ = "values"

    def __init__(self):
        self.values = tack.field(tack.f32, (4,))


@tack.data_oriented
class FloatName:
    __tack_iterate__ = "size"

    def __init__(self):
        self.size = 4.0


@tack.data_oriented
class MissingName:
    __tack_iterate__ = "n"


@tack.data_oriented
class NotNames:
    __tack_iterate__ = 3


@tack.kernel
def _count(cells, out):
    for _c in cells:
        out[0] = 1


@pytest.mark.parametrize(
    "obj, message",
    [
        (NoDecl(), "template class 'NoDecl' declares no __tack_iterate__"),
        (FourNames(), "must name one to three attributes .fastest first.; it names 4"),
        (FieldName(), "names 'values', which is not a scalar attribute"),
        (FloatName(), "names 'size', which is not an integer"),
        (MissingName(), "names 'n', which is not an attribute it has"),
        (NotNames(), "must be an attribute name or a tuple of names, got <class 'int'>"),
    ],
)
def test_what_cannot_be_iterated(obj, message):
    with pytest.raises(TypeError, match=message) as info:
        _count(obj, tack.field(tack.i32, (1,)))
    assert "Kernel '_count': cannot loop over 'cells'" in str(info.value)
    assert "line " in str(info.value)
    _fine(obj, tack.field(tack.i32, (1,)))  # passing the object without looping is fine


@tack.kernel
def _fine(cells, out):
    for i in range(out.shape[0]):
        out[i] = 1


@tack.kernel
def _pairs(cells, out):
    for c, d in cells:
        out[c] = d


@tack.kernel
def _breaks(cells, out):
    for _i in range(1):
        for c in cells:
            if cells.flat(c) > 2:
                break
            out[cells.flat(c)] = 1


def test_loop_form_errors():
    with pytest.raises(TypeError, match="binds one name, the index .2-vector here."):
        _pairs(Plane(2, 2), tack.field(tack.i32, (4,)))
    with pytest.raises(tack.UnsupportedSyntaxError, match="break in a loop over the 2-D object"):
        _breaks(Plane(2, 2), tack.field(tack.i32, (4,)))
    out = tack.field(tack.i32, (4,))
    _breaks(Row(4), out)  # one dimension: break leaves the one loop
    np.testing.assert_array_equal(out.to_numpy(), [1, 1, 1, 0])


@tack.kernel
def _over_a_field(x, out):
    for v in x:
        out[0] = v


def test_only_templates_are_iterable():
    x = tack.field(tack.f32, (4,))
    pattern = r"loop iterable 'x' is not range\(...\), tack.ndrange\(...\) or an object whose"
    with pytest.raises(tack.UnsupportedSyntaxError, match=pattern):
        _over_a_field(x, x)
    with pytest.raises(tack.UnsupportedSyntaxError, match=pattern):
        _over_a_field(3, x)


def test_the_declaration_as_the_core_reads_it():
    assert tack._tack._iteration_space(Row) == ("n",)
    assert tack._tack._iteration_space(Box) == ("nx", "ny", "nz")
    assert tack._tack._iteration_space(Derived) == ("nx", "ny")
    with pytest.raises(TypeError, match="declares no __tack_iterate__"):
        tack._tack._iteration_space(NoDecl)


@tack.data_oriented
class Weights:
    __tack_iterate__ = ("nx", "ny")

    def __init__(self, w):
        self.nx, self.ny = w.shape
        self.w = w

    @tack.func
    def total(self):
        s = 0.0
        for c in self:  # a device function may loop over its object
            s += self.w[c]  # the index vector indexes a 2-D field directly
        return s


@tack.kernel
def _totals(g, out):
    for i in range(out.shape[0]):
        out[i] = g.total() * tack.f32(i)


@tack.kernel
def _fill2d(g, out):
    for c in g:
        out[c] = c[0] * 10 + c[1]


def test_device_functions_loop_and_the_index_indexes_fields(backend):
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    field = tack.field(tack.f32, w.shape)
    field.from_numpy(w)
    out = tack.field(tack.f32, (3,))
    _totals(Weights(field), out)
    np.testing.assert_array_equal(out.to_numpy(), w.sum() * np.arange(3))
    grid = tack.field(tack.i32, (3, 2))
    _fill2d(Weights(field), grid)
    i, j = np.indices((3, 2))
    np.testing.assert_array_equal(grid.to_numpy(), i * 10 + j)
