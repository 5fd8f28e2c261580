# inspect: k --args f32[:],f32[:],f32[:]
import tack


@tack.func
def sq(x):
    return x * x


@tack.func
def norm2(x, y):
    return sq(x) + sq(y)


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = sqrt(norm2(a[i], b[i]))
