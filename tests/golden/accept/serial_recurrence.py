# inspect: prefix --args f32[:],f32[:]
import tack


@tack.kernel
def prefix(a, out):
    for _ in range(1):
        acc = 0.0
        for j in range(a.shape[0]):
            acc += a[j]
            out[j] = acc
