# inspect: k --args f64[:],u8[:]
# inspect: k --args i32[:],u8[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.u8(a[i])
