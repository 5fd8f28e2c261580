import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        for out[0] in range(3):
            pass
