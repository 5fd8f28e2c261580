import tack


@tack.kernel
def triad(a, b, c, s):
    """STREAM triad a = b + s * c: 2 loads and 1 store per element (memory-bound)."""
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]
