import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        v = x[i] > 0 and tack.block_max(x[i]) > 0
        out[i] = v
