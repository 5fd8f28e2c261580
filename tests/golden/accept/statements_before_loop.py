# inspect: k --args f32[:],f32[:],f32
import tack


@tack.kernel
def k(a, out, scale):
    n = a.shape[0]
    s2 = scale * scale
    first = a[0]
    for i in range(n):
        out[i] = a[i] * s2 + first
