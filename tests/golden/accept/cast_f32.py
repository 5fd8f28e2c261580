# inspect: k --args f64[:],f32[:]
# inspect: k --args i32[:],f32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tack.f32(a[i])
