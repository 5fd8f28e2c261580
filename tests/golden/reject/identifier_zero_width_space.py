import tack

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        a​b = 1
        x[i] = 1
