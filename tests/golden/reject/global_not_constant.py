import tack

SCALE = 2.0

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = x[i] * SCALE
