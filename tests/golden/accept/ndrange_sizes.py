# inspect: k --args i32[:,:]
import tack


@tack.kernel
def k(a):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        a[i, j] = i * 10 + j
