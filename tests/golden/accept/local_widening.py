# inspect: k --args f64[:],f64[:]
# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(x, out):
    for i in range(out.shape[0]):
        total = 0.0
        for j in range(x.shape[0]):
            total += x[j]
        out[i] = total
