# inspect: k --args f64[:],f64[:]
# inspect: k --args i32[:],f64[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.f64(a[i])
