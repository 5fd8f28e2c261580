import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        for j in range(1, 2, 3, 4):
            out[i] = j
