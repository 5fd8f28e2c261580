import tack

@tack.func
def pair(a):
    return a, a + 1

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        v = pair(x[i])
        out[i] = v
