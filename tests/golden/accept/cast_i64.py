# inspect: k --args f64[:],i64[:]
# inspect: k --args i32[:],i64[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.i64(a[i])
