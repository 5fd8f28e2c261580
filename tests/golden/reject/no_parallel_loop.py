import tack

@tack.kernel
def k(x, out, n):
    v = x[0]
