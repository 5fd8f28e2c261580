# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        if a[i] < 0.0:
            continue
        out[i] = sqrt(a[i])
