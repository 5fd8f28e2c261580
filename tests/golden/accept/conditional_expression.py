# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i] if a[i] > 0.0 else -a[i]
