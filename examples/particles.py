"""Particles with vector fields: a swarm in a swirling flow with gravity, bouncing off the
floor of a unit box, advanced with 3-vectors (tack.Vector.field, methods, masks and
tack.select), checked against the same steps in NumPy and drawn to a PNG.

    python examples/particles.py [--n 4096] [--steps 200] [--out particles.png]
"""

import argparse
import os

import numpy as np

import tack

GRAVITY = tack.constant((0.0, -0.5, 0.0))
AXIS = tack.constant((0.0, 1.0, 0.0))
CENTER = tack.constant((0.5, 0.5, 0.5))


@tack.func
def swirl(p):
    """A flow circling the box's vertical axis, stronger near it."""
    r = p - CENTER
    return AXIS.cross(r) * (1.0 / (0.2 + r.norm_sqr()))


@tack.kernel
def step(pos, vel, n, dt, damping):
    for i in range(n):
        p = pos[i]
        v = vel[i] + (GRAVITY + (swirl(p) - vel[i]) * damping) * dt
        p = p + v * dt
        below = p < 0.0  # a mask, per component
        above = p > 1.0
        # Reflect off the walls: mirror the position, flip and damp that velocity component.
        p = tack.select(below, -p, tack.select(above, 2.0 - p, p))
        v = tack.select(below or above, v * -0.8, v)
        pos[i] = p
        vel[i] = v


def reference(pos, vel, dt, damping):
    r = pos - np.float32(0.5)
    axis = np.float32([0, 1, 0])
    flow = np.cross(axis, r) * (np.float32(1.0) / (np.float32(0.2) + (r * r).sum(1)))[:, None]
    v = vel + (np.float32([0, -0.5, 0]) + (flow - vel) * np.float32(damping)) * np.float32(dt)
    p = pos + v * np.float32(dt)
    below, above = p < 0, p > 1
    p = np.where(below, -p, np.where(above, np.float32(2) - p, p))
    v = np.where(below | above, v * np.float32(-0.8), v)
    return p.astype(np.float32), v.astype(np.float32)


def draw(pos, path, size=256):
    from PIL import Image

    img = np.zeros((size, size, 3), np.uint8)
    x = np.clip((pos[:, 0] * (size - 1)).astype(int), 0, size - 1)
    y = np.clip(((1 - pos[:, 1]) * (size - 1)).astype(int), 0, size - 1)
    depth = np.clip(pos[:, 2], 0, 1)
    img[y, x] = np.stack([255 * depth, 128 + 127 * (1 - depth), 255 - 128 * depth], 1).astype(
        np.uint8
    )
    Image.fromarray(img).save(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--out", default="particles.png")
    args = ap.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(5)
    p0 = rng.random((args.n, 3), dtype=np.float32)
    v0 = (rng.standard_normal((args.n, 3)) * 0.1).astype(np.float32)
    pos = tack.Vector.field(3, tack.f32, shape=(args.n,))
    vel = tack.Vector.field(3, tack.f32, shape=(args.n,))
    pos.from_numpy(p0)
    vel.from_numpy(v0)
    dt, damping = 0.01, 0.5
    p, v = p0, v0
    for _ in range(args.steps):
        step(pos, vel, args.n, dt, damping)
        p, v = reference(p, v, dt, damping)
    got = pos.to_numpy(vectors=True)
    # The same f32 operations in the same order as NumPy's: the trajectories agree (a backend
    # whose division or sqrt is not correctly rounded may drift by a few ulps).
    err = np.abs(got - p).max()
    assert err < 1e-3, err
    assert got.shape == (args.n, 3) and pos.to_numpy().shape == (3 * args.n,)
    draw(got, args.out)
    inside = np.mean((got >= 0) & (got <= 1))
    print(
        f"particles: {args.n} bodies, {args.steps} steps, max |tack - numpy| = {err:.2e}, "
        f"{inside:.0%} of coordinates in the box, image {args.out}"
    )


if __name__ == "__main__":
    main()
