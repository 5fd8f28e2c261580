# inspect: k --args f32[:],f32[:]
# inspect: k --args i32[:],i32[:]
import tack


@tack.func
def square(x):
    return x * x


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = square(a[i]) + square(2)
