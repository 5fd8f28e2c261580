# inspect: k --args f64[:],i32[:],f32[:]
import tack


@tack.kernel
def k(a, out, outf):
    for i in range(out.shape[0]):
        out[i] = int(a[i])
        outf[i] = float(a[i]) + int(2.5)
