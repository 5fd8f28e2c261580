"""@tack.func: device functions inlined into kernels, returning tuples, calling each other."""

import os

import numpy as np

import tack

GRAVITY = tack.constant(9.81)


@tack.func
def to_polar(x, y):
    r = sqrt(x * x + y * y)  # noqa: F821
    return r, atan2(y, x)  # noqa: F821


@tack.func
def clamp_height(h, limit):
    if h > limit:
        return limit
    return h


@tack.func
def projectile(v, angle, t):
    h = v * sin(angle) * t - 0.5 * GRAVITY * t * t  # noqa: F821
    return clamp_height(h, 100.0)


@tack.kernel
def polar(xs, ys, r, theta, height):
    for i in range(xs.shape[0]):
        r[i], theta[i] = to_polar(xs[i], ys[i])
        height[i] = projectile(r[i], theta[i], 1.5)


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(2, 500)) * 50
    fields = [tack.field(tack.f64, 500) for _ in range(3)]
    polar(tack.field_like(x), tack.field_like(y), *fields)
    r, theta, height = (f.to_numpy() for f in fields)
    assert np.allclose(r, np.hypot(x, y)) and np.allclose(theta, np.arctan2(y, x))
    want = np.minimum(r * np.sin(theta) * 1.5 - 0.5 * 9.81 * 1.5 * 1.5, 100.0)
    assert np.allclose(height, want)
    print(f"device functions ok: max height {height.max():.2f}")


if __name__ == "__main__":
    main()
