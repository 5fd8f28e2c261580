# inspect: k --args f64[:],u32[:]
# inspect: k --args i32[:],u32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.u32(a[i])
