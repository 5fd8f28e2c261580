"""The worked variant counts of CONTRACT D5, one test per example (CPU, counting from empty).

The first example (scale: lengths, scalar types, f64 fields, aliasing) is
tests/python/test_kernels.py::test_variant_counts_of_contract_d5. Every call's result is
checked against NumPy too: reusing a variant must behave like compiling afresh (D2).
"""

import gc

import numpy as np

import tack


def _field(values, dtype=tack.f32):
    values = np.asarray(values)
    f = tack.field(dtype, values.shape)
    f.from_numpy(values)
    return f


@tack.kernel
def _reverse(x, out):
    for i in range(out.shape[0]):
        out[i] = x[x.shape[0] - 1 - i]


@tack.kernel
def _reverse_n(x, out, n):
    for i in range(out.shape[0]):
        out[i] = x[n - 1 - i]


def test_an_extent_that_reaches_code_is_keyed_a_scalar_is_not():
    """`x[x.shape[0]-1-i]` at lengths 8/16/32 -> 3; the same with a scalar n -> 1."""
    for n in (8, 16, 32):
        x = np.arange(n, dtype=np.float32)
        out = tack.field(tack.f32, (n,))
        _reverse(_field(x), out)
        np.testing.assert_array_equal(out.to_numpy(), x[::-1])
        out_n = tack.field(tack.f32, (n,))
        _reverse_n(_field(x), out_n, n)
        np.testing.assert_array_equal(out_n.to_numpy(), x[::-1])
    assert _reverse._num_variants() == 3
    assert _reverse_n._num_variants() == 1


@tack.kernel
def _double2d(a, out):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[i, j] = a[i, j] * 2.0


def test_ndrange_over_two_extents():
    """ndrange(a.shape[0], a.shape[1]) over (4,8), (16,8), (4,9) -> 2: the row length is the
    flat index's stride (it reaches code), the row count only ends a loop."""
    for shape in ((4, 8), (16, 8), (4, 9)):
        a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        out = tack.field(tack.f32, shape)
        _double2d(_field(a), out)
        np.testing.assert_array_equal(out.to_numpy(), a * 2.0)
    assert _double2d._num_variants() == 2


@tack.kernel
def _stencil(x, out):
    for i in range(1, x.shape[0] - 1):
        out[i] = x[i - 1] + x[i] + x[i + 1]


def test_a_stencil_range_is_the_loop_end_only():
    """range(1, x.shape[0]-1) -> 1 for every length."""
    for n in (8, 16, 33):
        x = np.arange(n, dtype=np.float32) ** 2
        out = _field(np.zeros(n, np.float32))
        _stencil(_field(x), out)
        expected = np.zeros(n, np.float32)
        expected[1:-1] = x[:-2] + x[1:-1] + x[2:]
        np.testing.assert_array_equal(out.to_numpy(), expected)
    assert _stencil._num_variants() == 1


@tack.kernel
def _vnorm(v, out):
    for i in range(out.shape[0]):
        out[i] = v[i].norm()


def test_vector_widths_are_separate_templates():
    """Vector widths 2 then 3 -> 2 variants and 2 IR templates (LC3)."""
    for width in (2, 3):
        v = np.arange(4 * width, dtype=np.float32).reshape(4, width)
        field = tack.Vector.field(width, tack.f32, shape=(4,))
        field.from_numpy(v)
        out = tack.field(tack.f32, (4,))
        _vnorm(field, out)
        np.testing.assert_allclose(out.to_numpy(), np.linalg.norm(v, axis=1), rtol=1e-6)
    assert (_vnorm._num_variants(), _vnorm._num_templates()) == (2, 2)


@tack.data_oriented
class Scaled:
    factor = 2.0  # a class constant: compiled in

    def __init__(self, values, offset):
        self.values = values  # an instance field: dtype, shape and width keyed
        self.offset = offset  # an instance scalar: a runtime value

    @tack.func
    def at(self, i):
        return self.values[i] * self.factor + self.offset


@tack.kernel
def _apply(s, out):
    for i in range(out.shape[0]):
        out[i] = s.at(i)


def _counts(kernel):
    return kernel._num_variants(), kernel._num_templates()


def test_template_instance_scalar_value_is_not_keyed():
    """A new instance scalar -> the same variant."""
    x = np.arange(8, dtype=np.float32)
    out = tack.field(tack.f32, (8,))
    s = Scaled(_field(x), 1.0)
    _apply(s, out)
    before = _counts(_apply)
    for offset in (2.5, -7.0):
        s.offset = offset
        _apply(s, out)
        np.testing.assert_array_equal(out.to_numpy(), x * 2.0 + offset)
    _apply(Scaled(_field(x), 4.0), out)  # another instance of the class: the same
    np.testing.assert_array_equal(out.to_numpy(), x * 2.0 + 4.0)
    assert _counts(_apply) == before


def test_template_field_of_a_new_length_is_a_new_template_and_variant():
    """A template's field of a new length -> a new variant and a new IR template."""

    @tack.kernel
    def apply(s, out):
        for i in range(out.shape[0]):
            out[i] = s.at(i)

    for n in (8, 16):
        x = np.arange(n, dtype=np.float32)
        out = tack.field(tack.f32, (n,))
        apply(Scaled(_field(x), 0.5), out)
        np.testing.assert_array_equal(out.to_numpy(), x * 2.0 + 0.5)
    assert _counts(apply) == (2, 2)
    apply(Scaled(_field(np.ones(16, np.float32)), 0.0), tack.field(tack.f32, (16,)))
    assert _counts(apply) == (2, 2)  # the same length again: served


def test_an_instance_value_shadowing_a_class_constant_is_keyed():
    """`s.factor = 3.0` shadowing the class constant -> a new variant."""

    @tack.kernel
    def apply(s, out):
        for i in range(out.shape[0]):
            out[i] = s.at(i)

    x = np.arange(4, dtype=np.float32)
    out = tack.field(tack.f32, (4,))
    s = Scaled(_field(x), 0.0)
    apply(s, out)
    assert apply._num_variants() == 1
    s.factor = 3.0
    apply(s, out)
    np.testing.assert_array_equal(out.to_numpy(), x * 3.0)
    assert apply._num_variants() == 2
    s.factor = -0.0  # float constants are keyed by their bits: -0.0 is not 0.0
    apply(s, out)
    s.factor = 0.0
    apply(s, out)
    assert apply._num_variants() == 4


def _make_class():
    @tack.data_oriented
    class Local:
        factor = 2.0

        @tack.func
        def at(self, i):
            return tack.f32(i) * self.factor

    return Local


def test_equivalent_classes_never_share_and_a_collected_one_is_dropped():
    """An equivalent class defined in a function -> a new variant; after that class is collected
    its entries are removed (D6)."""

    @tack.kernel
    def apply(s, out):
        for i in range(out.shape[0]):
            out[i] = s.at(i)

    out = tack.field(tack.f32, (4,))
    first, second = _make_class(), _make_class()
    apply(first(), out)
    apply(second(), out)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(4) * 2.0)
    assert _counts(apply) == (2, 2)
    del second
    gc.collect()
    assert _counts(apply) == (1, 1)
    apply(first(), out)  # the survivor is still served
    assert _counts(apply) == (1, 1)
    del first
    gc.collect()
    assert _counts(apply) == (0, 0)
