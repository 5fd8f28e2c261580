# inspect: k --args i32[:],i32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.select(a[i] > 0, a[i], 0)
