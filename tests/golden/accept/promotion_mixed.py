# inspect: k --args i8[:],u8[:],u16[:],f64[:]
# inspect: k --args i32[:],u32[:],i16[:],i64[:]
import tack


@tack.kernel
def k(a, b, c, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i] + c[i]
