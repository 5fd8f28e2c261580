# inspect: k --args f32[:],f32[:],i32[:]
# inspect: k --args i32[:],u32[:],i32[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] < b[i]
