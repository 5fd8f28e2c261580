"""Reductions: field.sum/min/max/mean on the host, and a dot product with an atomic
accumulator inside a kernel."""

import math
import os

import numpy as np

import tack


@tack.kernel
def dot_partial(a, b, partial, chunk):
    for c in range(partial.shape[0]):
        acc = 0.0
        for k in range(c * chunk, min((c + 1) * chunk, a.shape[0])):
            acc += a[k] * b[k]
        partial[c] = acc


@tack.kernel
def count_positive(x, total):
    for i in range(x.shape[0]):
        if x[i] > 0:
            tack.atomic_add(total, 0, 1)


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(2)
    a = rng.normal(size=100_000)
    b = rng.normal(size=100_000)
    fa, fb = tack.field_like(a), tack.field_like(b)
    assert math.isclose(fa.sum(), a.sum(), rel_tol=1e-12, abs_tol=1e-9)
    assert fa.min() == a.min() and fa.max() == a.max()
    assert math.isclose(fa.mean(), a.mean(), rel_tol=1e-12, abs_tol=1e-12)

    chunk = 1000
    partial = tack.field(tack.f64, a.size // chunk)
    dot_partial(fa, fb, partial, chunk)
    assert math.isclose(partial.sum(), float(a @ b), rel_tol=1e-9, abs_tol=1e-9)

    total = tack.field(tack.i64, 1)
    count_positive(fa, total)
    assert total[0] == int((a > 0).sum())
    print(f"sum {fa.sum():.6f}, dot {partial.sum():.6f}, positives {total[0]}")


if __name__ == "__main__":
    main()
