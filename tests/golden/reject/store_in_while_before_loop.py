import tack

@tack.kernel
def k(x, out, n):
    while n > 0:
        out[0] = 1.0
        n = n - 1
    for i in range(out.shape[0]):
        out[i] = x[i]
