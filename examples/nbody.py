"""N-body: all-pairs gravitational accelerations with a sequential inner loop, then one
leapfrog step, checked against NumPy."""

import os

import numpy as np

import tack

SOFTENING = tack.constant(1e-3)


@tack.kernel
def accelerations(pos, mass, acc):
    for i in range(pos.shape[0]):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            r2 = dx * dx + dy * dy + dz * dz + SOFTENING
            inv = mass[j] / (r2 * sqrt(r2))  # noqa: F821
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@tack.kernel
def leapfrog(pos, vel, acc, dt):
    for i, d in tack.ndrange(pos.shape[0], 3):
        vel[i, d] += acc[i, d] * dt
        pos[i, d] += vel[i, d] * dt


def reference(pos, mass):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(-1) + 1e-3
    return (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(1)


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(4)
    n = 512
    pos = rng.normal(size=(n, 3))
    vel = rng.normal(size=(n, 3)) * 0.1
    mass = rng.random(n) + 0.5
    fpos, fvel, facc = tack.field_like(pos), tack.field_like(vel), tack.field(tack.f64, (n, 3))
    accelerations(fpos, tack.field_like(mass), facc)
    want = reference(pos, mass)
    assert np.allclose(facc.to_numpy(), want, rtol=1e-9, atol=1e-9)
    leapfrog(fpos, fvel, facc, 0.01)
    v = vel + want * 0.01
    assert np.allclose(fvel.to_numpy(), v) and np.allclose(fpos.to_numpy(), pos + v * 0.01)
    print(f"n-body: {n} bodies, max |a| = {np.abs(want).max():.3f}")


if __name__ == "__main__":
    main()
