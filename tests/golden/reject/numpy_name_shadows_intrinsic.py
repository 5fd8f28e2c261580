import tack
from numpy import sqrt

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = sqrt(x[i])
