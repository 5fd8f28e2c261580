import tack

@tack.kernel
def k(x, out, n) -> float:
    for i in range(out.shape[0]):
        out[i] = x[i]
    return x[0]
    v = 1
