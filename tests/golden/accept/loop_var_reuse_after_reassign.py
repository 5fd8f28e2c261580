# inspect: k --args i64[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        s = 0
        for j in range(3):
            s += j
        for j in range(2):
            s += j
        j = 7
        out[i] = s + j
