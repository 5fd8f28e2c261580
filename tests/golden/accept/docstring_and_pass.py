# inspect: k --args f32[:]
import tack


@tack.kernel
def k(a):
    """Doubles a."""
    for i in range(a.shape[0]):
        pass
        a[i] = a[i] * 2
