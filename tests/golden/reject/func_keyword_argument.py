import tack

@tack.func
def helper(a):
    return a

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = helper(a=x[i])
