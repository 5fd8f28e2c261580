# inspect: k --args f64[:],i32[:]
# inspect: k --args i32[:],i32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.i32(a[i])
