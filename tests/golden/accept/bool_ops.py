# inspect: k --args f32[:],f32[:],i32[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = (a[i] > 0 and b[i] > 0) or not (a[i] == b[i])
