"""`tack.ndrange` as a sequential loop inside a kernel's body: nested range loops in Python's
order (itertools.product), bounds evaluated once, sizes or (start, end) pairs."""

import itertools

import numpy as np
import pytest

import tack


@tack.kernel
def window_sums(x, out, r):
    for i in range(out.shape[0]):
        s = 0.0
        for a, b in tack.ndrange((i, i + r), x.shape[1]):
            s += x[a, b]
        out[i] = s


def test_sums_over_a_window_match_numpy(backend):
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    out = tack.zeros(tack.f32, 8)
    window_sums(tack.field_like(x), out, 3)
    expect = np.array([x[i:i + 3].sum() for i in range(8)], np.float32)
    np.testing.assert_array_equal(out.to_numpy(), expect)


@tack.kernel
def order(out, n, m, k):
    for t in range(1):
        c = 0
        for i, j, l in tack.ndrange(n, (1, m), k):
            if (i + j + l) % 3 == 0:
                continue
            out[c] = i * 100 + j * 10 + l
            c += 1
        out[c] = -1


def test_iterates_in_pythons_order_with_continue_and_empty_extents(backend):
    for n, m, k in ((2, 3, 2), (0, 4, 2), (2, -1, 3), (3, 1, 2), (1, 4, 0)):
        out = tack.zeros(tack.i32, 64)
        order(out, n, m, k)
        expect = [i * 100 + j * 10 + l
                  for i, j, l in itertools.product(range(n), range(1, m), range(k))
                  if (i + j + l) % 3]
        got = out.to_numpy().tolist()
        assert got[:len(expect) + 1] == expect + [-1], (n, m, k)


def test_break_and_a_wrong_number_of_variables_are_refused():
    @tack.kernel
    def breaks(out):
        for i in range(out.shape[0]):
            for a, b in tack.ndrange(2, 2):
                if a == b:
                    break
                out[i] = a

    with pytest.raises(tack.UnsupportedSyntaxError, match="break out of a sequential "
                       r"tack.ndrange\(\) loop would leave only its last dimension"):
        breaks(tack.zeros(tack.i32, 2))

    @tack.kernel
    def two_names_three_dims(out):
        for i in range(out.shape[0]):
            for a, b in tack.ndrange(2, 2, 2):
                out[i] = a + b

    with pytest.raises(tack.UnsupportedSyntaxError, match=r"over 3 dimension\(s\) needs one "
                       "loop variable per dimension"):
        two_names_three_dims(tack.zeros(tack.i32, 2))
