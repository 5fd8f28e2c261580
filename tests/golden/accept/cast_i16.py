# inspect: k --args f64[:],i16[:]
# inspect: k --args i32[:],i16[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.i16(a[i])
