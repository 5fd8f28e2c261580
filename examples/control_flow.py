"""if/elif/else, while, break, continue and conditional expressions inside kernels."""

import os

import numpy as np

import tack


@tack.kernel
def collatz_steps(start, steps, limit):
    for i in range(start.shape[0]):
        n = start[i]
        count = 0
        while n != 1:
            if count >= limit:
                break
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        steps[i] = count


@tack.kernel
def classify(x, label):
    for i in range(x.shape[0]):
        if x[i] < 0:
            label[i] = -1
            continue
        elif x[i] == 0:
            label[i] = 0
        else:
            label[i] = 1
        for k in range(3):
            if k == 2:
                break
            label[i] += 10


def collatz_reference(n, limit):
    count = 0
    while n != 1 and count < limit:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        count += 1
    return count


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    start = np.arange(1, 2001, dtype=np.int64)
    steps = tack.field(tack.i32, start.size)
    collatz_steps(tack.field_like(start), steps, 500)
    assert steps.to_numpy().tolist() == [collatz_reference(int(n), 500) for n in start]

    x = np.array([-2.0, 0.0, 3.0, -0.5, 7.0], np.float32)
    label = tack.field(tack.i32, x.size)
    classify(tack.field_like(x), label)
    assert label.to_numpy().tolist() == [-1, 20, 21, -1, 21]
    print("longest Collatz chain below 2001:", int(steps.max()), "steps")


if __name__ == "__main__":
    main()
