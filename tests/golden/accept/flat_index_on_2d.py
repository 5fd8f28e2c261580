# inspect: k --args f32[:,:]
import tack


@tack.kernel
def k(a):
    for i in range(a.size):
        a[i] = 2.0 * a[i]
