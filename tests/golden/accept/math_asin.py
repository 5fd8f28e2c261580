# inspect: k --args f32[:],f32[:]
# inspect: k --args f64[:],f64[:]
import tack
import math


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = asin(a[i]) + math.asin(a[i])
