# inspect: k --args f64[:],i8[:]
# inspect: k --args i32[:],i8[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.i8(a[i])
