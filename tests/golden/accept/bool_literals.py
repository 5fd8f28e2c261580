# inspect: k --args i32[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = True + False
