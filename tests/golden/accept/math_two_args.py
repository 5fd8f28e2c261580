# inspect: k --args f32[:],f32[:],f32[:]
# inspect: k --args f64[:],f32[:],f64[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = atan2(a[i], b[i]) + pow(a[i], b[i]) + min(a[i], b[i], 1.0) + max(a[i], b[i])
