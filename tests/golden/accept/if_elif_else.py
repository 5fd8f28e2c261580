# inspect: k --args f32[:],i32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        if a[i] < 0.0:
            out[i] = -1
        elif a[i] == 0.0:
            out[i] = 0
        else:
            out[i] = 1
