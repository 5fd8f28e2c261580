"""1-D wave equation with fixed ends (leapfrog in time), checked against NumPy."""

import os

import numpy as np

import tack


@tack.kernel
def wave_step(prev, cur, nxt, c2):
    for i in range(1, cur.shape[0] - 1):
        nxt[i] = 2.0 * cur[i] - prev[i] + c2 * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1])


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    n, steps, c2 = 400, 300, 0.25
    x = np.linspace(0, 1, n)
    u0 = np.exp(-((x - 0.3) ** 2) / 0.002)
    prev, cur, nxt = tack.field_like(u0), tack.field_like(u0), tack.field(tack.f64, n)
    rp, rc = u0.copy(), u0.copy()
    for _ in range(steps):
        wave_step(prev, cur, nxt, c2)
        prev, cur, nxt = cur, nxt, prev
        rn = np.zeros(n)
        rn[1:-1] = 2 * rc[1:-1] - rp[1:-1] + c2 * (rc[:-2] - 2 * rc[1:-1] + rc[2:])
        rp, rc = rc, rn
    assert np.allclose(cur.to_numpy(), rc, rtol=1e-12, atol=1e-12)
    print(f"wave: energy peak moved to x = {x[int(np.argmax(rc))]:.3f}")


if __name__ == "__main__":
    main()
