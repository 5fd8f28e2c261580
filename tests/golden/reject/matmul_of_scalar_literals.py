import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = 1.0 @ 2.0
