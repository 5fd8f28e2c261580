# inspect: k --args f32[:],f32[:]
import tack


@tack.func
def clamp_top(a, limit):
    if a > limit:
        return limit
    return a


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = clamp_top(a[i], 1.0)
