"""tack.ndrange: multi-dimensional parallel loops, with sizes or (start, end) pairs."""

import os

import numpy as np

import tack


@tack.kernel
def outer_product(a, b, out):
    for i, j in tack.ndrange(a.shape[0], b.shape[0]):
        out[i, j] = a[i] * b[j]


@tack.kernel
def interior(grid):
    for i, j, k in tack.ndrange((1, grid.shape[0] - 1), (1, grid.shape[1] - 1), grid.shape[2]):
        grid[i, j, k] = i * 100 + j * 10 + k


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    a = np.arange(1, 6, dtype=np.float32)
    b = np.arange(1, 4, dtype=np.float32)
    out = tack.field(tack.f32, (5, 3))
    outer_product(tack.field_like(a), tack.field_like(b), out)
    assert np.array_equal(out.to_numpy(), np.outer(a, b))

    grid = tack.field(tack.i32, (4, 5, 2))
    interior(grid)
    i, j, k = np.meshgrid(np.arange(4), np.arange(5), np.arange(2), indexing="ij")
    want = np.where((i > 0) & (i < 3) & (j > 0) & (j < 4), i * 100 + j * 10 + k, 0)
    assert np.array_equal(grid.to_numpy(), want)
    print("ndrange ok:", out.to_numpy()[4].tolist())


if __name__ == "__main__":
    main()
