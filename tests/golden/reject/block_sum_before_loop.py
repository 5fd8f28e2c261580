import tack

@tack.kernel
def k(x, out, n):
    total = tack.block_sum(1.0)
    for i in range(out.shape[0]):
        out[i] = x[i]
