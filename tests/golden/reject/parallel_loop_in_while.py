import tack

@tack.kernel
def k(x, out, n):
    while n > 0:
        for i in range(4):
            out[i] = x[i]
        n = n - 1
