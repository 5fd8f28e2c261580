# inspect: k --args i64[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = out[i] + 3000000000 + 9223372036854775807
