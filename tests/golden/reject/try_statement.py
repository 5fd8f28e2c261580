import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        try:
            out[i] = x[i]
        except Exception:
            out[i] = 0.0
