"""Math builtins inside kernels: available unqualified, as math.X, and with f64 precision."""

import math
import os

import numpy as np

import tack


@tack.kernel
def transcendental(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i, 0] = sqrt(v)  # noqa: F821 - a kernel builtin, no import needed
        out[i, 1] = math.sin(v) + cos(v)  # noqa: F821
        out[i, 2] = exp(-v) * log(v + 1.0)  # noqa: F821
        out[i, 3] = atan2(v, 2.0) + pow(v, 1.5)  # noqa: F821
        out[i, 4] = floor(v * 3.0) - ceil(v) + abs(-v)  # noqa: F821
        out[i, 5] = min(v, 0.5) + max(v, 0.25) + math.pi


def expected(x):
    return np.stack([
        np.sqrt(x),
        np.sin(x) + np.cos(x),
        np.exp(-x) * np.log(x + 1),
        np.arctan2(x, 2) + x ** 1.5,
        np.floor(x * 3) - np.ceil(x) + np.abs(-x),
        np.minimum(x, 0.5) + np.maximum(x, 0.25) + math.pi,
    ], axis=1)


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    x = np.linspace(0.01, 4.0, 1000)
    for np_dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        xs = x.astype(np_dtype)
        out = tack.field_like(np.zeros((x.size, 6), np_dtype))
        transcendental(tack.field_like(xs), out)
        want = expected(xs.astype(np.float64))
        err = np.max(np.abs(out.to_numpy() - want) / (1 + np.abs(want)))
        assert err < tol, (np_dtype, err)
        print(f"{np.dtype(np_dtype).name}: max relative error {err:.2e}")


if __name__ == "__main__":
    main()
