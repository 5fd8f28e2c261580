# inspect: k --args f32[:,:]
import tack


@tack.kernel
def k(a):
    for i, j in tack.ndrange((1, a.shape[0] - 1), (2, a.shape[1])):
        a[i, j] = a[i - 1, j] + 1.0
