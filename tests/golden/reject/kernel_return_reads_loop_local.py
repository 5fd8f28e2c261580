import tack

@tack.kernel
def k(x, out, n) -> float:
    for i in range(out.shape[0]):
        total = x[i]
        out[i] = total
    return total
