import tack


@tack.kernel
def saxpy(x, y, a):
    """y = a * x + y: 2 loads and 1 store per element (memory-bound)."""
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
