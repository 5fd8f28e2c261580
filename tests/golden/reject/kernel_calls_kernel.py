import tack

@tack.kernel
def other(x):
    for i in range(x.shape[0]):
        x[i] = 0.0

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        other(x)
