# inspect: k --args i64[:],f32[:],i64[:]
import tack


@tack.kernel
def k(a, out, outi):
    for i in range(out.shape[0]):
        out[i] = sqrt(a[i])
        outi[i] = abs(a[i]) + min(a[i], 3) + max(a[i], -3)
