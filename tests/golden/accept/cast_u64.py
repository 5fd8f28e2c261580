# inspect: k --args f64[:],u64[:]
# inspect: k --args i32[:],u64[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.u64(a[i])
