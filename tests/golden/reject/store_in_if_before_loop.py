import tack

@tack.kernel
def k(x, out, n):
    if n > 0:
        out[0] = 1.0
    for i in range(out.shape[0]):
        out[i] = x[i]
