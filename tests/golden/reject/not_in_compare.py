import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        if i not in x:
            out[i] = 0.0
