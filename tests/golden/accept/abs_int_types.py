# inspect: k --args i8[:],i8[:]
# inspect: k --args u16[:],u16[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = abs(a[i])
