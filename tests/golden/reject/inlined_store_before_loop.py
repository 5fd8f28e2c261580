import tack

@tack.func
def store_first(out, v):
    out[0] = v
    return v

@tack.kernel
def k(x, out, n):
    scale = store_first(out, 2.0)
    for i in range(out.shape[0]):
        out[i] = x[i] * scale
