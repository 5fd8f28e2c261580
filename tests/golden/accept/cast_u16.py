# inspect: k --args f64[:],u16[:]
# inspect: k --args i32[:],u16[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.u16(a[i])
