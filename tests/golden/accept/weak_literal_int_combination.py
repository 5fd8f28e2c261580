# inspect: k --args f64[:],f64[:]
import tack


@tack.kernel
def k(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i] * (i * 0.1)
