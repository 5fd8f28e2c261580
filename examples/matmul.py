"""Dense matrix multiply: one output element per iteration of a 2-D parallel loop."""

import os
import time

import numpy as np

import tack


@tack.kernel
def matmul(a, b, c):
    for i, j in tack.ndrange(a.shape[0], b.shape[1]):
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(9)
    for np_dtype, tol in ((np.float32, 1e-4), (np.float64, 1e-12)):
        a = rng.random((128, 96)).astype(np_dtype)
        b = rng.random((96, 80)).astype(np_dtype)
        c = tack.field_like(np.zeros((128, 80), np_dtype))
        t = time.perf_counter()
        matmul(tack.field_like(a), tack.field_like(b), c)
        elapsed = time.perf_counter() - t
        assert np.allclose(c.to_numpy(), a @ b, rtol=tol, atol=tol)
        print(f"matmul {np.dtype(np_dtype).name}: {elapsed * 1000:.1f} ms incl. compile")


if __name__ == "__main__":
    main()
