# inspect: k --args i32[:],i32[:],f32[:]
# inspect: k --args i32[:],i32[:],f64[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] / b[i]
