import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        for j in range(0.5):
            out[i] = x[i]
