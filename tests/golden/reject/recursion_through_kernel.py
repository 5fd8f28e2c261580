import tack

@tack.func
def f(a):
    if a > 0:
        return f(a - 1)
    return a

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = f(x[i])
