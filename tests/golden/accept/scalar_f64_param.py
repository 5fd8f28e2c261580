# inspect: k --args f32[:],f32[:],f64
import tack


@tack.kernel
def k(x, out, s):
    for i in range(out.shape[0]):
        out[i] = x[i] * s
