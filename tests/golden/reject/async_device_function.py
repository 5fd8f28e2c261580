import tack

@tack.func
async def f(a):
    return a

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = f(1)
