import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = x[i].foo
