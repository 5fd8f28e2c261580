"""Debug mode (DECISIONS "Debug mode", issue 10): checked variants, their messages, the switches.

Each kernel marks the line of its checked access with `# site: NAME`; `located()` builds the
exact message a violation there raises: the core's text, then the file, line and column, the
source line and the caret under the access. The launches are arranged so that exactly one
thread violates, which makes the reported values deterministic on every backend.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import tack

from conftest import python_env

HERE = os.path.abspath(__file__)
LINES = open(HERE, encoding="utf-8").read().splitlines()


def located(message, site, target):
    """`message` at the line marked `# site: <site>`, the caret under `target`."""
    marker = f"# site: {site}"
    lineno = next(i for i, line in enumerate(LINES, 1) if line.endswith(marker))
    line = LINES[lineno - 1]
    col = line.index(target) + 1
    caret = " " * (4 + col - 1) + "^" + "~" * (len(target) - 1)
    return f'{message}\n  File "{HERE}", line {lineno}, column {col}\n    {line}\n{caret}'


def raises(exc, kernel, *args):
    with pytest.raises(exc) as info:
        kernel(*args)
    return str(info.value)


# --- fields -----------------------------------------------------------------------------------


@tack.kernel
def read_shifted(x, y, d: int):
    for i in range(y.shape[0]):
        y[i] = x[i + d]  # site: read1


@tack.kernel
def write_shifted(y, n: int, d: int):
    for i in range(n):
        y[i + d] = 1.0  # site: write1


@tack.kernel
def read_grid(a, b, n: int, m: int, di: int, dj: int):
    for i, j in tack.ndrange(n, m):
        a[i, j] = b[i + di, j + dj]  # site: read2


@tack.kernel
def write_grid(a, n: int, m: int, di: int, dj: int):
    for i, j in tack.ndrange(n, m):
        a[i + di, j + dj] = 2.0  # site: write2


@tack.kernel
def read_cube(a, b, d: int):
    for i, j, k in tack.ndrange(a.shape[0], a.shape[1], a.shape[2]):
        a[i, j, k] = b[i, j, k + d]  # site: read3


@pytest.mark.parametrize("d, index", [(1, 8), (-1, -1)])
def test_field_read(backend, d, index):
    # y is one element shorter: only its last (or first) thread leaves x.
    x, y = tack.zeros(tack.f32, 8), tack.zeros(tack.f32, 1 if d < 0 else 8)
    with tack.debug():
        text = raises(IndexError, read_shifted, x, y, d)
    assert text == located(
        f"Kernel 'read_shifted': out-of-bounds read of 'x': index {index} is outside shape (8,)",
        "read1", "x[i + d]")


@pytest.mark.parametrize("n, d, index", [(8, 1, 8), (1, -1, -1)])
def test_field_write(backend, n, d, index):
    y = tack.zeros(tack.f32, 8)
    with tack.debug():
        text = raises(IndexError, write_shifted, y, n, d)
    assert text == located(
        f"Kernel 'write_shifted': out-of-bounds write to 'y': index {index} is outside shape (8,)",
        "write1", "y[i + d]")
    # The faulting store was skipped; every other thread stored.
    expect = np.ones(8, np.float32)
    if d > 0:
        expect[0] = 0
    else:
        expect[:] = 0
    np.testing.assert_array_equal(y.to_numpy(), expect)


# (n, m) threads: exactly one of them is past (or before) the edge of the (4, 8) field.
AXES = [
    (4, 1, 1, 0, "(4, 0)", 0, 4), (1, 1, -1, 0, "(-1, 0)", 0, 4),
    (1, 8, 0, 1, "(0, 8)", 1, 8), (1, 1, 0, -1, "(0, -1)", 1, 8),
]


@pytest.mark.parametrize("n, m, di, dj, index, axis, size", AXES)
def test_grid_read_each_axis(backend, n, m, di, dj, index, axis, size):
    a, b = tack.zeros(tack.f32, (4, 8)), tack.zeros(tack.f32, (4, 8))
    with tack.debug():
        text = raises(IndexError, read_grid, a, b, n, m, di, dj)
    assert text == located(
        f"Kernel 'read_grid': out-of-bounds read of 'b': index {index} is outside shape (4, 8) "
        f"(axis {axis} has size {size})", "read2", "b[i + di, j + dj]")


@pytest.mark.parametrize("n, m, di, dj, index, axis, size", AXES)
def test_grid_write_each_axis(backend, n, m, di, dj, index, axis, size):
    a = tack.zeros(tack.f32, (4, 8))
    with tack.debug():
        text = raises(IndexError, write_grid, a, n, m, di, dj)
    assert text == located(
        f"Kernel 'write_grid': out-of-bounds write to 'a': index {index} is outside shape (4, 8) "
        f"(axis {axis} has size {size})", "write2", "a[i + di, j + dj]")


def test_a_row_past_its_end_is_caught_although_the_flat_index_is_inside(backend):
    # b[0, 8] of a (4, 8) field is flat element 8, which exists: only a per-axis check sees it.
    a, b = tack.zeros(tack.f32, (4, 8)), tack.zeros(tack.f32, (4, 8))
    with tack.debug():
        text = raises(IndexError, read_grid, a, b, 1, 8, 0, 1)
    assert "index (0, 8) is outside shape (4, 8) (axis 1 has size 8)" in text


def test_three_axes(backend):
    a, b = tack.zeros(tack.f32, (2, 3, 1)), tack.zeros(tack.f32, (2, 3, 4))
    with tack.debug():
        text = raises(IndexError, read_cube, a, b, 4)
    assert text.startswith(
        "Kernel 'read_cube': out-of-bounds read of 'b': index (")
    assert ", 4) is outside shape (2, 3, 4) (axis 2 has size 4)\n" in text


@tack.kernel
def vector_write(p, n: int, d: int):
    for i in range(n):
        p[i + d] = tack.Vector([1.0, 2.0, 3.0])  # site: vec


def test_vector_field_is_checked_per_element(backend):
    p = tack.Vector.field(3, tack.f32, 4)
    with tack.debug():
        text = raises(IndexError, vector_write, p, 4, 1)
    assert text == located(
        "Kernel 'vector_write': out-of-bounds write to 'p': index 4 is outside shape (4,)",
        "vec", "p[i + d]")
    want = np.array([[0, 0, 0]] + [[1, 2, 3]] * 3, np.float32)
    np.testing.assert_array_equal(p.to_numpy().reshape(4, 3), want)


# --- atomics, local and shared arrays ---------------------------------------------------------


@tack.kernel
def histogram(keys, counts):
    for i in range(keys.shape[0]):
        tack.atomic_add(counts, keys[i], 1)  # site: atomic


def test_atomic_index(backend):
    keys = tack.field_like(np.array([0, 1, 5, 2], np.int32))
    counts = tack.zeros(tack.i32, 4)
    with tack.debug():
        text = raises(IndexError, histogram, keys, counts)
    assert text == located(
        "Kernel 'histogram': out-of-bounds atomic update of 'counts': index 5 is outside "
        "shape (4,)", "atomic", "tack.atomic_add(counts, keys[i], 1)")
    np.testing.assert_array_equal(counts.to_numpy(), [1, 1, 1, 0])  # the three others added


@tack.kernel
def local_reverse(x, y, d: int):
    for i in range(x.shape[0]):
        t = tack.local_array(tack.f32, 4)
        for k in range(4):
            t[k] = x[i] + k
        y[i] = t[i % 4 + d]  # site: local


@pytest.mark.parametrize("d, index", [(1, 4), (-1, -1)])
def test_local_array_read(backend, d, index):
    x, y = tack.zeros(tack.f32, 4), tack.zeros(tack.f32, 4)
    # i % 4 + d leaves [0, 4) for one thread: i = 3 (d = 1) or i = 0 (d = -1).
    with tack.debug():
        text = raises(IndexError, local_reverse, x, y, d)
    assert text == located(
        f"Kernel 'local_reverse': out-of-bounds read of local array 't': index {index} is "
        "outside shape (4,)", "local", "t[i % 4 + d]")


@tack.kernel
def local_write(y, d: int):
    for i in range(y.shape[0]):
        t = tack.local_array(tack.i32, 2)
        t[i + d] = 1  # site: localw
        y[i] = 7


def test_local_array_write(backend):
    y = tack.zeros(tack.i32, 2)
    with tack.debug():
        text = raises(IndexError, local_write, y, 1)
    assert text == located(
        "Kernel 'local_write': out-of-bounds write to local array 't': index 2 is outside "
        "shape (2,)", "localw", "t[i + d]")
    np.testing.assert_array_equal(y.to_numpy(), [7, 7])  # the thread ran on


@tack.kernel
def group_shift(x, y):
    for i in range(x.shape[0]):
        s = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        s[t + 1] = x[i]  # site: shared
        tack.barrier()
        y[i] = s[t]


def test_shared_array_write(workgroup_backend):
    x, y = tack.field_like(np.arange(256, dtype=np.float32)), tack.zeros(tack.f32, 256)
    with tack.debug():
        text = raises(IndexError, group_shift, x, y)
    assert text == located(
        "Kernel 'group_shift': out-of-bounds write to shared array 's': index 256 is outside "
        "shape (256,)", "shared", "s[t + 1]")
    np.testing.assert_array_equal(y.to_numpy()[1:], np.arange(255, dtype=np.float32))


# --- integer division ------------------------------------------------------------------------


@tack.kernel
def floordiv(a, b, c):
    for i in range(a.shape[0]):
        a[i] = b[i] // c[i]  # site: floordiv


@tack.kernel
def modulo(a, b, c):
    for i in range(a.shape[0]):
        a[i] = b[i] % c[i]  # site: mod


DIV_DTYPES = [(tack.i8, np.int8), (tack.i32, np.int32), (tack.i64, np.int64),
              (tack.u32, np.uint32), (tack.u64, np.uint64)]


@pytest.mark.parametrize("dtype, np_dtype", DIV_DTYPES)
@pytest.mark.parametrize("kernel, op, site", [(floordiv, "//", "floordiv"), (modulo, "%", "mod")])
def test_division_by_zero(backend, dtype, np_dtype, kernel, op, site):
    b = tack.field_like(np.array([7, 9, 100, 5], np_dtype))
    c = tack.field_like(np.array([2, 4, 0, 3], np_dtype))
    a = tack.zeros(dtype, 4)
    with tack.debug():
        text = raises(ZeroDivisionError, kernel, a, b, c)
    target = f"b[i] {op} c[i]"
    assert text == located(
        f"Kernel '{kernel.__name__}': integer division or modulo by zero: 100 {op} 0 "
        f"({dtype.name})", site, target)
    # The other threads ran; the zero divisor kept its defined result, 0.
    want = [7 // 2, 9 // 4, 0, 5 // 3] if op == "//" else [7 % 2, 9 % 4, 0, 5 % 3]
    np.testing.assert_array_equal(a.to_numpy(), np.array(want, np_dtype))


def test_negative_dividend_is_printed_signed(backend):
    b = tack.field_like(np.array([-7], np.int32))
    c = tack.zeros(tack.i32, 1)
    with tack.debug():
        text = raises(ZeroDivisionError, floordiv, tack.zeros(tack.i32, 1), b, c)
    assert text.startswith("Kernel 'floordiv': integer division or modulo by zero: -7 // 0 (i32)")


def test_large_unsigned_dividend(backend):
    b = tack.field_like(np.array([2**64 - 1], np.uint64))
    c = tack.zeros(tack.u64, 1)
    with tack.debug():
        text = raises(ZeroDivisionError, modulo, tack.zeros(tack.u64, 1), b, c)
    assert text.startswith(
        f"Kernel 'modulo': integer division or modulo by zero: {2**64 - 1} % 0 (u64)")


@tack.kernel
def sample_at(tex, u, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(u[i + 1], 0.5, 0.5)  # site: texture


def test_texture_coordinates_are_checked_and_samples_are_not(backend):
    vol = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)  # (D, H, W)
    tex = tack.texture3d(tack.field_like(vol), shape=(4, 3, 2))
    u = tack.field_like(np.array([0.0, 0.5, 2.0, -1.0], np.float32))  # samples clamp, no error
    out = tack.zeros(tack.f32, 3)
    with tack.debug():
        sample_at(tex, u, out)
        text = raises(IndexError, sample_at, tex, u, tack.zeros(tack.f32, 4))
    assert text == located(
        "Kernel 'sample_at': out-of-bounds read of 'u': index 4 is outside shape (4,)",
        "texture", "u[i + 1]")
    plain = tack.zeros(tack.f32, 3)
    sample_at(tex, u, plain)
    np.testing.assert_allclose(out.to_numpy(), plain.to_numpy(), rtol=0, atol=0)


# --- what is and is not evaluated ------------------------------------------------------------


@tack.kernel
def guarded(x, y):
    for i in range(y.shape[0]):
        n = x.shape[0]
        v = x[i + 1] if i + 1 < n else 0.0
        if i + 1 < n and x[i + 1] > 0.0:
            v += 1.0
        j = i
        while j + 1 < n and x[j + 1] < 0.0:
            j += 1
        y[i] = v + j


def guarded_reference(x, i):
    n = len(x)
    v = x[i + 1] if i + 1 < n else 0.0
    if i + 1 < n and x[i + 1] > 0.0:
        v += 1.0
    j = i
    while j + 1 < n and x[j + 1] < 0.0:
        j += 1
    return v + j


def test_conditional_operands_are_checked_only_when_evaluated(backend):
    x = tack.field_like(np.array([1, -2, 3, 4], np.float32))
    y = tack.zeros(tack.f32, 4)
    with tack.debug():
        guarded(x, y)  # x[i + 1] at i = 3 is never evaluated: no error
    np.testing.assert_array_equal(y.to_numpy(), [guarded_reference(x.to_numpy(), i)
                                                 for i in range(4)])
    y2 = tack.zeros(tack.f32, 4)
    guarded(x, y2)
    np.testing.assert_array_equal(y2.to_numpy(), y.to_numpy())


@tack.func
def neighbour(x, i):
    return x[i + 1]  # site: func


@tack.kernel
def uses_func(x, y):
    for i in range(y.shape[0]):
        y[i] = neighbour(x, i)


def test_violation_inside_a_func_names_the_func_line(backend):
    x, y = tack.zeros(tack.f32, 4), tack.zeros(tack.f32, 4)
    with tack.debug():
        text = raises(IndexError, uses_func, x, y)
    assert text == located(
        "Kernel 'uses_func': out-of-bounds read of 'x': index 4 is outside shape (4,)",
        "func", "x[i + 1]")


@tack.kernel
def reads_before_loop(x, y):
    first = x[5]  # site: prologue
    for i in range(y.shape[0]):
        y[i] = first


def test_violation_before_the_parallel_loop(backend):
    x, y = tack.zeros(tack.f32, 4), tack.zeros(tack.f32, 4)
    with tack.debug():
        text = raises(IndexError, reads_before_loop, x, y)
    assert text == located(
        "Kernel 'reads_before_loop': out-of-bounds read of 'x': index 5 is outside shape (4,)",
        "prologue", "x[5]")


# --- outside the threads: the loop's bounds and `return expr` (issue 26, item 5) -------------


@tack.kernel
def returns_element(x, j: int) -> tack.f32:
    for i in range(x.shape[0]):
        x[i] = 1.0
    return x[j]  # site: result1


@tack.kernel
def returns_grid(a, r: int, c: int, d: int) -> int:
    for i in range(a.shape[0]):
        a[i, 0] = 7
    return a[r, c] + 7 // d  # site: result2


@tack.kernel
def split_loop(x, d: int):
    for i in range(x.shape[0] // d):  # site: bounds
        x[i] = 1.0


@pytest.mark.parametrize("j", [8, -1, 2**20, 2**40])
def test_return_expression_read_is_checked(backend, j):
    x = tack.zeros(tack.f32, 8)
    with tack.debug():
        assert returns_element(x, 3) == 1.0
        text = raises(IndexError, returns_element, x, j)
    assert text == located(
        f"Kernel 'returns_element': out-of-bounds read of 'x': index {j} is outside shape (8,)",
        "result1", "x[j]")


def test_return_expression_is_checked_per_axis_and_for_division(backend):
    a = tack.zeros(tack.i32, (2, 3))
    with tack.debug():
        assert returns_grid(a, 1, 0, 3) == 7 + 7 // 3
        # (0, 3) is inside a's six elements, but outside its second axis.
        text = raises(IndexError, returns_grid, a, 0, 3, 1)
        assert text == located(
            "Kernel 'returns_grid': out-of-bounds read of 'a': index (0, 3) is outside shape "
            "(2, 3) (axis 1 has size 3)", "result2", "a[r, c]")
        text = raises(ZeroDivisionError, returns_grid, a, 1, 0, 0)
        assert text == located(
            "Kernel 'returns_grid': integer division or modulo by zero: 7 // 0 (i32)",
            "result2", "7 // d")
    # Outside debug mode the IR's defined result: 7 // 0 is 0.
    assert returns_grid(a, 1, 0, 0) == 7


def test_loop_bounds_are_checked_even_when_the_loop_is_empty(backend):
    x = tack.zeros(tack.f32, 8)
    with tack.debug():
        split_loop(x, 2)
        np.testing.assert_array_equal(x.to_numpy(), [1, 1, 1, 1, 0, 0, 0, 0])
        text = raises(ZeroDivisionError, split_loop, x, 0)
    assert text == located(
        "Kernel 'split_loop': integer division or modulo by zero: 8 // 0 (i64)", "bounds",
        "x.shape[0] // d")
    split_loop(x, 0)  # outside debug mode: 8 // 0 is 0, no iterations


def test_return_expression_read_off_the_device_is_refused_outside_debug_mode(backend):
    # A GPU-style backend reads a result's elements back one by one: never outside the array,
    # debug mode or not (the CPU's compiled result is as unchecked as its kernels are).
    if backend == "cpu":
        pytest.skip("the CPU's result function reads memory directly, unchecked outside debug")
    x = tack.zeros(tack.f32, 8)
    text = raises(IndexError, returns_element, x, 9)
    assert text == located(
        "Kernel 'returns_element': out-of-bounds read of 'x' in the return expression: flat "
        "index 9 is outside its 8 elements", "result1", "x[j]")


# --- the exception, and the process after it -------------------------------------------------


def test_exception_carries_the_position(backend):
    x, y = tack.zeros(tack.f32, 8), tack.zeros(tack.f32, 8)
    with tack.debug():
        with pytest.raises(IndexError) as info:
            read_shifted(x, y, 1)
    e = info.value
    assert e.filename == HERE
    assert LINES[e.lineno - 1].endswith("# site: read1")
    assert e.colno == LINES[e.lineno - 1].index("x[i + d]") + 1
    assert e.msg == ("Kernel 'read_shifted': out-of-bounds read of 'x': index 8 is outside "
                     "shape (8,)")


def test_after_a_violation_the_next_launches_work(backend):
    x = tack.field_like(np.arange(8, dtype=np.float32))
    y = tack.zeros(tack.f32, 8)
    with tack.debug():
        for _ in range(3):
            with pytest.raises(IndexError):
                read_shifted(x, y, 1)
            # The seven threads in bounds stored; the faulting read gave 0 and was not made.
            np.testing.assert_array_equal(y.to_numpy(), [1, 2, 3, 4, 5, 6, 7, 0])
        read_shifted(x, y, 0)
        np.testing.assert_array_equal(y.to_numpy(), np.arange(8))
    read_shifted(x, y, 0)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(8))


def test_every_thread_violating_reports_one_of_them(backend):
    x, y = tack.zeros(tack.f32, 1000), tack.zeros(tack.f32, 1000)
    with tack.debug():
        text = raises(IndexError, read_shifted, x, y, 1000)
    head = text.split("\n")[0]
    prefix = "Kernel 'read_shifted': out-of-bounds read of 'x': index "
    assert head.startswith(prefix) and head.endswith(" is outside shape (1000,)")
    assert 1000 <= int(head[len(prefix):].split()[0]) < 2000


def test_a_kernel_without_violations_gives_the_plain_result(backend):
    x = tack.field_like(np.arange(16, dtype=np.float32))
    y, z = tack.zeros(tack.f32, 15), tack.zeros(tack.f32, 15)
    read_shifted(x, y, 1)
    with tack.debug():
        read_shifted(x, z, 1)
    np.testing.assert_array_equal(y.to_numpy(), z.to_numpy())


# --- the switches ----------------------------------------------------------------------------

# `7 // 0` is 0 outside debug mode (DECISIONS) and a ZeroDivisionError in it: a probe of the mode.


def probe():
    a = tack.zeros(tack.i32, 1)
    try:
        floordiv(a, tack.field_like(np.array([7], np.int32)), tack.zeros(tack.i32, 1))
    except ZeroDivisionError:
        return "debug"
    assert a.to_numpy()[0] == 0
    return "plain"


def test_debug_context_nests_and_restores(backend):
    assert probe() == "plain"
    with tack.debug():
        assert probe() == "debug"
        with tack.debug(False):
            assert probe() == "plain"
            with tack.debug():
                assert probe() == "debug"
            assert probe() == "plain"
        assert probe() == "debug"
    assert probe() == "plain"


def test_debug_context_restores_after_an_exception(backend):
    with pytest.raises(ZeroDivisionError):
        with tack.debug():
            floordiv(tack.zeros(tack.i32, 1), tack.ones(tack.i32, 1), tack.zeros(tack.i32, 1))
    assert probe() == "plain"


def test_init_debug_option(backend):
    d = tack.init(backend, debug=True)
    assert d.debug is True
    assert probe() == "debug"
    with tack.debug(False):
        assert probe() == "plain"
    assert tack.init(backend).debug is False
    assert probe() == "plain"


def test_bad_switch_values():
    with pytest.raises(ValueError, match="The 'debug' option takes True or False"):
        tack.init(tack.cpu, debug="yes")
    with pytest.raises(TypeError, match=r"tack.debug\(\) takes True or False, got int"):
        with tack.debug(1):
            pass


# A script of its own: importing this module would import conftest, which picks its own cache.
PROBE_SCRIPT = """\
import sys
import numpy as np
import tack

