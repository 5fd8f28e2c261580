import tack

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        price€ = 1
        x[i] = 1
