"""Kernel errors: types (CONTRACT C27-C28), translation, and positions in the user's file."""

import os
import subprocess
import sys
import textwrap

import pytest

import tack

from conftest import python_env

HERE = os.path.abspath(__file__)
NOT_A_CONSTANT = 3.0


def line_of(text):
    with open(HERE) as f:
        for number, line in enumerate(f, 1):
            if text in line and "line_of(" not in line:
                return number
    raise AssertionError(text)


def test_unsupported_syntax_error_type():
    assert issubclass(tack.UnsupportedSyntaxError, NotImplementedError)
    assert issubclass(tack.UnsupportedSyntaxError, RuntimeError)


@tack.kernel
def has_assert(x):
    for i in range(x.shape[0]):
        assert x[i] > 0  # the rejected statement


def test_unsupported_construct_shows_file_line_column_and_caret():
    with pytest.raises(tack.UnsupportedSyntaxError) as info:
        has_assert(tack.field(tack.f32, 4))
    text = str(info.value)
    line = line_of("assert x[i] > 0  # the rejected")
    assert "Kernel 'has_assert'" in text and "Assert" in text
    assert f'File "{HERE}", line {line}, column 9' in text
    assert "        assert x[i] > 0" in text and "^" in text
    assert info.value.lineno == line and info.value.filename == HERE


@tack.kernel
def captures_a_global(x):
    for i in range(x.shape[0]):
        x[i] = NOT_A_CONSTANT


def test_captured_python_value_is_a_name_error():
    with pytest.raises(NameError) as info:
        captures_a_global(tack.field(tack.f32, 2))
    assert "NOT_A_CONSTANT" in str(info.value) and "captures_a_global" in str(info.value)
    assert f"line {line_of('x[i] = NOT_A_CONSTANT')}" in str(info.value)


@tack.kernel
def no_parallel_loop(x):
    x[0] = 1


def test_missing_parallel_loop():
    with pytest.raises(tack.UnsupportedSyntaxError, match="has no parallel loop"):
        no_parallel_loop(tack.field(tack.f32, 1))


def make_nested():
    @tack.kernel
    def nested(x):
        for i in range(x.shape[0]):
            x[i] = undefined_name  # noqa: F821

    return nested


def test_nested_kernel_positions_use_the_file_columns():
    with pytest.raises(NameError) as info:
        make_nested()(tack.field(tack.f32, 1))
    assert f"line {line_of('x[i] = undefined_name')}, column 20" in str(info.value)


@tack.kernel
def type_mismatch(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + tack.u64(1)


def test_type_errors_are_prefixed_once():
    with pytest.raises(TypeError) as info:
        type_mismatch(tack.field(tack.i64, 2))
    text = str(info.value)
    assert text.startswith("Kernel 'type_mismatch'") and text.count("Kernel 'type_mismatch'") == 1


@tack.func
def helper(a):
    return a + NOT_A_CONSTANT


@tack.kernel
def calls_helper(x):
    for i in range(x.shape[0]):
        x[i] = helper(x[i])


def test_errors_in_device_functions_point_into_the_function():
    with pytest.raises(NameError) as info:
        calls_helper(tack.field(tack.f32, 1))
    assert f"line {line_of('return a + NOT_A_CONSTANT')}" in str(info.value)


def test_func_called_from_python():
    with pytest.raises(RuntimeError, match="@tack.func 'helper' cannot be called from Python"):
        helper(1.0)


def test_device_intrinsics_called_from_python():
    with pytest.raises(RuntimeError):
        tack.atomic_add(None, 0, 1)
    with pytest.raises(RuntimeError):
        tack.ndrange(4)


def test_lambda_is_not_a_func():
    with pytest.raises(TypeError):
        tack.func(lambda x: x)


def test_unreadable_source(tmp_path):
    code = textwrap.dedent("""
        import tack
        ns = {"tack": tack}
        exec("@tack.kernel\\ndef k(x):\\n    for i in range(1):\\n        x[i] = 1\\n", ns)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=python_env())
    assert r.returncode != 0 and "RuntimeError" in r.stderr and "OSError" in r.stderr


@tack.kernel
def recursion_free(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i]


def test_dtype_mismatch_between_backends_is_not_triggered_on_same_kind():
    a = tack.field(tack.f32, 2)
    tack.init(tack.cpu)  # same-kind re-init is not diagnosed (C5)
    recursion_free(a, tack.field(tack.f32, 2))


@tack.kernel
def three_indices(x):
    for i in range(x.shape[0]):
        x[i, 0, 0] = 1.0


def test_index_count_that_fits_no_rank_is_a_type_error():
    with pytest.raises(TypeError, match="three_indices"):
        three_indices(tack.field(tack.f32, (2, 2)))
    three_indices(tack.field(tack.f32, (2, 1, 1)))


@tack.kernel
def array_after_its_loop(x):
    for i in range(x.shape[0]):
        for k in range(4):
            t = tack.local_array(tack.f32, 4)
            t[k] = x[i]
        x[i] = t[0]  # t's storage ended with the k loop


@tack.kernel
def array_after_its_branch(x):
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            u = tack.local_array(tack.f32, 2)
            u[0] = 1.0
        x[i] = u[0]  # u's storage ended with the if body


@tack.kernel
def arrays_in_their_blocks(x):
    for i in range(x.shape[0]):
        t = tack.local_array(tack.f32, 4)
        for k in range(4):
            t[k] = x[i] * k
        if x[i] > 1.0:
            u = tack.local_array(tack.f32, 2)
            u[0] = t[1]
            x[i] = u[0]
        x[i] = x[i] + t[3]


# Found by fuzz_frontend: an array allocated in a loop or if body and used after it failed IR
# verification (an internal error) instead of a located user error.
@pytest.mark.parametrize("kernel, use", [(array_after_its_loop, "x[i] = t[0]  # t's"),
                                         (array_after_its_branch, "x[i] = u[0]  # u's")])
def test_local_array_used_after_its_block_is_located(kernel, use):
    with pytest.raises(tack.UnsupportedSyntaxError, match="used after the loop or if body") as e:
        kernel(tack.ones(tack.f32, 8))
    assert e.value.lineno == line_of(use) and e.value.filename == HERE


def test_local_arrays_used_inside_their_blocks_run():
    import numpy as np
    x = np.linspace(0.0, 3.0, 16, dtype=np.float32)
    f = tack.field_like(x)
    arrays_in_their_blocks(f)
    want = np.where(x > 1.0, x * np.float32(1.0), x) + x * np.float32(3.0)
    np.testing.assert_allclose(f.to_numpy(), want, rtol=1e-6)


@tack.kernel
def group_sums(x, out):
    for i in range(x.shape[0]):
        s = tack.shared(tack.f32, 256)
        s[tack.thread_id()] = x[i]
        tack.barrier()
        out[i] = s[0]


def test_workgroup_refusal_on_the_cpu_says_what_to_do_instead():
    # Issue 24: the CPU's refusal named the internal class ("failed on CPUBackend") and offered
    # local_array alone, which cannot replace memory shared across iterations.
    x = tack.ones(tack.f32, 256)  # every test starts on a fresh CPU backend (conftest)
    with pytest.raises(RuntimeError) as info:
        group_sums(x, tack.zeros(tack.f32, 256))
    text = str(info.value)
    assert text.startswith("Kernel 'group_sums': CPU backend does not support workgroup "
                           "execution required by ")
    assert "CPUBackend" not in text
    for advice in ("`local_array`", "tack.atomic_add", "tack.algorithms", "opencl"):
        assert advice in text
    assert isinstance(info.value.__cause__, NotImplementedError)
