# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(a, b):
    for i in range(a.shape[0]):
        a[i], b[i] = b[i], a[i]
