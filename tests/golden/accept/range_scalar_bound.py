# inspect: k --args i64[:],i32
import tack


@tack.kernel
def k(out, n):
    for i in range(n):
        out[i] = i
