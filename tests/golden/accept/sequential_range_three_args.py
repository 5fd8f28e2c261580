# inspect: k --args f32[:],f32[:],i32,i32,i32
import tack


@tack.kernel
def k(a, out, lo, hi, st):
    for i in range(out.shape[0]):
        s = 0.0
        for j in range(lo, hi, st):
            s += a[j]
        out[i] = s
