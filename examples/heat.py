"""2-D heat equation (explicit finite differences), checked against NumPy; optionally writes a
PNG of the final temperature.

    python examples/heat.py [--steps 500] [--out heat.png]
"""

import argparse
import os
import time

import numpy as np

import tack

ALPHA = tack.constant(0.2)


@tack.kernel
def heat_step(u, v):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + ALPHA * lap


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    n = 96
    u0 = np.zeros((n, n))
    u0[n // 3 : 2 * n // 3, n // 3 : 2 * n // 3] = 100.0
    u, v = tack.field_like(u0), tack.field_like(u0)
    t = time.perf_counter()
    for _ in range(args.steps):
        heat_step(u, v)
        u, v = v, u
    elapsed = time.perf_counter() - t

    ref = u0.copy()
    for _ in range(args.steps):
        nxt = ref.copy()
        nxt[1:-1, 1:-1] = ref[1:-1, 1:-1] + 0.2 * (
            ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2] + ref[1:-1, 2:] - 4 * ref[1:-1, 1:-1])
        ref = nxt
    assert np.allclose(u.to_numpy(), ref, rtol=1e-12, atol=1e-10)
    if args.out:
        from PIL import Image

        img = (np.clip(u.to_numpy() / 100.0, 0, 1) * 255).astype(np.uint8)
        Image.fromarray(img).save(args.out)
    print(f"heat: {args.steps} steps in {elapsed * 1000:.1f} ms, peak {u.max():.3f}")


if __name__ == "__main__":
    main()
