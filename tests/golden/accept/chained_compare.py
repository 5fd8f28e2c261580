# inspect: k --args f32[:],f32,f32,i32[:]
import tack


@tack.kernel
def k(a, lo, hi, out):
    for i in range(out.shape[0]):
        out[i] = lo <= a[i] < hi
