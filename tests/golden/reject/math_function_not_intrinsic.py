import tack
import math

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = math.gamma(x[i])
