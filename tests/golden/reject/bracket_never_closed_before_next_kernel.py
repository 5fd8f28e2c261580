import tack

@tack.kernel
def k(x, y):
    for i in range(x.shape[0]):
        x[i] = y[(i + 1

@tack.kernel
def k2(x):
    for i in range(x.shape[0]):
        x[i] = 1
