# inspect: k --args i32[:],i32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        tmp = tack.local_array_like(a, 2)
        tmp[0] = a[i]
        tmp[1] = a[i] + 1
        out[i] = tmp[1] - tmp[0]
