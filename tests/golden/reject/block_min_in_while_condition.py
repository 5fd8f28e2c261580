import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        while tack.block_min(x[i]) > 0.0:
            out[i] = 0.0
