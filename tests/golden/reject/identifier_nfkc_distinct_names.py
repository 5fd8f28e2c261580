import tack

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        ﬁ = 1
        x[i] = fj