@tack.kernel
def floordiv(a, b, c):
    for i in range(a.shape[0]):
        a[i] = b[i] // c[i]

def probe():
    try:
        floordiv(tack.zeros(tack.i32, 1), tack.ones(tack.i32, 1), tack.zeros(tack.i32, 1))
    except ZeroDivisionError:
        return "debug"
    return "plain"

print(tack.init(tack.cpu).debug, probe())
with tack.debug(False):
    print(probe())
"""


def run_probe(tmp_path, **env):
    script = tmp_path / "probe.py"
    script.write_text(PROBE_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], env=dict(python_env(), **env),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_environment_variable(tmp_path):
    assert run_probe(tmp_path, TACK_DEBUG="1") == "True debug\nplain\n"
    assert run_probe(tmp_path, TACK_DEBUG="0") == "False plain\nplain\n"
    assert run_probe(tmp_path, TACK_DEBUG="") == "False plain\nplain\n"


def test_debug_and_plain_variants_are_kept_apart(backend):
    x, y = tack.zeros(tack.f32, 8), tack.zeros(tack.f32, 7)
    k = read_shifted
    base = k._num_variants()
    for _ in range(2):
        read_shifted(x, y, 1)
        with tack.debug():
            read_shifted(x, y, 1)
    assert k._num_variants() == base + 2
    # The launch length is not part of a debug variant's key either (CONTRACT D4).
    with tack.debug():
        read_shifted(tack.zeros(tack.f32, 9), tack.zeros(tack.f32, 8), 1)
    assert k._num_variants() == base + 2


def test_disk_cache_keeps_debug_and_plain_apart(tmp_path):
    # A plain variant stored first must not serve a debug launch, nor the other way round.
    cache = tmp_path / "cache"  # Tack makes it, private (it refuses a shared directory)
    for debug in ("0", "1", "0", "1"):
        out = run_probe(tmp_path, TACK_DEBUG=debug, TACK_CACHE_DIR=str(cache))
        assert out == ("True debug\nplain\n" if debug == "1" else "False plain\nplain\n")
    assert len([p for p in cache.iterdir() if p.is_file()]) == 2  # one plain, one debug


# --- generated code --------------------------------------------------------------------------


def test_inspect_follows_the_mode(backend):
    x, y = tack.zeros(tack.f32, 8), tack.zeros(tack.f32, 8)
    plain = tack.inspect(read_shifted, x, y, 1, mode="source")
    with tack.debug(False):
        assert tack.inspect(read_shifted, x, y, 1, mode="source") == plain
    with tack.debug():
        checked = tack.inspect(read_shifted, x, y, 1, mode="source")
    assert checked != plain
    assert tack.inspect(read_shifted, x, y, 1, mode="source") == plain
    assert "debug_errors" not in tack.inspect(read_shifted, x, y, 1, mode="ir")
    with tack.debug():
        assert "debug_errors: i32[1]" in tack.inspect(read_shifted, x, y, 1, mode="ir")
