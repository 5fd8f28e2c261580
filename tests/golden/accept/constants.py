# inspect: k --args f32[:],f32[:],u32[:]
# inspect: k --args f64[:],f64[:],u32[:]
import tack
import math

SCALE = tack.constant(2.5)
MASK = tack.constant(747796405, tack.u32)
TENTH = tack.constant(0.1, tack.f64)


@tack.kernel
def k(a, out, h):
    for i in range(out.shape[0]):
        out[i] = a[i] * SCALE + math.pi + TENTH
        h[i] = MASK * 3
