"""Scalar arguments take their type from the value: ints are i32 when they fit,
then i64; floats are f32 unless an f64 field is passed to the same call."""

import os

import numpy as np

import tack


@tack.kernel
def affine(x, out, a, b):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + b


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    x32 = np.linspace(-1, 1, 16, dtype=np.float32)
    out32 = tack.field(tack.f32, 16)
    affine(tack.field_like(x32), out32, 0.1, 3)
    assert np.array_equal(out32.to_numpy(), np.float32(0.1) * x32 + np.float32(3))

    x64 = x32.astype(np.float64)
    out64 = tack.field(tack.f64, 16)
    affine(tack.field_like(x64), out64, 0.1, np.int64(3))  # 0.1 is f64 here
    assert np.array_equal(out64.to_numpy(), 0.1 * x64 + 3)

    xi = np.arange(16, dtype=np.int64)
    outi = tack.field(tack.i64, 16)
    affine(tack.field_like(xi), outi, 2**40, True)  # i64 scalar, bool as 1
    assert np.array_equal(outi.to_numpy(), 2**40 * xi + 1)
    print("scalar typing ok:", out32[1], out64[1], outi[1])


if __name__ == "__main__":
    main()
