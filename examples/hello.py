"""Hello, Tack: one kernel, one field, checked against NumPy."""

import os

import numpy as np

import tack


@tack.kernel
def squares(out):
    for i in range(out.shape[0]):
        out[i] = i * i


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    out = tack.field(tack.i32, 10)
    squares(out)
    result = out.to_numpy()
    assert np.array_equal(result, np.arange(10) ** 2)
    print("Hello from Tack:", result.tolist())


if __name__ == "__main__":
    main()
