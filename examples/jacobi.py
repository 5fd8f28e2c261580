"""Jacobi iteration for the 2-D Laplace equation: a stencil over the interior, ping-ponging
two fields, checked against NumPy."""

import os

import numpy as np

import tack


@tack.kernel
def jacobi_step(src, dst):
    for i, j in tack.ndrange((1, src.shape[0] - 1), (1, src.shape[1] - 1)):
        dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    n = 64
    grid = np.zeros((n, n), np.float32)
    grid[0, :] = 1.0  # hot top edge
    a, b = tack.field_like(grid), tack.field_like(grid)
    ref = grid.copy()
    for _ in range(200):
        jacobi_step(a, b)
        a, b = b, a
        nxt = ref.copy()
        nxt[1:-1, 1:-1] = np.float32(0.25) * (ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2]
                                              + ref[1:-1, 2:])
        ref = nxt
    assert np.allclose(a.to_numpy(), ref, atol=1e-6)
    print(f"jacobi: centre value after 200 sweeps {a[n // 2, n // 2]:.5f}")


if __name__ == "__main__":
    main()
