# inspect: k --args u64[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = out[i] & 18446744073709551615
