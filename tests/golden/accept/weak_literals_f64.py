# inspect: k --args f64[:],f64[:]
# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i] * 0.1 + x[i] * -0.1 + x[i] * (0.1 + 0.2) + x[i] * (1.0 / 3.0)
