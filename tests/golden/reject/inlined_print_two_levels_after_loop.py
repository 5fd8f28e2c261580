import tack

@tack.func
def inner(out):
    print(out[0])

@tack.func
def outer(out):
    inner(out)

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = x[i]
    outer(out)
