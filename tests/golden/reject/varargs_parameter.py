import tack

@tack.kernel
def k(x, out, *rest):
    for i in range(out.shape[0]):
        out[i] = x[i]
