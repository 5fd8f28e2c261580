# inspect: k --args f32[:],i64[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        first = -1
        for j in range(a.shape[0]):
            if a[j] < 0.0:
                continue
            if a[j] > 10.0:
                first = j
                break
        out[i] = first
