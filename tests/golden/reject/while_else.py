import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        while n > 0:
            n = n - 1
        else:
            out[i] = 0.0
