"""copy, fill_value and copy_with_offset: one kernel each, over the first n
elements in flat order, converting on store with the kernel language's rules. They do not
check n against the fields (as upstream documents).

`tack.algorithms.copy` is the `copy` function (the package re-exports it over this module's
name); `from tack.algorithms.copy import copy_with_offset` still reaches this module.
"""

import numpy as np

import tack

from . import _common


@tack.kernel
def _copy_kernel(src, dst, n):
    for i in range(n):
        dst[i] = src[i]


@tack.kernel
def _copy_offset_kernel(src, dst, dst_offset, n):
    for i in range(n):
        dst[dst_offset + i] = src[i]


@tack.kernel
def _fill_kernel(dst, value, n):
    for i in range(n):
        dst[i] = value


def copy(src, dst, n):
    """dst[i] = src[i] for i < n (floats truncate toward zero into integers, integers wrap)."""
    _copy_kernel(_common.flat(src), _common.flat(dst), n)


def copy_with_offset(src, dst, dst_offset, n):
    """dst[dst_offset + i] = src[i] for i < n."""
    _copy_offset_kernel(_common.flat(src), _common.flat(dst), dst_offset, n)


def fill_value(dst, value, n):
    """dst[i] = value for i < n; `value` is a kernel scalar (a float is f32, or f64 when dst
    is f64), converted on store: 2.5 fills an i32 field with 2, 300 a u8 field with 44."""
    if dst.dtype == tack.f64 and isinstance(value, float):
        value = np.float64(value)
    _fill_kernel(_common.flat(dst), value, n)


__all__ = ["copy", "copy_with_offset", "fill_value"]
