# inspect: k --args u8[:],i64[:],u8[:]
# inspect: k --args i64[:],u8[:],i64[:]
import tack


@tack.kernel
def k(a, s, out):
    for i in range(out.shape[0]):
        out[i] = (a[i] << s[i]) | (a[i] >> 3)
