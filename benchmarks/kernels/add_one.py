import tack


@tack.kernel
def add_one(x):
    """x += 1 over every element: with one element, a call is pure dispatch overhead."""
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
