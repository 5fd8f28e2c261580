"""Kernels more than one test file runs (a kernel needs a file for its source)."""

import tack


@tack.kernel
def spin(x, steps):
    """`steps` dependent multiply-adds per element: a launch that takes as long as asked."""
    for i in range(x.shape[0]):
        acc = 0.0
        for _j in range(steps):
            acc = acc * 0.999 + 1.0
        x[i] = acc
