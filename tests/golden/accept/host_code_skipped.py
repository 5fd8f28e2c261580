# inspect: k --args f32[:]
import tack


import numpy as np


class Helper:
    def __init__(self):
        self.values = [x * 2 for x in range(10)]


def host_only(n):
    return {i: f"{i:>3}" for i in range(n)}


@tack.kernel
def k(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1.0


if __name__ == "__main__":
    data = np.zeros(10, dtype=np.float32)
    print(host_only(3))
