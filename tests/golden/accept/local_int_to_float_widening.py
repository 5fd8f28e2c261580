# inspect: k --args f32[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        v = 1
        if i > 2:
            v = 0.5
        out[i] = v
