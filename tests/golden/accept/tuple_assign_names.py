# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        x, y = a[i], a[i] * 2.0
        x, y = y, x
        out[i] = x - y
