import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        t = [v for v in range(3)]
