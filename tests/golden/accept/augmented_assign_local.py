# inspect: k --args i32[:],i32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        s = a[i]
        s += 1
        s -= 2
        s *= 3
        s //= 4
        s %= 5
        s **= 2
        s <<= 1
        s >>= 1
        s &= 255
        s |= 1
        s ^= 3
        out[i] = s
