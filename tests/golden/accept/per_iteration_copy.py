# inspect: k --args i32[:],i32
import tack


@tack.kernel
def k(out, value):
    base = 10
    for i in range(out.shape[0]):
        value = value + 1
        base += i
        out[i] = value + base
