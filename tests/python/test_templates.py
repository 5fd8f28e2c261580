"""@tack.data_oriented templates (CONTRACT A23-A26, D5): class constants compiled in, instance
fields and scalars as extra arguments, methods inlined with self, kernels as methods, nested
templates, and the variant counts of D5's worked examples. References are NumPy."""

import numpy as np
import pytest

import tack


@tack.data_oriented
class Grid:
    width = 4  # a class constant: compiled in

    def __init__(self, values, scale):
        self.values = values  # a field: an extra argument
        self.scale = scale  # a number: a runtime scalar

    @tack.func
    def at(self, i, j):
        return self.values[i * self.width + j] * self.scale

    @tack.kernel
    def row_sums(self, out, n):
        for i in range(n):
            total = 0.0
            for j in range(self.width):
                total += self.at(i, j)
            out[i] = total


def _grid(scale=1.0, rows=3):
    f = tack.field(tack.f32, (rows * 4,))
    f.from_numpy(np.arange(rows * 4, dtype=np.float32))
    return Grid(f, scale)


def test_constants_fields_scalars_and_methods(backend):
    g = _grid(2.0)
    out = tack.field(tack.f32, (3,))
    g.row_sums(out, 3)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(12).reshape(3, 4).sum(1) * 2.0)


def test_variant_counts_follow_the_contract(backend):
    """D5: a new instance scalar reuses the variant; a class constant shadowed by the instance
    compiles anew; an equivalent class defined again compiles anew."""
    out = tack.field(tack.f32, (3,))
    kernel = Grid.row_sums
    g = _grid(1.0)
    g.row_sums(out, 3)
    base = kernel._num_variants()
    g.scale = 3.0
    g.row_sums(out, 3)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(12).reshape(3, 4).sum(1) * 3.0)
    assert kernel._num_variants() == base  # a scalar's value is not keyed
    g.width = 2  # shadows the class constant: a new compile-time value
    g.row_sums(out, 3)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(6).reshape(3, 2).sum(1) * 3.0)
    assert kernel._num_variants() == base + 1

    def make_class():
        @tack.data_oriented
        class Scale:
            factor = 2.0

        return Scale

    @tack.kernel
    def scaled(s, out):
        for i in range(out.shape[0]):
            out[i] = s.factor * tack.f32(i)

    a, b = make_class()(), make_class()()  # equivalent classes, defined twice
    scaled(a, out)
    scaled(b, out)
    assert scaled._num_variants() == 2
    np.testing.assert_array_equal(out.to_numpy(), np.arange(3) * 2.0)


@tack.data_oriented
class Base:
    offset = 1.0

    @tack.func
    def shift(self, x):
        return x + self.offset

    @tack.func
    def apply(self, x):
        return self.shift(x) * 2.0


@tack.data_oriented
class Derived(Base):
    offset = 10.0  # overrides the base's constant

    @tack.func
    def shift(self, x):  # and its method; the inherited apply() calls this one
        return x - self.offset

    @staticmethod
    @tack.func
    def twice(x):
        return x * 2.0


@tack.kernel
def _apply(obj, out):
    for i in range(out.shape[0]):
        out[i] = obj.apply(tack.f32(i))


@tack.kernel
def _static(obj, out):
    for i in range(out.shape[0]):
        out[i] = obj.twice(tack.f32(i))


def test_inheritance_overrides_and_static_methods(backend):
    out = tack.field(tack.f32, (4,))
    _apply(Base(), out)
    np.testing.assert_array_equal(out.to_numpy(), (np.arange(4) + 1.0) * 2.0)
    _apply(Derived(), out)
    np.testing.assert_array_equal(out.to_numpy(), (np.arange(4) - 10.0) * 2.0)
    _static(Derived(), out)
    np.testing.assert_array_equal(out.to_numpy(), np.arange(4) * 2.0)


@tack.func
def _square(x):
    return x * x


@tack.data_oriented
class Outer:
    def __init__(self, inner, weights):
        self.inner = inner  # a template inside a template
        self.weights = weights
        self.transform = _square  # a function-valued attribute


@tack.kernel
def _nested(o, out):
    for i in range(out.shape[0]):
        out[i] = o.transform(o.weights[i]) + o.inner.at(0, i % o.inner.width)


def test_nested_templates_and_function_attributes(backend):
    w = tack.field(tack.f32, (4,))
    w.from_numpy(np.array([1, 2, 3, 4], np.float32))
    out = tack.field(tack.f32, (4,))
    _nested(Outer(_grid(0.5), w), out)
    np.testing.assert_array_equal(out.to_numpy(), np.array([1, 4, 9, 16]) + np.arange(4) * 0.5)


def test_a_self_containing_template_is_refused():
    @tack.data_oriented
    class Loop:
        pass

    obj = Loop()
    obj.me = obj
    with pytest.raises(ValueError, match="contains itself"):
        _nested(obj, tack.field(tack.f32, (1,)))


def test_a_bad_template_attribute_names_class_attribute_and_line():
    @tack.data_oriented
    class Plain:
        def helper(self):  # a plain Python method: not callable from a kernel
            return 1

    @tack.kernel
    def uses(p, out):
        for i in range(out.shape[0]):
            out[i] = p.helper()

    with pytest.raises(ValueError, match=r"Plain.*'helper'.*line \d+"):
        uses(Plain(), tack.field(tack.f32, (1,)))


@tack.kernel
def _two_templates(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a.at(0, i) + b.at(1, i) + a.scale * 100.0 + b.scale * 1000.0


def test_two_template_arguments_get_their_own_extra_arguments(backend):
    out = tack.field(tack.f32, (4,))
    _two_templates(_grid(1.0, rows=2), _grid(2.0, rows=3), out)
    v = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(out.to_numpy(), v[0] + v[1] * 2.0 + 100.0 + 2000.0)
