import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        if x[i] is 0:
            out[i] = 0.0
