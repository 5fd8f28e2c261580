import tack


@tack.kernel
def saxpy(x, y, a):
    """y = a * x + y over every element."""
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
