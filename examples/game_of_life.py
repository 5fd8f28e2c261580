"""Conway's Game of Life on a torus: integer stencil with wrap-around indices."""

import os

import numpy as np

import tack


@tack.kernel
def life_step(src, dst):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        h = src.shape[0]
        w = src.shape[1]
        alive = 0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                if di != 0 or dj != 0:
                    alive += src[(i + di + h) % h, (j + dj + w) % w]
        cell = src[i, j]
        dst[i, j] = 1 if alive == 3 or (cell == 1 and alive == 2) else 0


def reference_step(g):
    n = sum(np.roll(np.roll(g, di, 0), dj, 1) for di in (-1, 0, 1) for dj in (-1, 0, 1)
            if (di, dj) != (0, 0))
    return ((n == 3) | ((g == 1) & (n == 2))).astype(g.dtype)


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(1)
    board = (rng.random((48, 64)) < 0.3).astype(np.uint8)
    a, b = tack.field_like(board), tack.field_like(board)
    ref = board
    for _ in range(50):
        life_step(a, b)
        a, b = b, a
        ref = reference_step(ref)
    assert np.array_equal(a.to_numpy(), ref)
    print(f"game of life: {int(a.sum())} cells alive after 50 generations")


if __name__ == "__main__":
    main()
