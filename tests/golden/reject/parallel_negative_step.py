import tack

@tack.kernel
def k(x, out, n):
    for i in range(n, 0, -1):
        out[i] = x[i]
