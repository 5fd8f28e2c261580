# inspect: k --args f32[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = 1.5 + 1e-3 + .5 + 2. + 1_0.0_1
