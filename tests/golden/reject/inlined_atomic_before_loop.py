import tack

@tack.func
def bump(counts):
    tack.atomic_add(counts, 0, 1)

@tack.kernel
def k(x, out, n):
    bump(out)
    for i in range(out.shape[0]):
        out[i] = x[i]
