# inspect: k --args i8[:],i8[:],i8[:]
# inspect: k --args u32[:],u32[:],u32[:]
# inspect: k --args i64[:],i64[:],i64[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] & b[i]
