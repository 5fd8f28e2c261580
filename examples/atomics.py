"""Atomics: a histogram where many iterations update the same bins."""

import os

import numpy as np

import tack


@tack.kernel
def histogram(data, counts, lo, inv_width):
    for i in range(data.shape[0]):
        b = int((data[i] - lo) * inv_width)
        b = min(max(b, 0), counts.shape[0] - 1)
        tack.atomic_add(counts, b, 1)


@tack.kernel
def extrema(data, lo_hi):
    for i in range(data.shape[0]):
        tack.atomic_min(lo_hi, 0, data[i])
        tack.atomic_max(lo_hi, 1, data[i])


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    rng = np.random.default_rng(11)
    data = rng.normal(size=1_000_000).astype(np.float32)
    counts = tack.field(tack.i32, 16)
    histogram(tack.field_like(data), counts, -4.0, 2.0)
    bins = np.clip(((data - np.float32(-4.0)) * np.float32(2.0)).astype(np.int32), 0, 15)
    assert np.array_equal(counts.to_numpy(), np.bincount(bins, minlength=16))

    lo_hi = tack.field_like(np.array([np.inf, -np.inf], np.float32))
    extrema(tack.field_like(data), lo_hi)
    assert lo_hi.to_numpy().tolist() == [data.min(), data.max()]
    print("histogram:", counts.to_numpy().tolist())


if __name__ == "__main__":
    main()
