# inspect: k --args i16[:],i16[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = -a[i] + (+a[i]) + ~a[i] + (not a[i])
