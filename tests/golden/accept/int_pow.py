# inspect: k --args i8[:],u64[:],i8[:]
# inspect: k --args u32[:],i32[:],u32[:]
import tack


@tack.kernel
def k(a, e, out):
    for i in range(out.shape[0]):
        out[i] = a[i] ** e[i] + pow(a[i], 3)
